// PacedSends::wait_completed: it returns once the first sends it names
// have completed, not waiting for later ones, and refuses to wait for
// sends never queued. Over TCP with rendezvous-sized messages, so that a
// send completes only once its receive is posted.
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
#include "support/run_ranks.hpp"

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

}  // namespace
}  // namespace rcoll::collectives
