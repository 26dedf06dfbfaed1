// The calls of the rcoll process group: each checks its tensors, stages
// what is not one contiguous buffer, and issues one rcoll i-call
// (process_group.hpp).
#include <cstddef>
#include <memory>
#include <numeric>
#include <vector>

#include "process_group.hpp"
#include "rcoll/comm.hpp"
#include "tensors.hpp"

namespace rcoll::torch_backend {
namespace {

using Work = c10::intrusive_ptr<c10d::Work>;
using c10d::OpType;

std::shared_ptr<Staged> stage(const at::Tensor& tensor) { return std::make_shared<Staged>(tensor); }

// Per-peer byte counts of alltoall_base: torch's split sizes count rows
// (dim 0); none means equal parts.
std::vector<std::size_t> split_bytes(const at::Tensor& tensor, const std::vector<int64_t>& splits, int size,
                                     const char* which, const Call& call) {
  const int64_t rows = tensor.dim() == 0 ? 1 : tensor.size(0);
  const std::size_t row_bytes = rows == 0 ? 0 : byte_count(tensor) / static_cast<std::size_t>(rows);
  std::vector<std::size_t> bytes(static_cast<std::size_t>(size));
  if (splits.empty()) {
    TORCH_CHECK(rows % size == 0, call, ": the ", which, " tensor's ", rows, " rows do not split evenly over ", size,
                " ranks; pass split sizes");
    for (auto& b : bytes) b = static_cast<std::size_t>(rows / size) * row_bytes;
    return bytes;
  }
  TORCH_CHECK(splits.size() == static_cast<std::size_t>(size), call, ": ", splits.size(), " ", which,
              " split sizes for ", size, " ranks");
  TORCH_CHECK(std::accumulate(splits.begin(), splits.end(), int64_t{0}) == rows, call, ": the ", which,
              " split sizes do not add up to the tensor's ", rows, " rows");
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::size_t>(splits[i]) * row_bytes;
  return bytes;
}

std::vector<std::size_t> offsets(const std::vector<std::size_t>& counts) {
  std::vector<std::size_t> displs(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
  return displs;
}

}  // namespace

Work ProcessGroupRcoll::broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) {
  auto staged = stage(single_tensor(tensors, named("broadcast")));
  at::Tensor buffer = staged->buffer();
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::BROADCAST, tensors, {buffer}, [staged] { staged->copy_back(); },
      [&] {
        return comm_.ibcast(buffer.data_ptr(), byte_count(buffer), DataType::uint8, static_cast<int>(opts.rootRank),
                            call);
      });
}

Work ProcessGroupRcoll::allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) {
  auto staged = stage(single_tensor(tensors, named("allreduce")));
  at::Tensor buffer = staged->buffer();
  const Reduction r = reduction_of(buffer.scalar_type(), opts.reduceOp, named("allreduce"));
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::ALLREDUCE, tensors, {buffer}, [staged] { staged->copy_back(); },
      [&] {
        return comm_.iallreduce(buffer.data_ptr(), static_cast<std::size_t>(buffer.numel()), r.type, r.op, call);
      });
}

Work ProcessGroupRcoll::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                            const c10d::AllreduceCoalescedOptions& opts) {
  TORCH_CHECK(!tensors.empty(), named("allreduce_coalesced"), ": no tensors");
  for (const at::Tensor& t : tensors) {
    check_tensor(t, named("allreduce_coalesced"));
    TORCH_CHECK(t.scalar_type() == tensors[0].scalar_type(), named("allreduce_coalesced"), ": mixed dtypes ",
                t.scalar_type(), " and ", tensors[0].scalar_type());
  }
  at::Tensor flat = flatten(scratch_, tensors);
  const Reduction r = reduction_of(flat.scalar_type(), opts.reduceOp, named("allreduce_coalesced"));
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::ALLREDUCE_COALESCED, tensors, {flat}, [flat, tensors]() mutable { unflatten(flat, tensors); },
      [&] { return comm_.iallreduce(flat.data_ptr(), static_cast<std::size_t>(flat.numel()), r.type, r.op, call); });
}

Work ProcessGroupRcoll::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  auto staged = stage(single_tensor(tensors, named("reduce")));
  at::Tensor buffer = staged->buffer();
  const Reduction r = reduction_of(buffer.scalar_type(), opts.reduceOp, named("reduce"));
  const int root = static_cast<int>(opts.rootRank);
  const bool at_root = root == getRank();
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::REDUCE, tensors, {buffer},
      [staged, at_root] {
        if (at_root) staged->copy_back();
      },
      [&] {
        const auto count = static_cast<std::size_t>(buffer.numel());
        if (at_root) return comm_.ireduce(in_place, buffer.data_ptr(), count, r.type, r.op, root, call);
        return comm_.ireduce(buffer.data_ptr(), nullptr, count, r.type, r.op, root, call);
      });
}

Work ProcessGroupRcoll::allgather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                                  const c10d::AllgatherOptions& opts) {
  at::Tensor input = single_tensor(inputs, named("allgather")).contiguous();
  TORCH_CHECK(outputs.size() == 1, named("allgather"), ": expected one list of outputs, got ", outputs.size());
  std::vector<at::Tensor> out = outputs[0];
  check_list(out, static_cast<std::size_t>(getSize()), input, named("allgather"));
  at::Tensor flat = scratch_.take(getSize() * input.numel(), input.scalar_type());
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::ALLGATHER, out, {input, flat}, [flat, out]() mutable { unflatten(flat, out); },
      [&] { return comm_.iallgather(input.data_ptr(), flat.data_ptr(), byte_count(input), DataType::uint8, call); });
}

Work ProcessGroupRcoll::_allgather_base(at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& opts) {
  check_tensor(input, named("_allgather_base"));
  check_tensor(output, named("_allgather_base"));
  TORCH_CHECK(output.numel() == getSize() * input.numel() && output.scalar_type() == input.scalar_type(),
              named("_allgather_base"), ": the output must hold ", getSize(), " x ", input.numel(), " ",
              input.scalar_type(), " elements");
  at::Tensor in = input.contiguous();
  auto staged = stage(output);
  at::Tensor buffer = staged->buffer();
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::_ALLGATHER_BASE, {output}, {in, buffer}, [staged] { staged->copy_back(); },
      [&] { return comm_.iallgather(in.data_ptr(), buffer.data_ptr(), byte_count(in), DataType::uint8, call); });
}

Work ProcessGroupRcoll::gather(std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
                               const c10d::GatherOptions& opts) {
  at::Tensor input = single_tensor(inputs, named("gather")).contiguous();
  const int root = static_cast<int>(opts.rootRank);
  const bool at_root = root == getRank();
  std::vector<at::Tensor> out;
  at::Tensor flat;
  if (at_root) {
    TORCH_CHECK(outputs.size() == 1, named("gather"), ": expected one list of outputs at the root, got ",
                outputs.size());
    out = outputs[0];
    check_list(out, static_cast<std::size_t>(getSize()), input, named("gather"));
    flat = scratch_.take(getSize() * input.numel(), input.scalar_type());
  }
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::GATHER, out, {input, flat},
      [flat, out, at_root]() mutable {
        if (at_root) unflatten(flat, out);
      },
      [&] {
        return comm_.igather(input.data_ptr(), at_root ? flat.data_ptr() : nullptr, byte_count(input), DataType::uint8,
                             root, call);
      });
}

Work ProcessGroupRcoll::scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                const c10d::ScatterOptions& opts) {
  auto staged = stage(single_tensor(outputs, named("scatter")));
  at::Tensor buffer = staged->buffer();
  const int root = static_cast<int>(opts.rootRank);
  const bool at_root = root == getRank();
  at::Tensor flat;
  if (at_root) {
    TORCH_CHECK(inputs.size() == 1, named("scatter"), ": expected one list of inputs at the root, got ", inputs.size());
    check_list(inputs[0], static_cast<std::size_t>(getSize()), buffer, named("scatter"));
    flat = flatten(scratch_, inputs[0]);
  }
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::SCATTER, outputs, {buffer, flat}, [staged] { staged->copy_back(); },
      [&] {
        return comm_.iscatter(at_root ? flat.data_ptr() : nullptr, buffer.data_ptr(), byte_count(buffer),
                              DataType::uint8, root, call);
      });
}

Work ProcessGroupRcoll::reduce_scatter(std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
                                       const c10d::ReduceScatterOptions& opts) {
  auto staged = stage(single_tensor(outputs, named("reduce_scatter")));
  at::Tensor buffer = staged->buffer();
  TORCH_CHECK(inputs.size() == 1, named("reduce_scatter"), ": expected one list of inputs, got ", inputs.size());
  check_list(inputs[0], static_cast<std::size_t>(getSize()), buffer, named("reduce_scatter"));
  at::Tensor flat = flatten(scratch_, inputs[0]);
  const Reduction r = reduction_of(buffer.scalar_type(), opts.reduceOp, named("reduce_scatter"));
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::REDUCE_SCATTER, outputs, {buffer, flat}, [staged] { staged->copy_back(); },
      [&] {
        return comm_.ireduce_scatter(flat.data_ptr(), buffer.data_ptr(), static_cast<std::size_t>(buffer.numel()),
                                     r.type, r.op, call);
      });
}

Work ProcessGroupRcoll::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                             const c10d::ReduceScatterOptions& opts) {
  check_tensor(input, named("_reduce_scatter_base"));
  check_tensor(output, named("_reduce_scatter_base"));
  TORCH_CHECK(input.numel() == getSize() * output.numel() && output.scalar_type() == input.scalar_type(),
              named("_reduce_scatter_base"), ": the input must hold ", getSize(), " x ", output.numel(), " ",
              output.scalar_type(), " elements");
  at::Tensor in = input.contiguous();
  auto staged = stage(output);
  at::Tensor buffer = staged->buffer();
  const Reduction r = reduction_of(buffer.scalar_type(), opts.reduceOp, named("_reduce_scatter_base"));
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::_REDUCE_SCATTER_BASE, {output}, {in, buffer}, [staged] { staged->copy_back(); },
      [&] {
        return comm_.ireduce_scatter(in.data_ptr(), buffer.data_ptr(), static_cast<std::size_t>(buffer.numel()), r.type,
                                     r.op, call);
      });
}

Work ProcessGroupRcoll::alltoall_base(at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_split_sizes,
                                      std::vector<int64_t>& input_split_sizes, const c10d::AllToAllOptions& opts) {
  check_tensor(input, named("alltoall_base"));
  check_tensor(output, named("alltoall_base"));
  TORCH_CHECK(output.scalar_type() == input.scalar_type(), named("alltoall_base"), ": input ", input.scalar_type(),
              ", output ", output.scalar_type());
  at::Tensor in = input.contiguous();
  auto staged = stage(output);
  at::Tensor buffer = staged->buffer();
  const std::vector<std::size_t> send_counts =
      split_bytes(in, input_split_sizes, getSize(), "input", named("alltoall_base"));
  const std::vector<std::size_t> recv_counts =
      split_bytes(buffer, output_split_sizes, getSize(), "output", named("alltoall_base"));
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::ALLTOALL_BASE, {output}, {in, buffer}, [staged] { staged->copy_back(); },
      [&] {
        return comm_.ialltoallv(in.data_ptr(), send_counts, offsets(send_counts), buffer.data_ptr(), recv_counts,
                                offsets(recv_counts), DataType::uint8, call);
      });
}

Work ProcessGroupRcoll::alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                 const c10d::AllToAllOptions& opts) {
  const auto size = static_cast<std::size_t>(getSize());
  TORCH_CHECK(inputs.size() == size && outputs.size() == size, named("alltoall"), ": expected ", size,
              " inputs and outputs, got ", inputs.size(), " and ", outputs.size());
  std::vector<std::size_t> send_counts, recv_counts;
  for (std::size_t i = 0; i < size; ++i) {
    check_tensor(inputs[i], named("alltoall"));
    check_tensor(outputs[i], named("alltoall"));
    TORCH_CHECK(
        inputs[i].scalar_type() == inputs[0].scalar_type() && outputs[i].scalar_type() == inputs[0].scalar_type(),
        named("alltoall"), ": every tensor must have one dtype");
    send_counts.push_back(byte_count(inputs[i]));
    recv_counts.push_back(byte_count(outputs[i]));
  }
  at::Tensor flat_in = flatten(scratch_, inputs);
  std::vector<at::Tensor> out = outputs;
  int64_t received = 0;
  for (const at::Tensor& t : out) received += t.numel();
  at::Tensor flat_out = scratch_.take(received, inputs[0].scalar_type());
  const CallOptions call = call_options(opts.timeout);
  return issue(
      OpType::ALLTOALL, outputs, {flat_in, flat_out}, [flat_out, out]() mutable { unflatten(flat_out, out); },
      [&] {
        return comm_.ialltoallv(flat_in.data_ptr(), send_counts, offsets(send_counts), flat_out.data_ptr(), recv_counts,
                                offsets(recv_counts), DataType::uint8, call);
      });
}

Work ProcessGroupRcoll::send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) {
  at::Tensor buffer = single_tensor(tensors, named("send")).contiguous();
  const CallOptions call = call_options(Timeout(0));
  return issue(OpType::SEND, tensors, {buffer}, nullptr, [&] {
    return comm_.isend(buffer.data_ptr(), byte_count(buffer), DataType::uint8, dst_rank, tag, call);
  });
}

Work ProcessGroupRcoll::recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) {
  auto staged = stage(single_tensor(tensors, named("recv")));
  at::Tensor buffer = staged->buffer();
  const CallOptions call = call_options(Timeout(0));
  return issue(
      OpType::RECV, tensors, {buffer}, [staged] { staged->copy_back(); },
      [&] { return comm_.irecv(buffer.data_ptr(), byte_count(buffer), DataType::uint8, src_rank, tag, call); });
}

Work ProcessGroupRcoll::barrier(const c10d::BarrierOptions& opts) {
  const CallOptions call = call_options(opts.timeout);
  return issue(OpType::BARRIER, {}, {}, nullptr, [&] { return comm_.ibarrier(call); });
}

}  // namespace rcoll::torch_backend
