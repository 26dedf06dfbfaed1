// A communicator family's progress thread (Options::progress ==
// Progress::thread, RCOLL_PROGRESS=thread; docs/THREADING.md). Every call
// of the family runs on it, and between calls it keeps driving the
// operations of the issued ones, so that a non-blocking call moves on
// while the application computes and calls nothing.
//
// Contract:
// - execute(f) runs f on the thread and returns what f returns, or throws
//   what it throws; the calling thread sleeps on a condition variable
//   meanwhile. From the progress thread itself, f runs at once.
// - After creation everything that touches the family's transport runs
//   here: the calls, the tests and waits of requests, and the destruction
//   of each communicator (comm.cpp). So operations, which never move
//   between threads (transport/operation.hpp), all live on this thread.
// - Between tasks, while operations are suspended, it drives them
//   (transport::drive_while_suspended: a short spin, then a sleep in the
//   transport's wait, which execute() ends with Transport::wake). With
//   none suspended it sleeps on its condition variable: an idle
//   communicator costs no CPU.
// - The destructor stops and joins the thread. Each communicator of the
//   family holds a reference, so it runs after the last one is gone, on
//   the thread that destroyed it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

#include "transport/transport.hpp"

namespace rcoll::comm {

class ProgressThread {
 public:
  // `base`: the family's first transport, which its sub-transports' waits
  // reach (transport/sub_transport.hpp). Its owners are the family's
  // communicators: it lives as long as any operation does.
  explicit ProgressThread(std::weak_ptr<transport::Transport> base);
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  template <typename F>
  std::invoke_result_t<F&> execute(F&& f) {
    using Result = std::invoke_result_t<F&>;
    if (std::this_thread::get_id() == thread_.get_id()) return f();
    std::exception_ptr error;
    if constexpr (std::is_void_v<Result>) {
      run_task([&] {
        try {
          f();
        } catch (...) {
          error = std::current_exception();
        }
      });
      if (error) std::rethrow_exception(error);
    } else {
      std::optional<Result> result;
      run_task([&] {
        try {
          result.emplace(f());
        } catch (...) {
          error = std::current_exception();
        }
      });
      if (error) std::rethrow_exception(error);
      return std::move(*result);
    }
  }

 private:
  struct Task {
    std::function<void()> body;  // never throws
    std::uint64_t number;
  };
  // Queues `body` and sleeps until the thread has run it.
  void run_task(std::function<void()> body);
  void loop();
  // Drives the suspended operations until a task is queued or none is left.
  void drive(std::unique_lock<std::mutex>& lock);

  const std::weak_ptr<transport::Transport> base_;
  std::mutex mutex_;
  std::condition_variable work_;  // a task was queued, or stop
  std::condition_variable done_;  // a task was run
  std::deque<Task> tasks_;
  std::uint64_t queued_count_ = 0;  // tasks queued so far; a task's number
  std::uint64_t done_count_ = 0;    // tasks run so far (they run in order)
  std::shared_ptr<transport::Transport> driving_;  // set inside drive(): wake it, not work_
  std::atomic<bool> has_tasks_{false};  // what drive() polls without the mutex
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest exists
};

}  // namespace rcoll::comm
