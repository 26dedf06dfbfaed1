// The machine half of fibers (fiber.hpp): saving one point of execution
// and continuing at another. On x86-64 a hand-written switch saves the
// callee-saved registers and the floating-point control words on the stack
// it leaves, about a dozen instructions; glibc's swapcontext, the fallback
// on other machines, also saves and restores the signal mask with a system
// call on every switch, which would cost a collective call microseconds.
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace rcoll::fiber::detail {

struct MachineContext {
#if defined(__x86_64__)
  void* stack_pointer = nullptr;  // where the saved registers are
#else
  ucontext_t context{};
#endif
};

// Makes `context` start `entry(arg)` on the stack [bottom, bottom + size)
// at the first jump to it. `entry` must never return: it ends by jumping
// away for good.
void prepare(MachineContext& context, std::byte* bottom, std::size_t size, void (*entry)(void*), void* arg);

// Saves the current point of execution in `from` and continues at `to`.
// Returns when something jumps back to `from`.
void jump(MachineContext& from, MachineContext& to);

}  // namespace rcoll::fiber::detail
