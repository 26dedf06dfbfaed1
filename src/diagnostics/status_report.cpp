#include "diagnostics/status_report.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "diagnostics/rank_list.hpp"
#include "common/fd.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::diagnostics::status {
namespace {

// How long the reporter leaves a communicator inside a call to answer itself.
constexpr auto self_answer_grace = std::chrono::milliseconds(300);
constexpr auto grace_poll = std::chrono::milliseconds(10);

std::atomic<std::uint64_t> request_count{0};
// The pipe's write end, for the signal handler (-1 until enabled).
std::atomic<int> wake_fd{-1};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

void write_line(const std::string& line) {
  std::string text = "rcoll status: " + line + "\n";
  const char* at = text.data();
  std::size_t left = text.size();
  while (left > 0) {  // one write() for a whole line keeps lines of ranks apart
    ssize_t n = ::write(STDERR_FILENO, at, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string describe_last(const CallState::Snapshot& s) {
  if (s.call.kind == CallKind::none) return "no call yet";
  return "last call " + s.call.label() + (s.phase == CallState::Phase::failed ? " failed" : " completed");
}

class Reporter {
 public:
  Reporter() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) throw IoError(-1, -1, "status reporter: pipe", net::errno_text(errno));
    read_end_ = UniqueFd(fds[0]);
    write_end_ = UniqueFd(fds[1]);
    int flags = ::fcntl(read_end_.get(), F_GETFL);
    ::fcntl(read_end_.get(), F_SETFL, flags & ~O_NONBLOCK);  // the reporter blocks on it
    wake_fd.store(write_end_.get());
    thread_ = std::thread([this] { run(); });
  }
  ~Reporter() {
    stopping_.store(true);
    wake_fd.store(-1);
    char byte = 's';
    [[maybe_unused]] ssize_t n = ::write(write_end_.get(), &byte, 1);
    thread_.join();
  }
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  void track(const std::shared_ptr<CallState>& state) {
    std::lock_guard lock(mutex_);
    std::erase_if(states_, [](const std::weak_ptr<CallState>& s) { return s.expired(); });
    states_.push_back(state);
  }

 private:
  void run() {
    char buffer[64];
    while (!stopping_.load()) {
      ssize_t n = ::read(read_end_.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || stopping_.load()) return;
      answer(request_count.load());
    }
  }

  std::vector<std::shared_ptr<CallState>> live_states() {
    std::lock_guard lock(mutex_);
    std::vector<std::shared_ptr<CallState>> live;
    for (const auto& weak : states_)
      if (auto state = weak.lock()) live.push_back(std::move(state));
    return live;
  }

  // Idle communicators at once; those inside a call after the grace period,
  // unless their wait loop answered meanwhile.
  void answer(std::uint64_t generation) {
    auto states = live_states();
    auto until = std::chrono::steady_clock::now() + self_answer_grace;
    for (bool last = false; !last;) {
      last = std::chrono::steady_clock::now() >= until;
      bool open = false;
      for (const auto& state : states) {
        if (state->answered(generation)) continue;
        auto snapshot = state->snapshot();
        if (snapshot.phase == CallState::Phase::in_call && !last) {
          open = true;
        } else if (state->claim(generation)) {
          print_state(snapshot, state->rank());
        }
      }
      if (!open) return;
      std::this_thread::sleep_for(grace_poll);
    }
  }

  UniqueFd read_end_;
  UniqueFd write_end_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<std::weak_ptr<CallState>> states_;
  std::thread thread_;
};

std::atomic<Reporter*> reporter{nullptr};  // set once by enable_signal(); lives until exit

extern "C" void on_status_signal(int) {
  int saved = errno;
  request();
  errno = saved;
}

}  // namespace

void enable_signal() {
  static Reporter instance;  // started on first use, stopped at exit
  static const bool installed = [] {
    reporter.store(&instance);
    struct sigaction action {};
    action.sa_handler = on_status_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    return ::sigaction(SIGUSR1, &action, nullptr) == 0;
  }();
  if (!installed) throw IoError(-1, -1, "status reporter: sigaction(SIGUSR1)", "failed");
}

bool enabled() noexcept { return wake_fd.load() >= 0; }

void request() noexcept {
  request_count.fetch_add(1);
  int fd = wake_fd.load();
  char byte = 'r';
  if (fd >= 0) [[maybe_unused]] ssize_t n = ::write(fd, &byte, 1);
}

std::uint64_t requests() noexcept { return request_count.load(std::memory_order_relaxed); }

void track(const std::shared_ptr<CallState>& state) {
  state->claim(requests());  // earlier requests are not this communicator's
  if (Reporter* r = reporter.load()) r->track(state);
}

void print_waiting(int rank, const LazyText& step, std::span<const int> peers) {
  write_line("rank " + std::to_string(rank) + ": in " + step.str() + ", waiting for " +
             (peers.empty() ? std::string("no rank (progressing)") : name_ranks(peers)));
}

void print_state(const CallState::Snapshot& snapshot, int rank) {
  std::string who = "rank " + std::to_string(rank) + ": ";
  if (snapshot.phase == CallState::Phase::in_call)
    write_line(who + "in " + snapshot.call.label() + ", busy (not blocked in a wait)");
  else
    write_line(who + "not in an rcoll call; " + describe_last(snapshot));
}

}  // namespace rcoll::diagnostics::status
