#include "tensors.hpp"

#include <c10/util/Exception.h>

#include <algorithm>
#include <string>

namespace rcoll::torch_backend {

std::ostream& operator<<(std::ostream& out, const Call& call) {
  return out << "rank " << call.rank << ": rcoll " << call.name;
}

void check_tensor(const at::Tensor& tensor, const Call& call) {
  TORCH_CHECK(tensor.device().is_cpu(), call, ": the tensor is on ", tensor.device().str(),
              "; the rcoll backend takes CPU tensors (use nccl or gloo for others)");
  TORCH_CHECK(tensor.layout() == at::kStrided, call,
              ": sparse tensors are not supported; pass a dense tensor (tensor.to_dense())");
}

const at::Tensor& single_tensor(const std::vector<at::Tensor>& tensors, const Call& call) {
  TORCH_CHECK(tensors.size() == 1, call, ": expected one tensor, got ", tensors.size(),
              " (the rcoll backend has one CPU device per rank)");
  check_tensor(tensors[0], call);
  return tensors[0];
}

void check_list(const std::vector<at::Tensor>& tensors, std::size_t count, const at::Tensor& like, const Call& call) {
  TORCH_CHECK(tensors.size() == count, call, ": expected a list of ", count, " tensors, got ", tensors.size());
  for (const at::Tensor& t : tensors) {
    check_tensor(t, call);
    TORCH_CHECK(t.scalar_type() == like.scalar_type(), call, ": a tensor of the list is ", t.scalar_type(),
                ", the input is ", like.scalar_type());
    TORCH_CHECK(t.numel() == like.numel(), call, ": a tensor of the list has ", t.numel(), " elements, the input ",
                like.numel());
  }
}

namespace {

DataType element_type(at::ScalarType type, const Call& call) {
  switch (type) {
    case at::kChar:
      return DataType::int8;
    case at::kByte:
    case at::kBool:
      return DataType::uint8;
    case at::kInt:
      return DataType::int32;
    case at::kLong:
      return DataType::int64;
    case at::kHalf:
      return DataType::float16;
    case at::kBFloat16:
      return DataType::bfloat16;
    case at::kFloat:
      return DataType::float32;
    case at::kDouble:
      return DataType::float64;
    default:
      break;
  }
  TORCH_CHECK(false, call, ": cannot reduce ", type,
              " tensors (rcoll reduces int8, uint8, int32, int64, float16, bfloat16, float32, float64 and bool)");
}

}  // namespace

Reduction reduction_of(at::ScalarType type, const c10d::ReduceOp& op, const Call& call) {
  const DataType element = element_type(type, call);
  const bool logical = type == at::kBool;
  switch (static_cast<c10d::ReduceOp::RedOpType>(op)) {
    case c10d::ReduceOp::SUM:
      return {element, logical ? ReduceOp::max : ReduceOp::sum};
    case c10d::ReduceOp::PRODUCT:
      return {element, logical ? ReduceOp::min : ReduceOp::prod};
    case c10d::ReduceOp::MIN:
      return {element, ReduceOp::min};
    case c10d::ReduceOp::MAX:
      return {element, ReduceOp::max};
    default:
      break;
  }
  TORCH_CHECK(false, call, ": ReduceOp ", static_cast<int>(static_cast<c10d::ReduceOp::RedOpType>(op)),
              " is not supported; rcoll has SUM, PRODUCT, MIN and MAX (for AVG, divide a SUM)");
}

std::size_t byte_count(const at::Tensor& tensor) {
  return static_cast<std::size_t>(tensor.numel()) * tensor.element_size();
}

Staged::Staged(at::Tensor tensor) : user_(std::move(tensor)) {
  buffer_ = user_.is_contiguous() ? user_ : user_.contiguous();
}

void Staged::copy_back() {
  if (!buffer_.is_same(user_)) user_.copy_(buffer_);
}

at::Tensor ScratchPool::take(int64_t elements, at::ScalarType type) {
  const int64_t bytes = elements * static_cast<int64_t>(c10::elementSize(type));
  std::lock_guard lock(mutex_);
  for (const at::Tensor& buffer : buffers_)
    if (buffer.storage().use_count() == 1 && buffer.numel() >= bytes)  // only the pool holds it
      return buffer.narrow(0, 0, bytes).view(type);
  at::Tensor buffer = at::empty({std::max<int64_t>(bytes, 1)}, at::TensorOptions().dtype(at::kByte));
  if (buffers_.size() < kept) buffers_.push_back(buffer);
  return buffer.narrow(0, 0, bytes).view(type);
}

at::Tensor flatten(ScratchPool& pool, const std::vector<at::Tensor>& tensors) {
  int64_t total = 0;
  for (const at::Tensor& t : tensors) total += t.numel();
  at::Tensor flat = pool.take(total, tensors.at(0).scalar_type());
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    flat.narrow(0, offset, t.numel()).view(t.sizes()).copy_(t);
    offset += t.numel();
  }
  return flat;
}

void unflatten(const at::Tensor& flat, std::vector<at::Tensor>& tensors) {
  int64_t offset = 0;
  for (at::Tensor& t : tensors) {
    t.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
}

}  // namespace rcoll::torch_backend
