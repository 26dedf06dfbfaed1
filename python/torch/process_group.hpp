// torch.distributed's process group over rcoll (torch 1.13's c10d API).
//
// Every call is issued as an rcoll i-call and returns an RcollWork at once
// (driver.hpp completes it). Tensors are CPU and dense; those that are not
// contiguous, and the lists of tensors torch passes for allgather, gather,
// scatter, reduce_scatter and alltoall, go through contiguous stand-ins
// that are copied back when the call is done. Calls that only move data
// move bytes, so they take every dtype; reductions take rcoll's types and
// bool (tensors.hpp).
//
// The world group (create_world) makes the family's first communicator on
// the store torch hands it; new_group's groups (create_group) are
// sub-communicators of it (rcoll::Comm::create_group): the same
// connections, no new service, no new calibration.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "driver.hpp"
#include "rcoll/comm.hpp"
#include "tensors.hpp"

namespace rcoll::torch_backend {

class ProcessGroupRcoll final : public c10d::ProcessGroup {
 public:
  using Timeout = std::chrono::milliseconds;

  static c10::intrusive_ptr<ProcessGroupRcoll> create_world(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                                            int size, Timeout timeout);
  // A group of `world_ranks` (ranks of this group), made by its members
  // alone; `store` is the group's own (torch's prefix store for it).
  c10::intrusive_ptr<ProcessGroupRcoll> create_group(const c10::intrusive_ptr<c10d::Store>& store,
                                                     const std::vector<int64_t>& world_ranks, Timeout timeout);

  ProcessGroupRcoll(std::shared_ptr<Driver> driver, Comm comm, Timeout timeout);
  // Waits for the family's outstanding calls, then destroys the communicator.
  ~ProcessGroupRcoll() override;

  const std::string getBackendName() const override { return "rcoll"; }
  std::string transport() const { return comm_.transport_name(); }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_split_sizes,
                                               std::vector<int64_t>& input_split_sizes,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

 private:
  // How the errors of call `name` start: "rank R: rcoll name".
  Call named(const char* name) const { return {getRank(), name}; }
  // The call's timeout: torch's when it gives one, else the group's.
  CallOptions call_options(Timeout requested) const;
  // Issues `start` as a work of `type` (work.hpp for the rest).
  c10::intrusive_ptr<c10d::Work> issue(c10d::OpType type, std::vector<at::Tensor> outputs, std::vector<at::Tensor> keep,
                                       std::function<void()> finish, const std::function<Request()>& start);

  std::shared_ptr<Driver> driver_;
  ScratchPool scratch_;
  Comm comm_;
  Timeout timeout_;
};

}  // namespace rcoll::torch_backend
