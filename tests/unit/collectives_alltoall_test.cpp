// alltoall and alltoallv: every algorithm of the catalog, forced, on every
// transport and world size 1..8: uniform blocks of 0, 1, 3 and 1001
// elements of 1 and 8 bytes, and v layouts with zero counts, unequal
// counts and gapped, non-monotone displacements on both sides. Every byte
// of every receive buffer is checked (blocks, gaps and guards), and send
// buffers must be unchanged. "rdma" runs a reduced matrix.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/collectives.hpp"
#include "support/collective_job.hpp"
#include "support/guarded_buffer.hpp"
#include "support/missing_rank.hpp"
#include "support/run_ranks.hpp"
#include "tuning/catalog.hpp"

namespace rcoll::collectives {
namespace {

using test::GuardedBuffer;
using test::Job;
using test::reduced;

// Elements rank `from` sends to rank `to`: uniform `each`, or one of the v layouts.
struct Case {
  std::size_t each;
  int layout;  // -1: uniform
  std::size_t unit;
  std::size_t segment_bytes;
};

std::size_t count(const Case& c, int from, int to, int size) {
  const auto f = static_cast<std::size_t>(from), t = static_cast<std::size_t>(to);
  switch (c.layout) {
    case 0: return (from + 2 * to) % 4 == 0 ? 0 : 5 + 7 * f + t;
    case 1: return from == 0 && to == size - 1 ? 100 : from == size - 1 && to == 0 ? 1 : 0;
    case 2: return from == to ? 0 : 300 + f;
    case 3: return (from + to) % 2;
    default: return c.each;
  }
}

std::byte value(int from, int to, std::size_t j) {
  const auto f = static_cast<std::size_t>(from), t = static_cast<std::size_t>(to);
  return static_cast<std::byte>((f * 31 + t * 7 + j * 13 + 1) & 0xff);
}

// One side's layout: counts[peer] elements at displs[peer], blocks laid out
// in reverse peer order (rotated by `shift`) with 3 units of gap before
// each. Uniform cases use plain Blocks instead.
struct Layout {
  std::vector<std::size_t> counts, displs;
  std::size_t total = 0;  // units
};

Layout layout(const Case& c, int rank, int size, bool sending) {
  Layout l;
  const auto n = static_cast<std::size_t>(size);
  l.counts.resize(n);
  l.displs.resize(n);
  for (int peer = 0; peer < size; ++peer)
    l.counts[peer] = sending ? count(c, rank, peer, size) : count(c, peer, rank, size);
  for (int k = size - 1; k >= 0; --k) {
    const int peer = (k + rank) % size;
    l.total += 3;
    l.displs[peer] = l.total;
    l.total += l.counts[peer];
  }
  return l;
}

std::vector<Case> cases(const std::string& kind, bool v) {
  std::vector<Case> out;
  const std::size_t segment = reduced(kind) ? 256 : 64;
  for (std::size_t unit : {1, 8})
    for (std::size_t each : {0, 1, 3, 1001}) out.push_back({each, -1, unit, segment});
  if (!reduced(kind)) out.push_back({20011, -1, 4, 256});
  if (v)
    for (int l = 0; l < 4; ++l) out.push_back({0, l, 4, segment});
  return out;
}

std::string describe(const Case& c) {
  return (c.layout < 0 ? "each " + std::to_string(c.each) : "layout " + std::to_string(c.layout)) + " unit " +
         std::to_string(c.unit);
}

// Runs one case on one rank; returns an error description or "".
std::string run_case(const Job& job, int rank, std::uint64_t call, const tuning::AlltoallAlgorithm& algo,
                     const Case& c) {
  const int n = job.size();
  const Layout s = layout(c, rank, n, true), r = layout(c, rank, n, false);
  const bool v = c.layout >= 0;
  const Blocks uniform{c.each, nullptr, nullptr, c.unit};
  const Blocks send_blocks = v ? Blocks{0, s.counts.data(), s.displs.data(), c.unit} : uniform;
  const Blocks recv_blocks = v ? Blocks{0, r.counts.data(), r.displs.data(), c.unit} : uniform;
  const std::size_t send_bytes = v ? s.total * c.unit : c.each * c.unit * static_cast<std::size_t>(n);
  const std::size_t recv_bytes = v ? r.total * c.unit : send_bytes;
  std::vector<std::byte> send(send_bytes, std::byte{0x5c});
  std::vector<std::byte> expected(recv_bytes, GuardedBuffer::fill);
  for (int peer = 0; peer < n; ++peer) {
    for (std::size_t j = 0; j < send_blocks.bytes(peer); ++j) send[send_blocks.offset(peer) + j] = value(rank, peer, j);
    for (std::size_t j = 0; j < recv_blocks.bytes(peer); ++j)
      expected[recv_blocks.offset(peer) + j] = value(peer, rank, j);
  }
  const std::vector<std::byte> original = send;
  GuardedBuffer recv(recv_bytes);
  const std::string label = "alltoall #" + std::to_string(call);
  algo.run(job.context(rank, call, label, c.segment_bytes), send.data(), send_blocks, recv.data(), recv_blocks);
  const char* wrong = recv.head(recv_bytes) != expected ? "wrong result"
                      : !recv.intact()                   ? "guard bytes overwritten"
                      : send != original                 ? "send buffer modified"
                                                         : nullptr;
  if (wrong == nullptr) return {};
  std::string error = "rank " + std::to_string(rank) + ": ";
  error.append(wrong);  // (GCC 12 warns falsely about operator+ on a named string here)
  return error;
}

using Param = std::tuple<std::string, int, AlltoallAlgo>;

void run_all(const Param& param, const tuning::Collective<tuning::AlltoallAlgorithm>& collective, bool v) {
  const auto& [kind, size, id] = param;
  const tuning::AlltoallAlgorithm& algo = tuning::find_algorithm(collective, id);
  Job job(kind, size);
  std::vector<Case> all = cases(kind, v);
  // Where the transport has an eager limit E: blocks of 1.5 E + 1 bytes, which go by rendezvous.
  const std::size_t eager = job.eager_limit();
  if (eager <= (std::size_t{1} << 20) && size > 1) all.push_back({eager + eager / 2 + 1, -1, 1, eager});
  test::run_cases(
      job, all.size(), [&](int rank, std::size_t i) { return run_case(job, rank, i, algo, all[i]); },
      [&](std::size_t i) { return describe(all[i]); });
}

class AlltoallTest : public test::OnBackend<Param> {};

TEST_P(AlltoallTest, DeliversEveryBlockForEveryBlockSize) { run_all(GetParam(), tuning::alltoall_collective(), false); }

INSTANTIATE_TEST_SUITE_P(All, AlltoallTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::alltoall_collective().algorithms)), test::world_algo_name<Param>);

class AlltoallvTest : public test::OnBackend<Param> {};

TEST_P(AlltoallvTest, DeliversEveryBlockWithZeroCountsAndGappedDisplacements) {
  run_all(GetParam(), tuning::alltoallv_collective(), true);
}

INSTANTIATE_TEST_SUITE_P(All, AlltoallvTest,
                         ::testing::ValuesIn(test::worlds_and(tuning::alltoallv_collective().algorithms)),
                         test::world_algo_name<Param>);

// ------------------------------------------------------------ a missing rank

using namespace std::chrono_literals;

// Rank 3 of 4 never calls. The others must throw TimeoutError naming the call
// and the algorithm shortly after the deadline; none may hang.
class MissingRankTest : public test::OnBackend<std::string> {};

TEST_P(MissingRankTest, AlltoallTimesOut) {
  for (const auto& algo : tuning::alltoall_collective().algorithms) {
    const Blocks blocks{1001, nullptr, nullptr, 1};
    const auto outcomes = test::run_without_last_rank(GetParam(), 4, 300ms, [&](const Context& ctx) {
      std::vector<std::byte> send(4 * 1001), recv(4 * 1001);
      algo.run(ctx, send.data(), blocks, recv.data(), blocks);
    });
    test::expect_timeouts(outcomes, "alltoall " + std::string(to_string(algo.id)), true);
  }
}

INSTANTIATE_TEST_SUITE_P(All, MissingRankTest, ::testing::ValuesIn(test::transport_kinds()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rcoll::collectives
