#include "comm/env_options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/byte_count.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

long long parse_integer(const char* name, const std::string& text) {
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw InvalidArgument(std::string(name) + "='" + text + "' is not an integer");
  return value;
}

int env_int(const char* name, int fallback) {
  auto text = env(name);
  if (!text) return fallback;
  long long value = parse_integer(name, *text);
  if (value < 0 || value > (1 << 30)) throw InvalidArgument(std::string(name) + "='" + *text + "' is out of range");
  return static_cast<int>(value);
}

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

void read_rank_and_size(Options& options) {
  for (const auto& family : launcher_families) {
    if (!env(family.rank) && !env(family.size)) continue;
    if (!env(family.rank) || !env(family.size))
      throw InvalidArgument(std::string("set both ") + family.rank + " and " + family.size + ", or neither");
    options.rank = env_int(family.rank, -1);
    options.size = env_int(family.size, -1);
    options.local_rank = env_int(family.local_rank, 0);
    options.local_size = std::max(env_int(family.local_size, 1), options.local_rank + 1);
    return;
  }
  options.rank = 0;  // no launcher: a job of one rank
  options.size = 1;
}

void read_bootstrap(Options& options) {
  if (auto address = env("RCOLL_BOOTSTRAP")) {
    options.bootstrap = *address;
    options.host_bootstrap = options.rank == 0 && env("RCOLL_BOOTSTRAP_SERVE") == "1";
  } else if (auto host = env("MASTER_ADDR")) {
    auto port = env("MASTER_PORT");
    if (!port) throw InvalidArgument("MASTER_ADDR is set but MASTER_PORT is not");
    parse_integer("MASTER_PORT", *port);
    options.bootstrap = *host + ":" + *port;
    options.host_bootstrap = options.rank == 0;
  }
}

void read_tuning(Options& options) {
  if (auto token = env("RCOLL_JOB_TOKEN")) options.job_token = *token;
  if (auto name = env("RCOLL_TRANSPORT")) options.transport = parse_transport(*name);
  if (auto name = env("RCOLL_SOCKET_IFNAME")) options.socket_ifname = *name;
  if (auto name = env("RCOLL_ALLREDUCE_ALGO")) options.allreduce_algo = parse_allreduce_algo(*name);
  if (auto name = env("RCOLL_BCAST_ALGO")) options.bcast_algo = parse_bcast_algo(*name);
  if (auto text = env("RCOLL_SEGMENT_BYTES")) {
    std::optional<std::size_t> bytes = parse_byte_count(*text);
    if (!bytes || *bytes == 0)
      throw InvalidArgument("RCOLL_SEGMENT_BYTES='" + *text + "' must be a positive byte count such as 524288 or 512K");
    options.segment_bytes = *bytes;
  }
  if (auto text = env("RCOLL_CHECK")) {
    if (*text != "0" && *text != "1") throw InvalidArgument("RCOLL_CHECK='" + *text + "' must be 0 or 1");
    options.check = *text == "1";
  }
  if (auto text = env("RCOLL_CALIBRATE")) {
    if (*text != "0" && *text != "1") throw InvalidArgument("RCOLL_CALIBRATE='" + *text + "' must be 0 or 1");
    options.calibrate = *text == "1";
  }
  if (auto text = env("RCOLL_TIMEOUT")) {
    char* end = nullptr;
    double seconds = std::strtod(text->c_str(), &end);
    if (end != text->c_str() + text->size() || !(seconds > 0) || seconds > 1e7)
      throw InvalidArgument("RCOLL_TIMEOUT='" + *text + "' is not a positive number of seconds");
    options.timeout = std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0 + 0.5));
  }
}

}  // namespace

Options options_from_env() {
  Options options;
  read_rank_and_size(options);
  read_bootstrap(options);
  read_tuning(options);
  return options;
}

}  // namespace rcoll::comm
