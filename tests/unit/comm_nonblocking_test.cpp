// The non-blocking calls through the public API (rcoll/request.hpp): every
// i-call of the set issued at once with its own buffers and completed
// together, against a serial reference; completion through test(),
// wait(), wait_any() and blocking calls in any order; v-variant arrays
// freed right after the issue. The schedules are the blocking calls' (the
// collectives_*_test suites force each algorithm). Ranks as threads over
// TCP, in process and RDMA (in the Soft-RoCE guest).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "support/transport_fixture.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;
using Ints = std::vector<std::int32_t>;

// Element i of block b: distinct across blocks and positions.
std::int32_t value(int b, std::size_t i) { return static_cast<std::int32_t>(b * 100000 + static_cast<int>(i)); }

Ints block_of(int b, std::size_t count) {
  Ints v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = value(b, i);
  return v;
}

Ints concat(int n, std::size_t count, const std::function<int(int)>& block) {
  Ints all;
  for (int r = 0; r < n; ++r) {
    Ints b = block_of(block(r), count);
    all.insert(all.end(), b.begin(), b.end());
  }
  return all;
}

// Element-wise sum over ranks of block_of(r, count).
Ints sum_over_ranks(int n, std::size_t count) {
  Ints sum(count, 0);
  for (int r = 0; r < n; ++r)
    for (std::size_t i = 0; i < count; ++i) sum[i] += value(r, i);
  return sum;
}

// Calls issued by one rank: their buffers (a deque, so they never move),
// requests and the checks to run once all are complete.
struct Issued {
  std::deque<Ints> buffers;
  std::vector<Request> requests;
  std::vector<std::function<void()>> checks;

  Ints& buffer(Ints contents) { return buffers.emplace_back(std::move(contents)); }
  Ints& buffer(std::size_t count) { return buffers.emplace_back(count, -1); }
  void expect(const Ints& got, Ints expected, std::string what) {
    checks.push_back(
        [&got, expected = std::move(expected), what = std::move(what)] { EXPECT_EQ(got, expected) << what; });
  }
};

// v-layout: rank r has (r * 37 + salt) % 5 elements (some none), blocks in
// reverse rank order with a one-element gap.
struct VLayout {
  std::vector<std::size_t> counts, displs;
  std::size_t extent = 0;
  VLayout(int n, int salt) : counts(static_cast<std::size_t>(n)), displs(static_cast<std::size_t>(n)) {
    for (int r = n - 1; r >= 0; --r) {
      counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>((r * 37 + salt) % 5);
      displs[static_cast<std::size_t>(r)] = extent;
      extent += counts[static_cast<std::size_t>(r)] + 1;
    }
  }
  Ints placed(int n) const {
    Ints all(extent, -1);
    for (int r = 0; r < n; ++r) {
      Ints b = block_of(r, counts[static_cast<std::size_t>(r)]);
      std::copy(b.begin(), b.end(), all.begin() + static_cast<std::ptrdiff_t>(displs[static_cast<std::size_t>(r)]));
    }
    return all;
  }
};

void issue_uniform_calls(Comm& comm, std::size_t count, Issued& issued) {
  const int n = comm.size(), me = comm.rank();
  const int root = static_cast<int>(count % static_cast<std::size_t>(n));
  const std::string at = " count " + std::to_string(count);

  Ints& mine = issued.buffer(block_of(me, count));
  Ints& reduced = issued.buffer(count);
  issued.requests.push_back(comm.iallreduce(mine.data(), reduced.data(), count, DataType::int32, ReduceOp::sum));
  issued.expect(reduced, sum_over_ranks(n, count), "iallreduce" + at);

  Ints& inout = issued.buffer(block_of(me, count));
  issued.requests.push_back(comm.iallreduce(std::span<std::int32_t>(inout), ReduceOp::sum));
  issued.expect(inout, sum_over_ranks(n, count), "iallreduce in place" + at);

  Ints& broadcast = issued.buffer(me == root ? block_of(50, count) : Ints(count, -1));
  issued.requests.push_back(comm.ibcast(broadcast.data(), count, DataType::int32, root));
  issued.expect(broadcast, block_of(50, count), "ibcast" + at);

  Ints& reduce_in = issued.buffer(block_of(me, count));
  Ints& reduce_out = issued.buffer(me == root ? count : 0);
  issued.requests.push_back(
      comm.ireduce(reduce_in.data(), reduce_out.data(), count, DataType::int32, ReduceOp::sum, root));
  issued.expect(reduce_out, me == root ? sum_over_ranks(n, count) : Ints{}, "ireduce" + at);

  Ints& gathered = issued.buffer(count * static_cast<std::size_t>(n));
  issued.requests.push_back(comm.iallgather(mine.data(), gathered.data(), count, DataType::int32));
  issued.expect(gathered, concat(n, count, [](int r) { return r; }), "iallgather" + at);

  Ints& at_root = issued.buffer(me == root ? count * static_cast<std::size_t>(n) : 0);
  issued.requests.push_back(comm.igather(mine.data(), at_root.data(), count, DataType::int32, root));
  issued.expect(at_root, me == root ? concat(n, count, [](int r) { return r; }) : Ints{}, "igather" + at);

  Ints& to_scatter = issued.buffer(me == root ? concat(n, count, [](int r) { return r + 7; }) : Ints{});
  Ints& scattered = issued.buffer(count);
  issued.requests.push_back(comm.iscatter(to_scatter.data(), scattered.data(), count, DataType::int32, root));
  issued.expect(scattered, block_of(me + 7, count), "iscatter" + at);

  Ints& to_reduce = issued.buffer(concat(n, count, [me](int) { return me; }));
  Ints& my_sum = issued.buffer(count);
  issued.requests.push_back(
      comm.ireduce_scatter(to_reduce.data(), my_sum.data(), count, DataType::int32, ReduceOp::sum));
  Ints expected_sum(count);
  for (std::size_t i = 0; i < count; ++i) expected_sum[i] = n * (n - 1) / 2 * 100000 + n * static_cast<int>(i);
  issued.expect(my_sum, expected_sum, "ireduce_scatter" + at);

  Ints& to_all = issued.buffer(concat(n, count, [me, n](int q) { return me * n + q; }));
  Ints& from_all = issued.buffer(count * static_cast<std::size_t>(n));
  issued.requests.push_back(comm.ialltoall(to_all.data(), from_all.data(), count, DataType::int32));
  issued.expect(from_all, concat(n, count, [me, n](int q) { return q * n + me; }), "ialltoall" + at);
}

// The v-variants, with counts and displacements in arrays freed as soon as
// each i-call returns.
void issue_v_calls(Comm& comm, int salt, Issued& issued) {
  const int n = comm.size(), me = comm.rank();
  const int root = salt % n;
  const auto self = static_cast<std::size_t>(me);
  const std::string at = " salt " + std::to_string(salt);
  const VLayout layout(n, salt);
  Ints& mine = issued.buffer(block_of(me, layout.counts[self]));

  Ints& all = issued.buffer(layout.extent);
  {
    VLayout temporary = layout;
    issued.requests.push_back(
        comm.iallgatherv(mine.data(), mine.size(), all.data(), temporary.counts, temporary.displs, DataType::int32));
  }
  issued.expect(all, layout.placed(n), "iallgatherv" + at);

  Ints& gathered = issued.buffer(layout.extent);
  {
    VLayout temporary = layout;
    issued.requests.push_back(comm.igatherv(mine.data(), mine.size(), gathered.data(), temporary.counts,
                                            temporary.displs, DataType::int32, root));
  }
  issued.expect(gathered, me == root ? layout.placed(n) : Ints(layout.extent, -1), "igatherv" + at);

  Ints& source = issued.buffer(me == root ? layout.placed(n) : Ints{});
  Ints& got = issued.buffer(layout.counts[self]);
  {
    VLayout temporary = layout;
    issued.requests.push_back(comm.iscatterv(source.data(), temporary.counts, temporary.displs, got.data(),
                                             got.size(), DataType::int32, root));
  }
  issued.expect(got, mine, "iscatterv" + at);

  const std::size_t total = std::accumulate(layout.counts.begin(), layout.counts.end(), std::size_t{0});
  Ints& input = issued.buffer(Ints(total, me + 1));
  Ints& block = issued.buffer(layout.counts[self]);
  {
    std::vector<std::size_t> counts = layout.counts;
    issued.requests.push_back(
        comm.ireduce_scatter_v(input.data(), block.data(), counts, DataType::int32, ReduceOp::sum));
  }
  issued.expect(block, Ints(layout.counts[self], n * (n + 1) / 2), "ireduce_scatter_v" + at);

  // alltoallv: rank r sends (r + q + salt) % 3 elements to q, packed in order.
  auto amount = [salt](int from, int to) { return static_cast<std::size_t>((from + to + salt) % 3); };
  std::vector<std::size_t> sc(static_cast<std::size_t>(n)), sd(sc.size()), rc(sc.size()), rd(sc.size());
  std::size_t s_total = 0, r_total = 0;
  for (int q = 0; q < n; ++q) {
    const auto i = static_cast<std::size_t>(q);
    sc[i] = amount(me, q), sd[i] = s_total, s_total += sc[i];
    rc[i] = amount(q, me), rd[i] = r_total, r_total += rc[i];
  }
  Ints& send = issued.buffer(s_total);
  Ints& recv = issued.buffer(r_total);
  Ints expected(r_total);
  for (int q = 0; q < n; ++q) {
    const auto i = static_cast<std::size_t>(q);
    for (std::size_t k = 0; k < sc[i]; ++k) send[sd[i] + k] = value(me * n + q, k);
    for (std::size_t k = 0; k < rc[i]; ++k) expected[rd[i] + k] = value(q * n + me, k);
  }
  issued.requests.push_back(comm.ialltoallv(send.data(), std::vector<std::size_t>(sc), std::vector<std::size_t>(sd),
                                            recv.data(), std::vector<std::size_t>(rc), std::vector<std::size_t>(rd),
                                            DataType::int32));
  issued.expect(recv, expected, "ialltoallv" + at);
}

// A ring exchange by isend / irecv, and a barrier.
void issue_point_to_point(Comm& comm, std::size_t count, Issued& issued) {
  const int n = comm.size(), me = comm.rank();
  issued.requests.push_back(comm.ibarrier());
  if (n == 1) return;
  Ints& out = issued.buffer(block_of(me, count));
  Ints& in = issued.buffer(count + 3);
  issued.requests.push_back(comm.irecv(in.data(), in.size(), DataType::int32, (me + n - 1) % n, 3));
  issued.requests.push_back(comm.isend(out.data(), count, DataType::int32, (me + 1) % n, 3));
  Ints expected = block_of((me + n - 1) % n, count);
  expected.resize(count + 3, -1);
  issued.expect(in, expected, "isend/irecv count " + std::to_string(count));
  // The irecv's Request is complete when the checks run (wait_all).
  const std::size_t index = issued.requests.size() - 2;
  issued.checks.push_back([&issued, index, count] { EXPECT_EQ(issued.requests[index].count(), count); });
}

// A backend and a world size; the calls move on the caller's thread, or
// on a progress thread (Options::progress) where the backend's name ends
// in "_thread".
class NonBlocking : public test::OnBackend<std::pair<std::string, int>> {
 protected:
  void run(const std::function<void(Comm&)>& body) {
    Options base;
    base.timeout = 30s;
    const std::string& name = GetParam().first;
    const auto cut = name.find("_thread");
    if (cut != std::string::npos) base.progress = Progress::thread;
    test::run_comm_ranks(name.substr(0, cut), GetParam().second, base, body);
  }
};

const std::size_t kCounts[] = {0, 1, 333, 70001};

TEST_P(NonBlocking, EveryCallIssuedAtOnceMatchesTheSerialReference) {
  run([](Comm& comm) {
    Issued issued;
    for (std::size_t count : kCounts) issue_uniform_calls(comm, count, issued);
    for (int salt = 0; salt < 3; ++salt) issue_v_calls(comm, salt, issued);
    issue_point_to_point(comm, 70001, issued);
    wait_all(issued.requests);
    for (const Request& request : issued.requests) EXPECT_FALSE(request.active());
    for (const auto& check : issued.checks) check();
  });
}

TEST_P(NonBlocking, CallsCompleteWhicheverWayTheyAreWaitedFor) {
  run([](Comm& comm) {
    const int n = comm.size();
    constexpr std::size_t sizes[] = {70001, 1, 333, 5000};
    std::vector<Ints> data;
    std::vector<Request> requests;
    for (std::size_t count : sizes) data.push_back(block_of(comm.rank(), count));
    for (auto& d : data) requests.push_back(comm.iallreduce(std::span<std::int32_t>(d), ReduceOp::sum));
    // A blocking call while they are outstanding drives them too.
    Ints small = block_of(comm.rank(), 3);
    comm.allreduce(std::span<std::int32_t>(small), ReduceOp::sum);
    EXPECT_EQ(small, sum_over_ranks(n, 3));
    // The last by test() passes, the others by wait_any() then wait().
    while (!requests[3].test()) {
    }
    EXPECT_FALSE(requests[3].active());
    const std::size_t first = wait_any(std::span<Request>(requests.data(), 3));
    ASSERT_LT(first, 3u);
    EXPECT_FALSE(requests[first].active());
    for (auto& request : requests) request.wait();  // inactive ones return at once
    EXPECT_EQ(wait_any(requests), requests.size()) << "no active request left";
    for (std::size_t i = 0; i < data.size(); ++i) EXPECT_EQ(data[i], sum_over_ranks(n, sizes[i])) << sizes[i];
  });
}

TEST_P(NonBlocking, AnArgumentErrorComesFromTheICallAndLeavesTheCommunicatorUsable) {
  run([](Comm& comm) {
    Ints data(4, 1);
    EXPECT_THROW(comm.iallreduce(nullptr, data.data(), 4, DataType::int32, ReduceOp::sum), InvalidArgument);
    EXPECT_THROW(comm.ibcast(data.data(), 4, DataType::int32, comm.size()), InvalidArgument);
    Request request = comm.iallreduce(std::span<std::int32_t>(data), ReduceOp::sum);
    request.wait();
    EXPECT_EQ(data, Ints(4, comm.size()));
  });
}

INSTANTIATE_TEST_SUITE_P(Worlds, NonBlocking,
                         ::testing::Values(std::pair<std::string, int>{"inproc", 1},
                                           std::pair<std::string, int>{"inproc", 2},
                                           std::pair<std::string, int>{"inproc", 5},
                                           std::pair<std::string, int>{"inproc", 8},
                                           std::pair<std::string, int>{"tcp", 3},
                                           std::pair<std::string, int>{"tcp", 4},
                                           std::pair<std::string, int>{"rdma", 2},
                                           std::pair<std::string, int>{"rdma", 3},
                                           std::pair<std::string, int>{"inproc_thread", 2},
                                           std::pair<std::string, int>{"inproc_thread", 5},
                                           std::pair<std::string, int>{"tcp_thread", 3},
                                           std::pair<std::string, int>{"rdma_thread", 3}),
                         [](const auto& info) { return info.param.first + "_n" + std::to_string(info.param.second); });

}  // namespace
}  // namespace rcoll
