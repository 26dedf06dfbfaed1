// A circular wait through the public API: three ranks as threads over TCP,
// each sending a message above the eager limit to the next before it
// receives from the previous one. Every send waits for a receive that is
// never posted; each rank's TimeoutError must name the circle. And the
// diagnosis alone, on an in-memory store: a chain that is not a circle.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "bootstrap/in_memory.hpp"
#include "diagnostics/blocked_send.hpp"
#include "rcoll/rcoll.hpp"
#include "store/keys.hpp"
#include "support/comm_ranks.hpp"
#include "support/run_ranks.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every rank sends 1 MiB (above the TCP eager limit, so each send waits for
// its receive) to the next before receiving from the previous one: a
// circular wait. Each rank's TimeoutError must say so.
TEST(CircularWait, TheTimeoutOfEverySendNamesTheCircle) {
  std::mutex mutex;
  std::vector<std::string> errors;
  Options base;
  base.timeout = 30s;  // creation; the sends have 1 s each
  test::run_comm_ranks("tcp", 3, base, [&](Comm& comm) {
    const int next = (comm.rank() + 1) % 3, prev = (comm.rank() + 2) % 3;
    std::vector<float> out(1 << 18, 1.0f), in(1 << 18);
    comm.barrier();  // the sends start together, so the ranks time out together
    try {
      comm.send(std::span<const float>(out), next, 3, {.timeout = 1s});
      comm.recv(std::span<float>(in), prev, 3, {.timeout = 1s});
      ADD_FAILURE() << "rank " << comm.rank() << ": the circular wait completed";
    } catch (const Error& e) {
      std::lock_guard lock(mutex);
      errors.push_back(e.what());
    }
  });
  ASSERT_EQ(errors.size(), 3u);
  for (const std::string& what : errors) {
    const int rank = what[5] - '0', next = (rank + 1) % 3;
    EXPECT_TRUE(contains(what, "send to rank " + std::to_string(next) + " tag 3: timed out")) << what;
    EXPECT_TRUE(contains(what, "rank " + std::to_string(next) + " has not posted a matching receive (tag 3): a send "
                               "of 1048576 bytes, above the tcp eager limit of"))
        << what;
    std::string circle;
    for (int i = 0; i <= 3; ++i) circle += std::to_string((rank + i) % 3) + (i < 3 ? " -> " : "");
    EXPECT_TRUE(contains(what, "ranks " + circle + " are each blocked in a send to the next: a circular wait")) << what;
  }
}

// Rank 0's small send to rank 1 timed out; rank 1 is blocked in a send to
// rank 2, which published nothing: no eager-limit clause (the message is
// small), no circle, but rank 1's own wait is named.
TEST(BlockedSend, NamesAReceiverBlockedInASendOfItsOwn) {
  bootstrap::InMemoryRendezvous rendezvous(3);
  std::vector<std::unique_ptr<bootstrap::Bootstrap>> b(3);
  test::run_ranks(3, [&](int r) { b[static_cast<std::size_t>(r)] = rendezvous.join(r, "", Deadline::after(5s)); });
  b[1]->set(store::keys::blocked_send(1), "2\nsend to rank 2 tag 4", Deadline::after(1s));
  const auto call = diagnostics::CallInfo::point_to_point(diagnostics::CallKind::send, 100, DataType::uint8, 1, 4);
  diagnostics::BlockedSend diagnosis(*b[0], 0, 3);
  EXPECT_EQ(diagnosis.explain(call, 100, {"tcp", 65536}, 50ms), "rank 1 is itself blocked in send to rank 2 tag 4");
  EXPECT_EQ(b[2]->get(store::keys::blocked_send(0), Deadline::after(1s)), "1\nsend to rank 1 tag 4");
}

}  // namespace
}  // namespace rcoll
