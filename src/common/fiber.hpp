// Fibers: functions that run on stacks of their own and hand the thread
// back and forth with the code that resumes them, without the kernel. They
// are how a collective becomes non-blocking while its schedule stays plain
// blocking code: the schedule runs on a fiber, and where it would wait, the
// fiber yields to whoever drives progress (docs/THREADING.md).
//
// Contract:
// - A fiber runs only on the thread that created it, and only between a
//   resume() and the next yield() or the end of its body. Fibers never
//   move between threads (a thread-local address cached on a fiber's stack
//   would then point at another thread's variable).
// - resume() runs the fiber until it yields or its body returns or throws;
//   it returns true once the body is over. An exception that leaves the
//   body is kept and rethrown by rethrow_if_failed(), never propagated
//   through the switch.
// - yield() may only be called on a fiber (current() != nullptr).
// - Each fiber keeps its own C++ exception-handling state (the exceptions
//   being handled), so a fiber may yield inside a catch handler while
//   another fiber throws and catches.
// - Destroying a fiber that has started and not finished is a programming
//   error (its stack frames would never unwind): std::terminate. Finish it
//   first (a body that is asked to stop throws, e.g. a cancelled wait).
// - Stacks are `stack_bytes` of address space with an inaccessible guard
//   page below; only the pages a fiber touches cost memory. Freed stacks are
//   kept per thread for the next fiber (a mapping costs system calls).
// - Under AddressSanitizer and ThreadSanitizer every switch is announced to
//   the sanitizer, as both require.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>

namespace rcoll::fiber {

// Address space per stack: plenty for a schedule and the logging it calls;
// sanitizer builds get more (AddressSanitizer's frames are larger).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::size_t default_stack_bytes = std::size_t{1} << 20;
#else
inline constexpr std::size_t default_stack_bytes = std::size_t{256} << 10;
#endif

class Fiber {
 public:
  explicit Fiber(std::function<void()> body, std::size_t stack_bytes = default_stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber until it yields or its body ends. True once it has
  // ended (returned or thrown). Calling it on an ended fiber returns true.
  bool resume();
  bool finished() const noexcept { return state_ == State::finished; }
  bool started() const noexcept { return state_ != State::created; }
  // Rethrows what the body threw, if it threw.
  void rethrow_if_failed() const;

  // The fiber running on this thread, or nullptr outside every fiber.
  static Fiber* current() noexcept;
  // Back to the resume() that runs the current fiber. Only on a fiber.
  static void yield();

 private:
  enum class State : unsigned char { created, running, suspended, finished };
  struct Impl;
  friend void run_fiber_body(Fiber& fiber) noexcept;

  void switch_in();
  void switch_out();

  std::function<void()> body_;
  std::exception_ptr failure_;
  State state_ = State::created;
  Impl* impl_;  // stack, saved contexts, sanitizer handles, exception state
};

}  // namespace rcoll::fiber
