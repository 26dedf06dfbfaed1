#include "comm/progress_thread.hpp"

#include <pthread.h>

#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "common/log.hpp"
#include "transport/operation.hpp"

namespace rcoll::comm {
namespace {

// After the transport threw out of a drive (it should not: failures end
// requests, not progress), the thread pauses this long before driving
// again, so that a lasting fault is logged and retried, never spun on.
constexpr auto pause_after_fault = std::chrono::milliseconds(10);

}  // namespace

// The name (what ps, top and /proc/<pid>/task/<tid>/comm show) is set
// before the constructor returns, so it is there for whoever looks next.
ProgressThread::ProgressThread(std::weak_ptr<transport::Transport> base)
    : base_(std::move(base)), thread_([this] { loop(); }) {
  ::pthread_setname_np(thread_.native_handle(), "rcoll-progress");
}

ProgressThread::~ProgressThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void ProgressThread::run_task(std::function<void()> body) {
  std::unique_lock lock(mutex_);
  const std::uint64_t number = ++queued_count_;
  tasks_.push_back(Task{std::move(body), number});
  has_tasks_.store(true, std::memory_order_release);
  if (driving_)
    driving_->wake();
  else
    work_.notify_one();
  done_.wait(lock, [&] { return done_count_ >= number; });
}

void ProgressThread::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    if (!tasks_.empty()) {
      Task task = std::move(tasks_.front());
      tasks_.pop_front();
      has_tasks_.store(!tasks_.empty(), std::memory_order_release);
      lock.unlock();
      task.body();
      task.body = nullptr;  // what it captured goes before its caller is told
      lock.lock();
      done_count_ = task.number;
      done_.notify_all();
      continue;
    }
    if (stopping_) return;
    if (transport::suspended_operations() == 0) {
      work_.wait(lock);
      continue;
    }
    drive(lock);
  }
}

void ProgressThread::drive(std::unique_lock<std::mutex>& lock) {
  driving_ = base_.lock();
  if (!driving_) {  // cannot be: operations outlive no communicator
    work_.wait(lock);
    return;
  }
  transport::Transport& base = *driving_;
  lock.unlock();
  bool fault = false;
  try {
    transport::drive_while_suspended(base, [this] { return has_tasks_.load(std::memory_order_acquire); });
  } catch (const std::exception& e) {
    log::error("progress thread: driving the issued calls failed: {}", e.what());
    fault = true;
  }
  lock.lock();
  driving_.reset();
  if (fault) work_.wait_for(lock, pause_after_fault);
}

}  // namespace rcoll::comm
