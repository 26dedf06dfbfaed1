// What each call of the rcoll process group returns: a c10d::Work over one
// rcoll Request. The Driver (driver.hpp) completes it on its thread when
// the request is done; wait(), isCompleted() and the future (DDP's
// getFuture().then(...)) all follow that completion.
#pragma once

#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <exception>
#include <functional>
#include <vector>

#include "rcoll/request.hpp"

namespace rcoll::torch_backend {

class RcollWork final : public c10d::Work {
 public:
  // `outputs`: the future's value (the tensors the call wrote). `keep`:
  // what the call reads or writes until it is done (stand-ins, flat
  // buffers). `finish`: run once the data is there, before completion
  // (copies from the stand-ins into the caller's tensors); may be empty.
  RcollWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs, std::vector<at::Tensor> keep,
            std::function<void()> finish);

  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  std::vector<at::Tensor> result() override { return outputs_; }

  // The Driver's side.
  rcoll::Request& request() { return request_; }
  // Runs `finish` (after a success), then completes the work and its
  // future with `error` or the outputs. Called once.
  void complete(std::exception_ptr error) noexcept;

 private:
  std::vector<at::Tensor> outputs_;
  std::vector<at::Tensor> keep_;
  std::function<void()> finish_;
  rcoll::Request request_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

}  // namespace rcoll::torch_backend
