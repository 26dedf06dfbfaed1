// rcoll-soak: ranks doing a seeded random mix of allreduce (every type and
// op, in and out of place), bcast (random roots), barrier and send/recv,
// with random sizes (0, 1, odd, up to --max-bytes, many segments) on a pool
// of communicators that force every algorithm; every result is checked
// against a serial reference computed from the seed, and memory (VmRSS,
// VmHWM) must not grow after the warm-up. Built on the public API only.
//   tools/rcoll-run -n 8 -- rcoll-soak --duration 300
//   rcoll-soak --threads 4 --ops 500            (ranks as threads, no launcher)
// Exit status: 0 pass, 1 mismatch or memory growth, 2 bad command line,
// 3 an rcoll error (printed with the rank that raised it).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <rcoll/rcoll.hpp>

#include "options.hpp"
#include "pool.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace rcoll::soak {
namespace {

constexpr int exit_fail = 1;
constexpr int exit_usage = 2;
constexpr int exit_error = 3;
constexpr int max_world = 256;  // the float inputs stay exact up to here (values.hpp)

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// Settings of the pool not on the command line come from the launcher's
// environment, as Comm::from_env reads them.
PoolBase pool_base(const SoakOptions& options, const std::string& token) {
  PoolBase base;
  base.transport = parse_transport(options.transport.empty() ? env_or("RCOLL_TRANSPORT", "auto") : options.transport);
  base.job_token = token;
  base.socket_ifname = env_or("RCOLL_SOCKET_IFNAME", "");
  const double timeout = options.timeout_s > 0 ? options.timeout_s : std::strtod(env_or("RCOLL_TIMEOUT", "120").c_str(), nullptr);
  base.timeout = std::chrono::milliseconds(static_cast<long long>((timeout > 0 ? timeout : 120) * 1000));
  std::string bootstrap = env_or("RCOLL_BOOTSTRAP", "");
  if (!options.host.empty()) base.host = options.host;
  else if (auto colon = bootstrap.rfind(':'); colon != std::string::npos && colon > 0) base.host = bootstrap.substr(0, colon);
  return base;
}

// One rank's whole program; returns its exit status.
int run(Comm& world, const SoakOptions& options, const PoolBase& base) {
  if (world.size() > max_world) throw InvalidArgument("rcoll-soak supports at most 256 ranks");
  const std::vector<PoolSetup> setups = pool_setups(options.comms, options.seed);
  std::vector<Comm> pool = make_pool(world, base, setups);
  const RankResult mine = run_rank(world, pool, options);
  for (const Mismatch& m : mine.details)
    std::fprintf(stderr, "rcoll-soak: rank %d: MISMATCH in %s: %s\n", world.rank(), m.operation.c_str(), m.what.c_str());
  const JobSummary summary = gather_summary(world, mine, options, setups, pool.front().transport_name());
  if (world.rank() == 0) {
    print_summary(stdout, summary, options);
    std::fflush(stdout);
    if (!options.json_path.empty() && !write_json(options.json_path, summary, options)) return exit_fail;
  }
  return summary.pass() ? 0 : exit_fail;
}

int run_processes(const SoakOptions& options) {
  Comm world = Comm::from_env();
  return run(world, options, pool_base(options, env_or("RCOLL_JOB_TOKEN", "")));
}

// Ranks as threads: rank 0 hosts the world's bootstrap service on loopback.
int run_threads(const SoakOptions& options) {
  SoakOptions threaded = options;
  if (threaded.host.empty()) threaded.host = "127.0.0.1";
  const std::string token = std::to_string(std::random_device{}()) + "-" + std::to_string(std::random_device{}());
  const PoolBase base = pool_base(threaded, token);
  const std::string address = base.host + ":" + std::to_string(free_port(base.host));
  std::vector<int> status(static_cast<std::size_t>(options.threads), 0);
  std::mutex print_mutex;
  std::vector<std::thread> threads;
  for (int rank = 0; rank < options.threads; ++rank)
    threads.emplace_back([&, rank] {
      try {
        Options o;
        o.rank = rank;
        o.size = options.threads;
        o.bootstrap = address;
        o.host_bootstrap = rank == 0;
        o.job_token = token;
        o.transport = base.transport;
        o.timeout = base.timeout;
        Comm world = Comm::create(o);
        status[static_cast<std::size_t>(rank)] = run(world, threaded, base);
      } catch (const std::exception& e) {
        std::lock_guard lock(print_mutex);
        std::fprintf(stderr, "rcoll-soak: rank %d: %s\n", rank, e.what());
        status[static_cast<std::size_t>(rank)] = exit_error;
      }
    });
  for (auto& thread : threads) thread.join();
  int worst = 0;
  for (int s : status) worst = std::max(worst, s);
  return worst;
}

}  // namespace
}  // namespace rcoll::soak

int main(int argc, char** argv) {
  using namespace rcoll::soak;
#if defined(__GLIBC__)
  // Fixed, not dynamic: glibc raises its mmap threshold to the largest block
  // freed so far, after which this program's multi-MiB check buffers stay
  // in the heap when freed and RSS shows the allocator's high-water mark,
  // not what the library keeps. With a fixed threshold they go back to the
  // system, and RSS growth means memory someone holds.
  ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  SoakOptions options;
  try {
    options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const rcoll::bench::UsageError& e) {
    std::fprintf(stderr, "rcoll-soak: %s\n%s", e.what(), usage_text());
    return exit_usage;
  }
  if (options.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  try {
    return options.threads > 0 ? run_threads(options) : run_processes(options);
  } catch (const rcoll::InvalidArgument& e) {
    std::fprintf(stderr, "rcoll-soak: %s\n", e.what());
    return exit_usage;
  } catch (const rcoll::Error& e) {
    std::fprintf(stderr, "rcoll-soak: %s\n", e.what());
    return exit_error;
  }
}
