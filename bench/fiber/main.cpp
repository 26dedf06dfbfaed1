// rcoll-fiber-bench: what a fiber switch costs (common/fiber.hpp), beside
// glibc's swapcontext in the same run. One round is a resume() into a
// fiber and its yield() back: two switches. Prints the median over
// repetitions of the time per round, in nanoseconds.
//
//   build/bench/rcoll-fiber-bench [--rounds N] [--reps R]
#include <ucontext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/fiber.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double fiber_round_ns(long rounds) {
  rcoll::fiber::Fiber fiber([rounds] {
    for (long i = 0; i < rounds; ++i) rcoll::fiber::Fiber::yield();
  });
  const auto start = Clock::now();
  while (!fiber.resume()) {
  }
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(rounds);
}

// The same ping-pong with getcontext/makecontext/swapcontext.
ucontext_t caller_context, callee_context;
long callee_rounds = 0;
void callee() {
  for (long i = 0; i < callee_rounds; ++i) ::swapcontext(&callee_context, &caller_context);
}

double ucontext_round_ns(long rounds) {
  std::vector<char> stack(256 << 10);
  ::getcontext(&callee_context);
  callee_context.uc_stack.ss_sp = stack.data();
  callee_context.uc_stack.ss_size = stack.size();
  callee_context.uc_link = &caller_context;
  callee_rounds = rounds;
  ::makecontext(&callee_context, &callee, 0);
  const auto start = Clock::now();
  for (long i = 0; i <= rounds; ++i) ::swapcontext(&caller_context, &callee_context);
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(rounds);
}

}  // namespace

int main(int argc, char** argv) {
  long rounds = 1000000;
  int reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(1L, std::atol(argv[i + 1]));
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(1, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: rcoll-fiber-bench [--rounds N] [--reps R]\n");
      return 2;
    }
  }
  std::vector<double> fiber, ucontext;
  for (int r = 0; r < reps; ++r) {  // alternated, so that both see the same machine
    fiber.push_back(fiber_round_ns(rounds));
    ucontext.push_back(ucontext_round_ns(rounds));
  }
  std::printf("# resume + yield (two switches), median of %d repetitions of %ld rounds\n", reps, rounds);
  std::printf("rcoll fiber   %8.1f ns\n", median(fiber));
  std::printf("swapcontext   %8.1f ns\n", median(ucontext));
  return 0;
}
