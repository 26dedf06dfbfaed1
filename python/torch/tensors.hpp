// Tensors as rcoll buffers: which tensors the backend takes, how their
// dtypes and reduce ops map to rcoll's, and the contiguous stand-ins it
// uses for tensors that are not contiguous or come as lists.
#pragma once

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <vector>

#include "rcoll/types.hpp"

namespace rcoll::torch_backend {

// A call of the backend as its errors name it: "rank 3: rcoll allreduce".
struct Call {
  int rank;
  const char* name;
};
std::ostream& operator<<(std::ostream& out, const Call& call);

// Refuses (c10::Error, a RuntimeError in Python, naming the rank and call) what
// rcoll cannot carry: tensors not on the CPU, sparse ones.
void check_tensor(const at::Tensor& tensor, const Call& call);
// The one tensor of a call that takes a list of one (torch's multi-device form).
const at::Tensor& single_tensor(const std::vector<at::Tensor>& tensors, const Call& call);
// A list of `count` tensors of one dtype and shape, e.g. allgather's outputs.
void check_list(const std::vector<at::Tensor>& tensors, std::size_t count, const at::Tensor& like, const Call& call);

// The rcoll element type and op for reducing `type` with `op`. bool
// reduces as uint8: sum and max are "or", product and min are "and".
struct Reduction {
  DataType type;
  ReduceOp op;
};
Reduction reduction_of(at::ScalarType type, const c10d::ReduceOp& op, const Call& call);

// Calls that only move data move bytes: every dtype goes.
std::size_t byte_count(const at::Tensor& tensor);

// A contiguous tensor with `tensor`'s data: itself when it is contiguous,
// else a copy; copy_back() puts a result there into `tensor`.
class Staged {
 public:
  explicit Staged(at::Tensor tensor);
  at::Tensor& buffer() { return buffer_; }
  void copy_back();

 private:
  at::Tensor user_;
  at::Tensor buffer_;
};

// Flat staging buffers, reused from call to call: a fresh buffer of many
// MiB costs its page faults on every call, more than the copy through it.
// A buffer is free again once no call holds a view of it.
class ScratchPool {
 public:
  // An uninitialised contiguous 1-D tensor of `elements` x `type`.
  at::Tensor take(int64_t elements, at::ScalarType type);

 private:
  static constexpr std::size_t kept = 4;  // buffers kept for reuse; more are allocated and dropped
  std::mutex mutex_;
  std::vector<at::Tensor> buffers_;  // bytes
};

// One contiguous buffer holding the tensors one after the other, and back.
at::Tensor flatten(ScratchPool& pool, const std::vector<at::Tensor>& tensors);
void unflatten(const at::Tensor& flat, std::vector<at::Tensor>& tensors);

}  // namespace rcoll::torch_backend
