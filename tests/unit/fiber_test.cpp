// Fibers (common/fiber.hpp): switching, interleaving, exceptions, stacks.
#include <gtest/gtest.h>

#include <cfenv>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/fiber.hpp"
#include "common/fiber_stack.hpp"

namespace rcoll::fiber {
namespace {

TEST(Fiber, RunsItsBodyToTheEndWhenItNeverYields) {
  int runs = 0;
  Fiber fiber([&] { ++runs; });
  EXPECT_FALSE(fiber.started());
  EXPECT_TRUE(fiber.resume());
  EXPECT_TRUE(fiber.finished());
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(fiber.resume()) << "resuming an ended fiber only says so";
  EXPECT_EQ(runs, 1);
}

TEST(Fiber, YieldHandsTheThreadBackAndResumeContinuesWhereItLeftOff) {
  std::vector<int> trace;
  Fiber fiber([&] {
    for (int i = 0; i < 3; ++i) {
      trace.push_back(i);
      Fiber::yield();
    }
    trace.push_back(99);
  });
  for (int step = 0; step < 3; ++step) {
    EXPECT_FALSE(fiber.resume());
    trace.push_back(-step);
  }
  EXPECT_TRUE(fiber.resume());
  EXPECT_EQ(trace, (std::vector<int>{0, 0, 1, -1, 2, -2, 99}));
}

TEST(Fiber, CurrentIsTheRunningFiberAndNullOutsideEveryFiber) {
  EXPECT_EQ(Fiber::current(), nullptr);
  Fiber* seen = nullptr;
  Fiber fiber([&] {
    seen = Fiber::current();
    Fiber::yield();
    EXPECT_EQ(Fiber::current(), seen);
  });
  fiber.resume();
  EXPECT_EQ(seen, &fiber);
  EXPECT_EQ(Fiber::current(), nullptr);
  fiber.resume();
  EXPECT_EQ(Fiber::current(), nullptr);
}

// Locals on each fiber's stack survive the others' running.
TEST(Fiber, ManyFibersInterleaveOnOneThread) {
  constexpr int fibers = 64, rounds = 20;
  std::vector<long> sums(fibers, 0);
  std::vector<std::unique_ptr<Fiber>> all;
  for (int f = 0; f < fibers; ++f) {
    all.push_back(std::make_unique<Fiber>([&sums, f] {
      long local = 0;
      for (int r = 0; r < rounds; ++r) {
        local += f * 1000 + r;
        Fiber::yield();
      }
      sums[f] = local;
    }));
  }
  int finished = 0;
  while (finished < fibers) {
    finished = 0;
    for (auto& fiber : all) finished += fiber->resume() ? 1 : 0;
  }
  for (int f = 0; f < fibers; ++f) EXPECT_EQ(sums[f], f * 1000L * rounds + rounds * (rounds - 1) / 2) << f;
}

TEST(Fiber, AnExceptionThatLeavesTheBodyIsRethrownToTheResumer) {
  Fiber fiber([] {
    Fiber::yield();
    throw std::runtime_error("from the fiber");
  });
  EXPECT_FALSE(fiber.resume());
  EXPECT_NO_THROW(fiber.rethrow_if_failed());
  EXPECT_TRUE(fiber.resume());
  EXPECT_THROW(
      {
        try {
          fiber.rethrow_if_failed();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "from the fiber");
          throw;
        }
      },
      std::runtime_error);
}

// A fiber suspended inside a catch handler keeps its exception while
// another fiber throws and catches, and can rethrow it afterwards.
TEST(Fiber, AFiberThatYieldsInsideACatchHandlerKeepsItsException) {
  std::string first_rethrown, second_caught;
  Fiber first([&] {
    try {
      throw std::runtime_error("first");
    } catch (const std::exception&) {
      Fiber::yield();
      try {
        throw;  // the exception being handled: still "first"
      } catch (const std::exception& again) {
        first_rethrown = again.what();
      }
    }
  });
  Fiber second([&] {
    try {
      throw std::logic_error("second");
    } catch (const std::exception& e) {
      second_caught = e.what();
      Fiber::yield();
    }
  });
  EXPECT_FALSE(first.resume());
  EXPECT_FALSE(second.resume());
  EXPECT_EQ(std::current_exception(), nullptr) << "the resumer handles no exception";
  EXPECT_TRUE(first.resume());
  EXPECT_TRUE(second.resume());
  first.rethrow_if_failed();
  second.rethrow_if_failed();
  EXPECT_EQ(first_rethrown, "first");
  EXPECT_EQ(second_caught, "second");
}

TEST(Fiber, AFiberMayRunAnotherFiber) {
  std::vector<std::string> trace;
  Fiber inner([&] {
    trace.push_back("inner 1");
    Fiber::yield();
    trace.push_back("inner 2");
  });
  Fiber outer([&] {
    trace.push_back("outer 1");
    inner.resume();
    EXPECT_EQ(Fiber::current(), &outer) << "back on the outer fiber after the inner one yielded";
    Fiber::yield();
    inner.resume();
    trace.push_back("outer 2");
  });
  EXPECT_FALSE(outer.resume());
  EXPECT_TRUE(outer.resume());
  EXPECT_TRUE(inner.finished());
  EXPECT_EQ(trace, (std::vector<std::string>{"outer 1", "inner 1", "inner 2", "outer 2"}));
}

// The rounding mode (MXCSR, x87 control word) is the System V ABI's
// callee-saved state: each side of a switch keeps its own.
TEST(Fiber, EachSideKeepsItsFloatingPointRoundingMode) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  int inside = -1;
  Fiber fiber([&] {
    std::fesetround(FE_UPWARD);
    Fiber::yield();
    inside = std::fegetround();
  });
  fiber.resume();
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  fiber.resume();
  EXPECT_EQ(inside, FE_UPWARD);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

// A deep frame chain within the stack size works; its pages are touched.
int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(depth);
  return depth == 0 ? frame[0] : recurse(depth - 1) + 1 + (frame[0] - static_cast<char>(depth));
}

TEST(Fiber, DeepFrameChainsFitItsStack) {
  int result = 0;
  Fiber fiber([&] { result = recurse(100); }, std::size_t{256} << 10);
  fiber.resume();
  fiber.rethrow_if_failed();
  EXPECT_EQ(result, 100);
}

TEST(Fiber, ThousandsOfShortFibersReuseTheirStacks) {
  long total = 0;
  for (int i = 0; i < 10000; ++i) {
    Fiber fiber([&total, i] {
      total += i;
      Fiber::yield();
    });
    fiber.resume();
    fiber.resume();
    ASSERT_TRUE(fiber.finished());
  }
  EXPECT_EQ(total, 10000L * 9999 / 2);
}

TEST(FiberStack, IsPageRoundedWithAnInaccessibleGuardBelow) {
  FiberStack stack(100000);
  EXPECT_GE(stack.size(), 100000u);
  EXPECT_EQ(stack.size() % 4096, 0u);
  EXPECT_EQ(stack.top(), stack.bottom() + stack.size());
  stack.bottom()[0] = std::byte{1};  // usable from its bottom
  stack.top()[-1] = std::byte{2};
  FiberStack moved(std::move(stack));
  EXPECT_EQ(stack.bottom(), nullptr);
  EXPECT_EQ(moved.top()[-1], std::byte{2});
}

// Recurses far past any fiber stack; the bound only keeps the compiler
// from calling it infinite.
int overflow(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return depth > (1 << 30) ? frame[0] : overflow(depth + 1) + frame[0];
}

// An overflow faults on the guard page instead of writing past the stack.
TEST(FiberDeathTest, AnOverflowFaultsOnTheGuardPage) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reports the overflow itself, as a sanitizer report the run counts";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Fiber fiber([] { overflow(0); }, std::size_t{64} << 10);
        fiber.resume();
      },
      "");
}

}  // namespace
}  // namespace rcoll::fiber
