// Making and destroying rcoll process groups, and issuing their calls
// (the calls themselves: process_group_calls.cpp).
#include "process_group.hpp"

#include <utility>

#include "rcoll/options.hpp"

namespace rcoll::torch_backend {
namespace {

// The user's RCOLL_* settings; rank, size and timeout from torch; the
// join through torch's store; a progress thread, so that issued calls move
// on while the training loop computes (DDP's overlap).
Options world_options(int rank, int size, ProcessGroupRcoll::Timeout timeout) {
  Options options = options_from_env();
  options.rank = rank;
  options.size = size;
  options.local_rank = 0;
  options.local_size = 1;
  options.bootstrap.clear();
  options.host_bootstrap = false;
  options.timeout = timeout;
  options.progress = Progress::thread;
  return options;
}

}  // namespace

c10::intrusive_ptr<ProcessGroupRcoll> ProcessGroupRcoll::create_world(const c10::intrusive_ptr<c10d::Store>& store,
                                                                      int rank, int size, Timeout timeout) {
  auto driver = std::make_shared<Driver>(std::make_unique<TorchStore>(store, rank));
  Comm comm = Comm::create(world_options(rank, size, timeout), driver->store());
  return c10::make_intrusive<ProcessGroupRcoll>(std::move(driver), std::move(comm), timeout);
}

c10::intrusive_ptr<ProcessGroupRcoll> ProcessGroupRcoll::create_group(const c10::intrusive_ptr<c10d::Store>& store,
                                                                      const std::vector<int64_t>& world_ranks,
                                                                      Timeout timeout) {
  const std::vector<int> ranks(world_ranks.begin(), world_ranks.end());
  TorchStore group_store(store, comm_.rank());
  CallOptions call;
  call.timeout = timeout;
  Comm group = driver_->locked([&] { return comm_.create_group(ranks, group_store, call); });
  return c10::make_intrusive<ProcessGroupRcoll>(driver_, std::move(group), timeout);
}

ProcessGroupRcoll::ProcessGroupRcoll(std::shared_ptr<Driver> driver, Comm comm, Timeout timeout)
    : c10d::ProcessGroup(comm.rank(), comm.size()), driver_(std::move(driver)), comm_(std::move(comm)), timeout_(timeout) {}

ProcessGroupRcoll::~ProcessGroupRcoll() {
  driver_->wait_idle();
  driver_->locked([&] { Comm gone = std::move(comm_); });
}

CallOptions ProcessGroupRcoll::call_options(Timeout requested) const {
  CallOptions call;
  call.timeout = requested.count() > 0 ? requested : timeout_;
  return call;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupRcoll::issue(c10d::OpType type, std::vector<at::Tensor> outputs,
                                                        std::vector<at::Tensor> keep, std::function<void()> finish,
                                                        const std::function<Request()>& start) {
  auto work = c10::make_intrusive<RcollWork>(getRank(), type, std::move(outputs), std::move(keep), std::move(finish));
  driver_->issue(work, start);
  return work;
}

}  // namespace rcoll::torch_backend
