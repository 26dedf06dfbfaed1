#include "common/fiber_switch.hpp"

#include <cstdint>

namespace rcoll::fiber::detail {

#if defined(__x86_64__)

// rcoll_fiber_jump(void** save, void* to): pushes the callee-saved
// registers (the System V ABI's rbx, rbp, r12-r15) and the MXCSR and x87
// control words, stores the stack pointer in *save, loads `to` and pops
// the same from there. Its return address is the continuation point.
//
// rcoll_fiber_trampoline: where a prepared context starts. prepare() put
// the entry function in r12 and its argument in rbx; the stack is 16-byte
// aligned here, as a call requires. The return address is marked undefined
// so that unwinders and debuggers stop at the fiber's first frame.
asm(R"(
  .text
  .globl rcoll_fiber_jump
  .hidden rcoll_fiber_jump
  .type rcoll_fiber_jump, @function
rcoll_fiber_jump:
  .cfi_startproc
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .cfi_endproc
  .size rcoll_fiber_jump, .-rcoll_fiber_jump

  .globl rcoll_fiber_trampoline
  .hidden rcoll_fiber_trampoline
  .type rcoll_fiber_trampoline, @function
rcoll_fiber_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %rbx, %rdi
  callq *%r12
  ud2
  .cfi_endproc
  .size rcoll_fiber_trampoline, .-rcoll_fiber_trampoline
)");

extern "C" void rcoll_fiber_jump(void** save, void* to);
extern "C" void rcoll_fiber_trampoline();

void prepare(MachineContext& context, std::byte* bottom, std::size_t size, void (*entry)(void*), void* arg) {
  // The frame rcoll_fiber_jump pops, lowest address first: control words,
  // r15, r14, r13, r12 (entry), rbx (arg), rbp, return address.
  constexpr std::uint64_t default_mxcsr = 0x1F80;  // all exceptions masked, round to nearest
  constexpr std::uint64_t default_x87_control = 0x037F;
  auto top = reinterpret_cast<std::uintptr_t>(bottom + size) & ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 8;
  frame[0] = default_mxcsr | default_x87_control << 32;
  frame[1] = frame[2] = frame[3] = 0;
  frame[4] = reinterpret_cast<std::uint64_t>(entry);
  frame[5] = reinterpret_cast<std::uint64_t>(arg);
  frame[6] = 0;
  frame[7] = reinterpret_cast<std::uint64_t>(&rcoll_fiber_trampoline);
  context.stack_pointer = frame;
}

void jump(MachineContext& from, MachineContext& to) { rcoll_fiber_jump(&from.stack_pointer, to.stack_pointer); }

#else

namespace {
// makecontext passes int arguments only: the entry and its argument travel
// as halves of 64-bit values.
void start(unsigned entry_high, unsigned entry_low, unsigned arg_high, unsigned arg_low) {
  const auto join = [](unsigned high, unsigned low) { return std::uint64_t{high} << 32 | low; };
  auto entry = reinterpret_cast<void (*)(void*)>(join(entry_high, entry_low));
  entry(reinterpret_cast<void*>(join(arg_high, arg_low)));
}
}  // namespace

void prepare(MachineContext& context, std::byte* bottom, std::size_t size, void (*entry)(void*), void* arg) {
  ::getcontext(&context.context);
  context.context.uc_stack.ss_sp = bottom;
  context.context.uc_stack.ss_size = size;
  context.context.uc_link = nullptr;
  const auto e = reinterpret_cast<std::uint64_t>(entry);
  const auto a = reinterpret_cast<std::uint64_t>(arg);
  ::makecontext(&context.context, reinterpret_cast<void (*)()>(&start), 4, static_cast<unsigned>(e >> 32),
                static_cast<unsigned>(e), static_cast<unsigned>(a >> 32), static_cast<unsigned>(a));
}

void jump(MachineContext& from, MachineContext& to) { ::swapcontext(&from.context, &to.context); }

#endif

}  // namespace rcoll::fiber::detail
