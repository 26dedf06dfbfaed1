#include "driver.hpp"

#include <pthread.h>

#include <exception>
#include <utility>

namespace rcoll::torch_backend {

Driver::Driver(std::unique_ptr<TorchStore> store) : store_(std::move(store)), thread_([this] { loop(); }) {
  ::pthread_setname_np(thread_.native_handle(), "rcoll-torch");
}

Driver::~Driver() {
  wait_idle();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Driver::issue(const c10::intrusive_ptr<RcollWork>& work, const std::function<rcoll::Request()>& start) {
  std::lock_guard lock(family_);
  work->request() = start();
  {
    std::lock_guard count(mutex_);
    ++outstanding_;
  }
  // Runs on rcoll's progress thread, or here at once when the call is done already.
  work->request().notify_when_done([this, work] { done(work); });
}

void Driver::done(c10::intrusive_ptr<RcollWork> work) {
  {
    std::lock_guard lock(mutex_);
    ready_.push_back(std::move(work));
  }
  changed_.notify_all();
}

void Driver::wait_idle() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return outstanding_ == 0; });
}

void Driver::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
    if (ready_.empty()) return;  // stopping, and nothing is left
    c10::intrusive_ptr<RcollWork> work = std::move(ready_.front());
    ready_.pop_front();
    lock.unlock();
    std::exception_ptr error;
    try {
      std::lock_guard family(family_);
      work->request().wait();  // done already: settles it and throws its error
    } catch (...) {
      error = std::current_exception();
    }
    work->complete(error);
    work.reset();
    lock.lock();
    --outstanding_;
    changed_.notify_all();
  }
}

}  // namespace rcoll::torch_backend
