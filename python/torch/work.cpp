#include "work.hpp"

#include <ATen/core/jit_type.h>

#include <utility>

namespace rcoll::torch_backend {

RcollWork::RcollWork(int rank, c10d::OpType type, std::vector<at::Tensor> outputs, std::vector<at::Tensor> keep,
                     std::function<void()> finish)
    : c10d::Work(rank, type),
      outputs_(std::move(outputs)),
      keep_(std::move(keep)),
      finish_(std::move(finish)),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

void RcollWork::complete(std::exception_ptr error) noexcept {
  if (!error && finish_) {
    try {
      finish_();
    } catch (...) {
      error = std::current_exception();
    }
  }
  keep_.clear();
  finish_ = nullptr;  // what it captured (staging buffers) is free for the next call
  finish(error);  // c10d::Work: wait() and isCompleted() see it
  if (error)
    future_->setError(error);
  else
    future_->markCompleted(c10::IValue(outputs_));
}

}  // namespace rcoll::torch_backend
