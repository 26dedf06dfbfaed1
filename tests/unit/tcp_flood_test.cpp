// A local stranger floods the ranks' TCP data ports before the job's first
// collective opens its connections (issue 19, item 1): it finds the new
// listeners of the process in /proc/net/tcp, as an attacker on the host
// would, holds a few hundred silent connections to each (more than the
// listener keeps pending: it must evict) and keeps opening new ones (silent,
// forged hellos with a wrong proof, garbage) while the ranks connect. Every job must start and compute right, every time; the
// listeners must be bound to loopback (every rank is local); and the
// flood must show as a few summary lines, not as a line per connection.
// Ranks are threads joined through the in-memory bootstrap; every flood
// connection goes to this process's own listeners, on loopback.
#include <sys/resource.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/rcoll.hpp"
#include "support/captured_log.hpp"
#include "support/comm_ranks.hpp"
#include "support/own_listeners.hpp"
#include "transport/tcp/wire.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int ranks = 4;
constexpr std::size_t held_per_port = 300;     // more than the old cap of world size + 64
constexpr std::size_t churn_per_port = 1000;   // opened while the job connects, bounded

// The flooder: a thread that waits for `ranks` new listeners of this
// process, holds held_per_port connections to each, says so (armed), then
// keeps replacing its oldest connection with a new one until stopped.
class Flooder {
 public:
  explicit Flooder(std::set<std::uint64_t> known) : known_(std::move(known)), thread_([this] { run(); }) {}
  ~Flooder() {
    stop_ = true;
    thread_.join();
  }

  // Blocks until the flood holds its connections (false after 10 s).
  bool wait_armed() {
    std::unique_lock lock(mutex_);
    return armed_cv_.wait_for(lock, 10s, [&] { return armed_ || failed_; }) && armed_;
  }
  std::vector<test::Listener> targets() const { return targets_; }
  std::size_t opened() const { return opened_; }

 private:
  void run() {
    if (!find_targets()) {
      std::lock_guard lock(mutex_);
      failed_ = true;
      armed_cv_.notify_all();
      return;
    }
    std::vector<std::deque<UniqueFd>> held(targets_.size());
    for (std::size_t i = 0; i < targets_.size(); ++i)
      while (held[i].size() < held_per_port) held[i].push_back(open_one(targets_[i], 0));
    {
      std::lock_guard lock(mutex_);
      armed_ = true;
      armed_cv_.notify_all();
    }
    for (std::size_t n = 0; n < churn_per_port && !stop_; ++n) {
      for (std::size_t i = 0; i < targets_.size(); ++i) {
        held[i].pop_front();
        held[i].push_back(open_one(targets_[i], n % 3));
      }
    }
    while (!stop_) std::this_thread::sleep_for(1ms);  // keep holding until the job is over
  }

  bool find_targets() {
    auto deadline = Deadline::after(10s);
    while (!deadline.expired() && !stop_) {
      std::vector<test::Listener> found;
      for (const auto& listener : test::own_listeners())
        if (known_.count(listener.inode) == 0) found.push_back(listener);
      if (found.size() >= static_cast<std::size_t>(ranks)) {
        targets_ = std::move(found);
        return true;
      }
      std::this_thread::sleep_for(1ms);
    }
    return false;
  }

  // A connection to `target`: silent (kind 0), a forged hello (1: right
  // magic and version, wrong proof) or garbage (2).
  UniqueFd open_one(const test::Listener& target, std::size_t kind) {
    int error = 0;
    const std::string ip = target.ip == "0.0.0.0" ? "127.0.0.1" : target.ip;
    UniqueFd fd;
    try {
      fd = net::connect_nonblocking(net::resolve_ipv4(ip, target.port), error);
    } catch (const Error&) {
      return fd;  // out of descriptors: an attacker would just try again
    }
    ++opened_;
    if (error != 0 || kind == 0) return fd;
    if (!(net::wait_fd(fd.get(), POLLOUT, Deadline::after(50ms)) & POLLOUT)) return fd;
    transport::tcp::Hello forged;
    forged.rank = 1;
    forged.size = ranks;
    forged.proof.fill(0x5a);
    char garbage[sizeof(forged)];
    std::fill(std::begin(garbage), std::end(garbage), 'x');
    const void* bytes = kind == 1 ? static_cast<const void*>(&forged) : garbage;
    (void)::send(fd.get(), bytes, sizeof(forged), MSG_NOSIGNAL | MSG_DONTWAIT);
    return fd;
  }

  std::set<std::uint64_t> known_;
  std::vector<test::Listener> targets_;
  std::atomic<std::size_t> opened_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable armed_cv_;
  bool armed_ = false;
  bool failed_ = false;
  std::thread thread_;  // last: starts after everything it uses
};

std::set<std::uint64_t> inodes_of(const std::vector<test::Listener>& listeners) {
  std::set<std::uint64_t> inodes;
  for (const auto& listener : listeners) inodes.insert(listener.inode);
  return inodes;
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// One job under the flood: its first collectives open every connection.
void flooded_job(int job) {
  Flooder flooder(inodes_of(test::own_listeners()));
  Options base;
  base.timeout = 30s;
  base.calibrate = false;  // no connection before the flood is armed
  test::run_comm_ranks("tcp", ranks, base, [&](Comm& comm) {
    ASSERT_TRUE(flooder.wait_armed()) << "the flooder found no " << ranks << " new listeners";
    std::vector<float> data(1000, static_cast<float>(comm.rank() + 1));
    comm.allreduce(std::span<float>(data), ReduceOp::sum);
    const float expected = ranks * (ranks + 1) / 2.0f;
    EXPECT_EQ(std::count(data.begin(), data.end(), expected), 1000) << "job " << job << ", rank " << comm.rank();
    int root_value = comm.rank() == 2 ? 42 : 0;
    comm.bcast(&root_value, 1, DataType::int32, 2);
    EXPECT_EQ(root_value, 42);
    comm.barrier();
  });
  const auto targets = flooder.targets();
  ASSERT_EQ(targets.size(), static_cast<std::size_t>(ranks));
  for (const auto& listener : targets)
    EXPECT_EQ(listener.ip, "127.0.0.1") << "an all-local job's data port listens on " << listener.ip;
  EXPECT_GE(flooder.opened(), ranks * held_per_port);
}

// The flood and the ranks' side of it share this process's descriptors:
// about 3000 at once.
bool enough_descriptors() {
  constexpr rlim_t wanted = 8192;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur >= wanted) return true;
  limit.rlim_cur = std::min(wanted, limit.rlim_max);
  return ::setrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur >= 4096;
}

TEST(TcpFlood, EveryJobStartsUnderAFloodAndTheFloodIsSummarizedNotEchoed) {
  if (!enough_descriptors()) GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is below the 4096 descriptors the flood needs";
  constexpr int jobs = 3;
  test::CapturedLog log(spdlog::level::warn);
  auto start = Clock::now();
  for (int job = 0; job < jobs; ++job) flooded_job(job);
  const std::string text = log.text();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Warnings and errors (RCOLL_LOG=debug may add lines of lower levels).
  const std::size_t lines = count_of(text, "[warning]") + count_of(text, "[error]");
  // Each rank's listener: at most one summary per 5 s, plus the last one
  // when it closes; thousands of connections were dropped.
  const auto allowed = static_cast<std::size_t>(jobs * ranks * (2 + seconds / 5));
  EXPECT_LE(lines, allowed) << "more warning lines than the summaries allow:\n" << text.substr(0, 4000);
  EXPECT_GE(count_of(text, "did not prove the job token"), static_cast<std::size_t>(jobs))
      << "the flood was not seen:\n" << text.substr(0, 4000);
}

}  // namespace
}  // namespace rcoll
