// The thread behind a family of rcoll process groups (the world group and
// every group made from it, which share one rcoll communicator family).
//
// - rcoll admits one thread at a time into a family (its call guard), and
//   torch calls a process group from several (the training loop, autograd,
//   a future's callbacks): every rcoll call here is made under `family_`.
// - The communicators run with a progress thread (Options::progress), so
//   an issued call moves on while the caller computes. Its request tells
//   the Driver when it is done (Request::notify_when_done); the Driver's
//   own thread then settles it (wait(), which returns at once) and
//   completes the Work and its future, whose callbacks (DDP's) run there.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "rcoll/request.hpp"
#include "torch_store.hpp"
#include "work.hpp"

namespace rcoll::torch_backend {

class Driver : public std::enable_shared_from_this<Driver> {
 public:
  // `store`: the world group's store, which the family's communicators use
  // for as long as any of them lives.
  explicit Driver(std::unique_ptr<TorchStore> store);
  // Waits until every issued work is complete, then stops the thread.
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  TorchStore& store() { return *store_; }

  // Runs `start` (an rcoll i-call) under the family lock; `work` completes
  // on this Driver's thread when its request is done. What `start` throws
  // is thrown here, and the work is dropped.
  void issue(const c10::intrusive_ptr<RcollWork>& work, const std::function<rcoll::Request()>& start);
  // Runs `f` under the family lock (blocking rcoll calls: create_group, a
  // communicator's destruction).
  template <typename F>
  auto locked(F&& f) {
    std::lock_guard lock(family_);
    return f();
  }
  // Returns once every work issued so far is complete.
  void wait_idle();

 private:
  void loop();
  void done(c10::intrusive_ptr<RcollWork> work);

  std::unique_ptr<TorchStore> store_;
  std::mutex family_;
  std::mutex mutex_;  // the rest below
  std::condition_variable changed_;
  std::deque<c10::intrusive_ptr<RcollWork>> ready_;
  std::size_t outstanding_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // last: starts when the rest exists
};

}  // namespace rcoll::torch_backend
