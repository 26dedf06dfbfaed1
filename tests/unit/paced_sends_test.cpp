// PacedSends::wait_completed: it returns once the first sends it names
// have completed, not waiting for later ones, and refuses to wait for
// sends never queued. Over TCP with rendezvous-sized messages, so that a
// send completes only once its receive is posted. And a send that fails
// ends the wait on a receive from another peer that carries the hook.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include "collectives/paced_sends.hpp"
#include "collectives/requests.hpp"
#include "support/collective_job.hpp"
#include "rcoll/errors.hpp"
#include "support/run_ranks.hpp"
#include "support/transport_fixture.hpp"
#include "transport/wait.hpp"

namespace rcoll::collectives {
namespace {

using namespace std::chrono_literals;

TEST(PacedSends, WaitCompletedReturnsOnceTheFirstSendsAreDone) {
  constexpr std::size_t sends = 5, piece = 1 << 20;
  test::Job job("tcp", 2);
  ASSERT_LT(job.eager_limit(), piece);
  std::atomic<bool> first_three_done{false};
  bool posted_rest_before = true;
  std::vector<std::byte> data(sends * piece);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 % 251);
  std::vector<std::byte> got(data.size());
  test::run_ranks(2, [&](int rank) {
    const Context ctx = job.context(rank, 0, "paced #0");
    if (rank == 0) {
      PacedSends paced(ctx, 2);
      for (std::size_t i = 0; i < sends; ++i) paced.send(1, 0, data.data() + i * piece, piece);
      paced.wait_completed(3, "first three");
      first_three_done = true;
      paced.wait_all("the rest");
      EXPECT_THROW(paced.wait_completed(sends + 1, "never queued"), std::logic_error);
      return;
    }
    RequestList receives(ctx);
    for (std::size_t i = 0; i < 3; ++i) receives.add(ctx.transport.irecv(0, ctx.tag(0), got.data() + i * piece, piece));
    receives.wait_all("first three");
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (!first_three_done && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
    posted_rest_before = !first_three_done;
    for (std::size_t i = 3; i < sends; ++i)
      receives.add(ctx.transport.irecv(0, ctx.tag(0), got.data() + i * piece, piece));
    receives.wait_all("the rest");
  });
  EXPECT_FALSE(posted_rest_before) << "wait_completed(3) waited for sends whose receives were not posted";
  EXPECT_EQ(got, data);
}

// A ring rank waits on its left neighbour while its sends go to the right
// one. When the right one dies, the failed send must end that wait with
// the send's IoError at once, not leave it to time out (a fault-injection
// run killed a rank while connecting and its left neighbour waited out the
// 60 s timeout).
TEST(PacedSends, AFailedSendEndsTheWaitOnAnotherPeersReceive) {
  constexpr std::size_t piece = 1 << 20;
  test::TransportWorld world = test::make_transport_world("tcp", 3);
  // Rank 0 connects to rank 1 first, so that rank 1's end goes away later
  // with a connection open.
  std::thread rank1([&] { test::recv_bytes(*world.ranks[1], 0, 1, 8, Deadline::after(10s)); });
  test::send_bytes(*world.ranks[0], 1, 1, test::Bytes(8, 1), Deadline::after(10s));
  rank1.join();
  std::vector<std::byte> data(2 * piece), from2(8);
  std::string error;
  double seconds = 0;
  std::thread rank0([&] {
    const Context ctx{*world.ranks[0], std::uint64_t{5} << Context::step_bits, Deadline::after(20s), piece, 2,
                      "ring #0"};
    PacedSends paced(ctx, 2);
    paced.send(1, 0, data.data(), piece);
    paced.send(1, 0, data.data() + piece, piece);
    const auto start = std::chrono::steady_clock::now();
    try {
      transport::RequestPtr r = ctx.transport.irecv(2, ctx.tag(0), from2.data(), from2.size());
      transport::wait(ctx.transport, r, ctx.deadline, "receive from rank 2", &paced);
    } catch (const Error& e) {
      error = e.what();
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  std::this_thread::sleep_for(200ms);
  world.ranks[1].reset();  // rank 1 goes away: its sockets close
  rank0.join();
  EXPECT_NE(error.find("send to rank 1"), std::string::npos) << error;
  EXPECT_EQ(error.find("timed out"), std::string::npos) << error;
  EXPECT_LT(seconds, 5.0) << error;
}

}  // namespace
}  // namespace rcoll::collectives
