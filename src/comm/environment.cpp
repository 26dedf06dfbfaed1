// The environment module, part one: the communicator's options, the
// placement request and the process-wide settings (environment.hpp).
#include "comm/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "comm/environment_values.hpp"
#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

constexpr long long max_rank = 1 << 30;

struct LauncherVars {
  const char* rank;
  const char* size;
  const char* local_rank;
  const char* local_size;
};

constexpr LauncherVars launcher_families[] = {
    {"RCOLL_RANK", "RCOLL_SIZE", "RCOLL_LOCAL_RANK", "RCOLL_LOCAL_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"},
};

int rank_number(const char* name, int fallback) {
  return static_cast<int>(env::integer(name, 0, max_rank).value_or(fallback));
}

// Sets `known` to the rank as soon as it is read (for the errors after it).
void read_rank_and_size(Options& options, int& known) {
  for (const auto& family : launcher_families) {
    const bool rank = env::text(family.rank).has_value(), size = env::text(family.size).has_value();
    if (!rank && !size) continue;
    if (!rank || !size)
      throw InvalidArgument(std::string("set both ") + family.rank + " and " + family.size + ", or neither");
    options.rank = known = rank_number(family.rank, -1);
    options.size = rank_number(family.size, -1);
    options.local_rank = rank_number(family.local_rank, 0);
    options.local_size = std::max(rank_number(family.local_size, 1), options.local_rank + 1);
    return;
  }
  options.rank = known = 0;  // no launcher: a job of one rank
  options.size = 1;
}

// MASTER_ADDR:MASTER_PORT, or nullopt when MASTER_ADDR is unset.
std::optional<std::string> master_address() {
  auto host = env::text("MASTER_ADDR");
  if (!host) return std::nullopt;
  auto port = env::integer("MASTER_PORT", 1, 65535);
  if (!port) throw InvalidArgument("MASTER_ADDR is set but MASTER_PORT is not");
  return *host + ":" + std::to_string(*port);
}

// Whether torchrun's agent serves its TCPStore at MASTER_ADDR:MASTER_PORT
// (what torch's own init_process_group asks: TORCHELASTIC_USE_AGENT_STORE,
// "True" under its static rendezvous). Under another rendezvous (c10d, etcd)
// it is "False" and MASTER_PORT is a free port for rank 0 to serve at.
// RCOLL_BOOTSTRAP names rcoll's service, and wins.
bool on_torchrun_agent_store() {
  return !env::text("RCOLL_BOOTSTRAP") && env::text("TORCHELASTIC_RUN_ID") &&
         env::text("TORCHELASTIC_USE_AGENT_STORE") == "True";
}

void read_bootstrap(Options& options) {
  if (auto address = env::text("RCOLL_BOOTSTRAP")) {
    options.bootstrap = *address;
    options.host_bootstrap = options.rank == 0 && env::text("RCOLL_BOOTSTRAP_SERVE") == "1";
  } else if (on_torchrun_agent_store()) {
    return;  // no rcoll service: torchrun_store_from_env()
  } else if (auto address = master_address()) {
    options.bootstrap = *address;
    options.host_bootstrap = options.rank == 0;
  }
}

std::chrono::milliseconds timeout_from(const std::string& text) {
  char* end = nullptr;
  double seconds = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(seconds > 0) || seconds > 1e7)
    throw InvalidArgument("RCOLL_TIMEOUT='" + text + "' is not a positive number of seconds");
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0 + 0.5));
}

void read_tuning(Options& options) {
  if (auto token = env::text("RCOLL_JOB_TOKEN")) options.job_token = *token;
  if (auto name = env::text("RCOLL_TRANSPORT")) options.transport = parse_transport(*name);
  if (auto name = env::text("RCOLL_SOCKET_IFNAME")) options.socket_ifname = *name;
  if (auto name = env::text("RCOLL_ALLREDUCE_ALGO")) options.allreduce_algo = parse_allreduce_algo(*name);
  if (auto name = env::text("RCOLL_BCAST_ALGO")) options.bcast_algo = parse_bcast_algo(*name);
  if (auto name = env::text("RCOLL_REDUCE_ALGO")) options.reduce_algo = parse_reduce_algo(*name);
  if (auto name = env::text("RCOLL_ALLGATHER_ALGO")) options.allgather_algo = parse_allgather_algo(*name);
  if (auto name = env::text("RCOLL_REDUCE_SCATTER_ALGO"))
    options.reduce_scatter_algo = parse_reduce_scatter_algo(*name);
  if (auto name = env::text("RCOLL_ALLTOALL_ALGO")) options.alltoall_algo = parse_alltoall_algo(*name);
  if (auto name = env::text("RCOLL_GATHER_ALGO")) options.gather_algo = parse_gather_algo(*name);
  if (auto name = env::text("RCOLL_SCATTER_ALGO")) options.scatter_algo = parse_scatter_algo(*name);
  if (auto bytes = env::bytes("RCOLL_SEGMENT_BYTES")) {
    if (*bytes < min_segment_bytes)
      throw InvalidArgument("RCOLL_SEGMENT_BYTES='" + std::to_string(*bytes) + "': expected a byte count of at least " +
                            std::to_string(min_segment_bytes) + " (4K), such as 512K");
    options.segment_bytes = *bytes;
  }
  options.check = env::zero_or_one("RCOLL_CHECK").value_or(options.check);
  options.calibrate = env::zero_or_one("RCOLL_CALIBRATE").value_or(options.calibrate);
  if (auto name = env::text("RCOLL_PROGRESS")) options.progress = parse_progress(*name);
  if (auto text = env::text("RCOLL_TIMEOUT")) options.timeout = timeout_from(*text);
}

// "rank R: " in front of an environment error, as in every other error;
// "rank unknown: " when the launcher's rank variable itself is the problem.
[[noreturn]] void rethrow_with_rank(int rank, const InvalidArgument& error) {
  throw InvalidArgument((rank >= 0 ? "rank " + std::to_string(rank) : std::string("rank unknown")) + ": " +
                        error.what());
}

}  // namespace

Options options_from_env() {
  Options options;
  int rank = -1;
  try {
    read_rank_and_size(options, rank);
    read_bootstrap(options);
    read_tuning(options);
  } catch (const InvalidArgument& e) {
    rethrow_with_rank(rank, e);
  }
  return options;
}

std::optional<TorchrunStore> torchrun_store_from_env(int rank) {
  try {
    if (!on_torchrun_agent_store()) return std::nullopt;
    auto address = master_address();
    if (!address) throw InvalidArgument("TORCHELASTIC_USE_AGENT_STORE=True (torchrun) but MASTER_ADDR is not set");
    const long long restart =
        env::integer("TORCHELASTIC_RESTART_COUNT", 0, std::numeric_limits<int>::max()).value_or(0);
    return TorchrunStore{*address, "rcoll/" + *env::text("TORCHELASTIC_RUN_ID") + "/" + std::to_string(restart) + "/"};
  } catch (const InvalidArgument& e) {
    rethrow_with_rank(rank, e);
  }
}

PlacementRequest placement_from_env(const Options& options) {
  PlacementRequest request;
  if (auto text = env::text("RCOLL_BIND")) {
    if (auto policy = topology::parse_bind_policy(*text)) request.policy = *policy;
    else log::warn("RCOLL_BIND={} is not one of none|core|numa|nic|auto; not binding", *text);
  }
  request.report = env::flag("RCOLL_REPORT_BINDINGS");
  request.device = env::text("RCOLL_IB_DEV").value_or(options.socket_ifname);
  return request;
}

ProcessSettings process_settings_from_env(int rank) {
  ProcessSettings settings;
  try {
    settings.log_level = env::text("RCOLL_LOG");
    settings.status_signal = env::text("RCOLL_STATUS_SIGNAL") == "1";
    settings.rdma = rdma_options_from_env();
    settings.tcp_send_buffer = env::bytes("RCOLL_TCP_SNDBUF");
  } catch (const InvalidArgument& e) {
    rethrow_with_rank(rank, e);
  }
  return settings;
}

}  // namespace rcoll::comm
