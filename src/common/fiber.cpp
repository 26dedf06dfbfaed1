#include "common/fiber.hpp"

#include <cxxabi.h>

#include <utility>

#include "common/fiber_stack.hpp"
#include "common/fiber_switch.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace rcoll::fiber {
namespace {

thread_local Fiber* running = nullptr;

// The Itanium C++ ABI's per-thread exception-handling state: the stack of
// exceptions being handled and the count of those thrown and not yet
// caught. A fiber that yields inside a catch handler leaves its exception
// on that stack; another fiber's throw and catch would push and pop over
// it. So each fiber keeps its own, swapped with the thread's at every
// switch.
struct ExceptionState {
  void* caught = nullptr;
  unsigned int uncaught = 0;
};

void swap_exception_state(ExceptionState& saved) noexcept {
  auto* thread_state = reinterpret_cast<ExceptionState*>(abi::__cxa_get_globals());
  std::swap(*thread_state, saved);
}

}  // namespace

struct Fiber::Impl {
  explicit Impl(std::size_t stack_bytes) : stack(stack_bytes) {}

  FiberStack stack;
  detail::MachineContext own;      // the fiber, while suspended
  detail::MachineContext resumer;  // the resume() that runs it
  ExceptionState exceptions;       // the side not running: the fiber's, or its resumer's while it runs
  Fiber* outer = nullptr;          // the fiber that called resume(), if any
#if defined(__SANITIZE_ADDRESS__)
  void* fake_stack = nullptr;  // the fiber's, kept while it is suspended
  const void* resumer_bottom = nullptr;
  std::size_t resumer_size = 0;
#endif
#if defined(__SANITIZE_THREAD__)
  void* tsan_fiber = nullptr;
  void* tsan_resumer = nullptr;
#endif
};

// The fiber's first frame: runs the body, keeps what it throws, and jumps
// back to its resumer for the last time.
void run_fiber_body(Fiber& fiber) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(nullptr, &fiber.impl_->resumer_bottom, &fiber.impl_->resumer_size);
#endif
  try {
    fiber.body_();
  } catch (...) {
    fiber.failure_ = std::current_exception();
  }
  fiber.state_ = Fiber::State::finished;
  fiber.body_ = nullptr;  // what the body captured goes now, on the fiber
  // Never returns. Not marked so: before a call that cannot return, ASan
  // unpoisons "the rest of the stack", which on a fiber it takes for the
  // thread's (its first frame runs before the switch is announced).
  fiber.switch_out();
}

namespace {
void fiber_entry(void* fiber) { run_fiber_body(*static_cast<Fiber*>(fiber)); }
}  // namespace

Fiber::Fiber(std::function<void()> body, std::size_t stack_bytes)
    : body_(std::move(body)), impl_(new Impl(stack_bytes)) {
#if defined(__SANITIZE_ADDRESS__)
  // A pooled stack keeps the poisoned redzones of the frames its last
  // fiber never returned from.
  ASAN_UNPOISON_MEMORY_REGION(impl_->stack.bottom(), impl_->stack.size());
#endif
  detail::prepare(impl_->own, impl_->stack.bottom(), impl_->stack.size(), &fiber_entry, this);
#if defined(__SANITIZE_THREAD__)
  impl_->tsan_fiber = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
  if (state_ == State::running || state_ == State::suspended) std::terminate();  // frames that never unwound
#if defined(__SANITIZE_THREAD__)
  __tsan_destroy_fiber(impl_->tsan_fiber);
#endif
  delete impl_;
}

bool Fiber::resume() {
  if (state_ == State::finished) return true;
  switch_in();
  return state_ == State::finished;
}

void Fiber::rethrow_if_failed() const {
  if (failure_) std::rethrow_exception(failure_);
}

Fiber* Fiber::current() noexcept { return running; }

void Fiber::yield() {
  Fiber* self = running;
  self->state_ = State::suspended;
  self->switch_out();
  // resumed: switch_in() set the state and `running`
}

// From the resumer into the fiber; returns when the fiber switches out.
void Fiber::switch_in() {
  impl_->outer = std::exchange(running, this);
  state_ = State::running;
  swap_exception_state(impl_->exceptions);
#if defined(__SANITIZE_ADDRESS__)
  void* resumer_fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&resumer_fake_stack, impl_->stack.bottom(), impl_->stack.size());
#endif
#if defined(__SANITIZE_THREAD__)
  impl_->tsan_resumer = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(impl_->tsan_fiber, 0);
#endif
  detail::jump(impl_->resumer, impl_->own);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(resumer_fake_stack, nullptr, nullptr);
#endif
  swap_exception_state(impl_->exceptions);
  running = impl_->outer;
}

// From the fiber back to its resumer; returns when it is resumed again
// (never once it has finished).
void Fiber::switch_out() {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(state_ == State::finished ? nullptr : &impl_->fake_stack, impl_->resumer_bottom,
                                 impl_->resumer_size);
#endif
#if defined(__SANITIZE_THREAD__)
  __tsan_switch_to_fiber(impl_->tsan_resumer, 0);
#endif
  detail::jump(impl_->own, impl_->resumer);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(impl_->fake_stack, &impl_->resumer_bottom, &impl_->resumer_size);
#endif
}

}  // namespace rcoll::fiber
