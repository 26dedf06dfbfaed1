// Communicators built on a caller's store (Comm::create(options, store),
// rcoll/store.hpp) over TCP: ranks as threads sharing an InMemoryStore,
// ranks as threads and as forked processes each with its own FileStore on
// one directory; collectives and non-blocking calls checked; what went
// through the store; a rank that never joins; argument errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/run_ranks.hpp"
#include "support/scratch_directory.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

Options rank_options(int rank, int size) {
  Options options;
  options.rank = rank;
  options.size = size;
  options.transport = TransportKind::tcp;
  options.job_token = "store-test-token";
  options.timeout = 30s;
  return options;
}

// An allreduce, an allgather and an iallreduce issued before a barrier,
// each compared with its serial result; throws on a mismatch (so that a
// forked rank can report it through its exit status).
void exercise(Comm& comm) {
  const int n = comm.size(), me = comm.rank();
  std::vector<std::int64_t> values(1001);
  std::iota(values.begin(), values.end(), std::int64_t{me} * 10000);
  Request pending = comm.iallreduce(std::span<std::int64_t>(values), ReduceOp::sum);
  std::vector<int> ranks(static_cast<std::size_t>(n), -1);
  comm.allgather(&me, ranks.data(), 1, DataType::int32);
  comm.barrier();
  pending.wait();
  for (int r = 0; r < n; ++r)
    if (ranks[static_cast<std::size_t>(r)] != r)
      throw std::runtime_error("allgather: wrong block " + std::to_string(r));
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t expected =
        std::int64_t{n} * static_cast<std::int64_t>(i) + std::int64_t{10000} * n * (n - 1) / 2;
    if (values[i] != expected) throw std::runtime_error("iallreduce: wrong element " + std::to_string(i));
  }
}

TEST(CommOnAStore, RanksAsThreadsShareAnInMemoryStore) {
  InMemoryStore store;
  test::run_ranks(4, [&](int rank) {
    Comm comm = Comm::create(rank_options(rank, 4), store);
    EXPECT_EQ(comm.rank(), rank);
    EXPECT_EQ(comm.size(), 4);
    exercise(comm);
  });
  // Every rank's endpoint went through the store, under rcoll's prefix.
  for (int r = 0; r < 4; ++r)
    EXPECT_TRUE(store.try_get("rcoll/member/" + std::to_string(r)).has_value()) << "rank " << r;
}

TEST(CommOnAStore, RanksAsThreadsEachWithAFileStoreOnOneDirectory) {
  test::ScratchDirectory directory;
  test::run_ranks(3, [&](int rank) {
    FileStore store(directory.path());
    Comm comm = Comm::create(rank_options(rank, 3), store);
    exercise(comm);
  });
}

// Real processes: forked before any thread of this test starts; each child
// joins through its own FileStore and exits 0 only if every result is right.
TEST(CommOnAStore, ProcessesJoinThroughAFileStore) {
  test::ScratchDirectory directory;
  constexpr int size = 3;
  std::vector<pid_t> children;
  for (int rank = 0; rank < size; ++rank) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      int status = 0;
      try {
        FileStore store(directory.path());
        Comm comm = Comm::create(rank_options(rank, size), store);
        exercise(comm);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
        status = 1;
      }
      std::fflush(nullptr);
      ::_exit(status);
    }
    children.push_back(pid);
  }
  for (int rank = 0; rank < size; ++rank) {
    int status = -1;
    ASSERT_EQ(::waitpid(children[static_cast<std::size_t>(rank)], &status, 0),
              children[static_cast<std::size_t>(rank)]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "rank " << rank << " status " << status;
  }
}

TEST(CommOnAStore, ARankThatNeverJoinsIsNamedAtTheTimeout) {
  InMemoryStore store;
  test::run_ranks(2, [&](int rank) {
    Options options = rank_options(rank, 3);
    options.timeout = 2s;  // room for a slow start of the other rank (sanitizers)
    const auto start = std::chrono::steady_clock::now();
    try {
      Comm comm = Comm::create(options, store);
      ADD_FAILURE() << "rank " << rank << " joined a job whose rank 2 never came";
    } catch (const TimeoutError& e) {
      // Rank 2 is named; under a sanitizer the other rank may still be
      // loading the host topology at the deadline and be named too.
      EXPECT_NE(std::string(e.what()).find("joining through the store timed out waiting for ranks"), std::string::npos)
          << e.what();
      const std::vector<int>& missing = e.waiting_for();
      EXPECT_NE(std::find(missing.begin(), missing.end(), 2), missing.end()) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  });
}

// The hang diagnosis travels through the caller's store too: rank 0's
// timed-out barrier names rank 1 as not having entered it.
TEST(CommOnAStore, ATimeoutNamesTheRankThatHadNotJoinedTheCall) {
  InMemoryStore store;
  test::run_ranks(2, [&](int rank) {
    Comm comm = Comm::create(rank_options(rank, 2), store);
    if (rank == 1) {
      std::this_thread::sleep_for(1500ms);
      // Rank 0's half of the barrier is here already; the allreduce after
      // it needs rank 0, whose communicator broke down.
      int value = 1;
      EXPECT_THROW(
          {
            comm.barrier({.timeout = 5s});
            comm.allreduce(&value, &value, 1, DataType::int32, ReduceOp::sum, {.timeout = 5s});
          },
          Error);
      return;
    }
    try {
      comm.barrier({.timeout = 300ms});
      ADD_FAILURE() << "the barrier completed without rank 1";
    } catch (const TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("rank 1 has not joined"), std::string::npos) << e.what();
    }
  });
}

TEST(CommOnAStore, ArgumentsThatCannotWorkAreRefused) {
  EXPECT_THROW(FileStore("/nonexistent/rcoll-store"), InvalidArgument);
  InMemoryStore store;
  Options hosting = rank_options(0, 2);
  hosting.host_bootstrap = true;
  EXPECT_THROW(Comm::create(hosting, store), InvalidArgument);
  EXPECT_THROW(Comm::create(rank_options(2, 2), store), InvalidArgument);
}

TEST(CommOnAStore, FileStoreKeysAreWriteOnceAcrossObjects) {
  test::ScratchDirectory directory;
  FileStore first(directory.path()), second(directory.path());
  const auto soon = Store::Clock::now() + 1s;
  first.set("a/b", "one", soon);
  EXPECT_EQ(second.get("a/b", soon), "one");
  EXPECT_NO_THROW(second.set("a/b", "one", soon));
  EXPECT_THROW(second.set("a/b", "two", soon), InvalidArgument);
  EXPECT_EQ(first.try_get("a/b"), std::optional<std::string>("one"));
  EXPECT_EQ(first.try_get("a/c"), std::nullopt);
  EXPECT_THROW(first.get("a/c", Store::Clock::now() + 50ms), TimeoutError);
}

}  // namespace
}  // namespace rcoll
