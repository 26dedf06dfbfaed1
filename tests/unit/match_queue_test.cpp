// The matching engine every backend uses (src/transport/matching/): order
// per tag, independent tags, unexpected messages served before a receive
// waits, the truncation rule, cancellation and failing everything pending,
// and no allocation per message once the queues have grown.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "rcoll/errors.hpp"
#include "transport/matching/match_queue.hpp"

// The replacements below pair malloc with free; GCC cannot see that through
// the operator new it inlines into delete expressions.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {

// Counts this thread's operator new calls, for the steady-state test.
thread_local std::size_t allocations = 0;

}  // namespace

void* operator new(std::size_t bytes) {
  ++allocations;
  if (void* block = std::malloc(bytes == 0 ? 1 : bytes)) return block;
  throw std::bad_alloc();
}
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }

namespace rcoll::transport {
namespace {

// An unexpected message as a backend keeps it: move-only (a pooled payload),
// and either a stored payload or a rendezvous request awaiting its answer.
struct Arrival {
  int id = 0;
  bool rts = false;
  std::unique_ptr<int> payload;
};

Arrival eager(int id) { return Arrival{id, false, std::make_unique<int>(id)}; }
Arrival rts(int id) { return Arrival{id, true, nullptr}; }

const ReceiveSide side{"tcp", 0, 1};

struct Receive {
  RequestPtr request;
  std::vector<std::byte> buffer;
};

Receive receive(Tag tag, std::size_t capacity) {
  return Receive{make_request(Request::Kind::recv, 1, tag, capacity), std::vector<std::byte>(capacity)};
}
PostedReceive posted(Receive& r) { return PostedReceive{r.request, r.buffer.data(), r.buffer.size()}; }

// The request of the receive a message of `tag` takes; null if none waits.
const Request* matched(MatchQueue<Arrival>& queue, Tag tag) {
  PostedReceive out;
  return queue.take_posted(tag, out) ? out.request.get() : nullptr;
}

int unexpected_id(MatchQueue<Arrival>& queue, Tag tag) {
  Arrival out;
  return queue.take_unexpected(tag, out) ? out.id : -1;
}

TEST(MatchQueue, ReceivesOfOneTagAreMatchedInPostingOrder) {
  MatchQueue<Arrival> queue;
  Receive a = receive(7, 8), b = receive(7, 8), c = receive(7, 8);
  for (Receive* r : {&a, &b, &c}) queue.post(posted(*r));
  EXPECT_EQ(matched(queue, 7), a.request.get());
  EXPECT_EQ(matched(queue, 7), b.request.get());
  EXPECT_EQ(matched(queue, 7), c.request.get());
  EXPECT_EQ(matched(queue, 7), nullptr);
  EXPECT_FALSE(queue.has_posted());
}

TEST(MatchQueue, TagsAreIndependent) {
  MatchQueue<Arrival> queue;
  Receive a1 = receive(1, 8), b2 = receive(2, 8), c1 = receive(1, 8);
  for (Receive* r : {&a1, &b2, &c1}) queue.post(posted(*r));
  EXPECT_EQ(matched(queue, 3), nullptr) << "no receive of tag 3";
  EXPECT_EQ(matched(queue, 2), b2.request.get()) << "tag 2 does not wait behind tag 1";
  EXPECT_EQ(matched(queue, 1), a1.request.get());
  EXPECT_EQ(matched(queue, 1), c1.request.get());

  queue.keep(5, eager(50));
  queue.keep(6, eager(60));
  queue.keep(5, eager(51));
  EXPECT_EQ(unexpected_id(queue, 6), 60);
  EXPECT_EQ(unexpected_id(queue, 5), 50);
  EXPECT_EQ(unexpected_id(queue, 5), 51);
}

TEST(MatchQueue, UnexpectedMessagesServeLaterReceivesInArrivalOrder) {
  MatchQueue<Arrival> queue;
  queue.keep(4, eager(1));
  queue.keep(4, rts(2));
  queue.keep(9, eager(3));
  EXPECT_TRUE(queue.has_unexpected(4));
  EXPECT_FALSE(queue.has_unexpected(5));
  Arrival first;
  ASSERT_TRUE(queue.take_unexpected(4, first));
  EXPECT_EQ(first.id, 1);
  ASSERT_NE(first.payload, nullptr);
  EXPECT_EQ(*first.payload, 1) << "the record moves out whole";
  EXPECT_EQ(unexpected_id(queue, 4), 2);
  EXPECT_FALSE(queue.has_unexpected(4));
  EXPECT_EQ(unexpected_id(queue, 4), -1);
  EXPECT_TRUE(queue.any_unexpected([](const Arrival& a) { return a.id == 3; }));
  EXPECT_FALSE(queue.has_posted()) << "taking unexpected messages posts nothing";
}

TEST(MatchQueue, AMessageThatFitsIsCopiedAndCompletesTheReceive) {
  Receive r = receive(3, 8);
  const std::byte data[5] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}, std::byte{5}};
  deliver(posted(r), data, sizeof(data), side);
  EXPECT_EQ(r.request->state(), Request::State::done);
  EXPECT_EQ(r.request->bytes(), 5u);
  EXPECT_EQ(r.buffer[4], std::byte{5});
  EXPECT_EQ(r.buffer[5], std::byte{0});

  Receive exact = receive(3, 5), empty = receive(3, 0);
  deliver(posted(exact), data, sizeof(data), side);
  deliver(posted(empty), nullptr, 0, side);
  EXPECT_EQ(exact.request->bytes(), 5u);
  EXPECT_EQ(empty.request->state(), Request::State::done);
}

TEST(MatchQueue, ALongerMessageFailsTheReceiveAndLeavesItsBuffer) {
  Receive r = receive(42, 4);
  const std::vector<std::byte> data(9, std::byte{0x77});
  EXPECT_FALSE(posted(r).fits(data.size()));
  deliver(posted(r), data.data(), data.size(), ReceiveSide{"rdma", 2, 5});
  ASSERT_EQ(r.request->state(), Request::State::failed);
  EXPECT_EQ(r.buffer, std::vector<std::byte>(4));
  try {
    r.request->rethrow_if_failed();
  } catch (const IoError& e) {
    EXPECT_EQ(e.rank(), 2);
    EXPECT_EQ(e.peer(), 5);
    EXPECT_EQ(e.step(), "rdma recv");  // no tag: the caller's step names the call
    EXPECT_EQ(e.cause(), "message of 9 bytes exceeds receive buffer of 4 bytes");
  }
}

TEST(MatchQueue, AWithdrawnReceiveIsSkippedAndTheRestKeepTheirOrder) {
  MatchQueue<Arrival> queue;
  Receive a = receive(1, 8), b = receive(1, 8), c = receive(1, 8);
  for (Receive* r : {&a, &b, &c}) queue.post(posted(*r));
  EXPECT_TRUE(queue.withdraw(*b.request));
  EXPECT_FALSE(queue.withdraw(*b.request)) << "withdrawn once";
  EXPECT_EQ(matched(queue, 1), a.request.get());
  EXPECT_FALSE(queue.withdraw(*a.request)) << "matched already";
  EXPECT_EQ(matched(queue, 1), c.request.get());
  EXPECT_EQ(matched(queue, 1), nullptr);
}

TEST(MatchQueue, FailAllHandsOverEveryReceiveAndKeepsDeliverableMessages) {
  MatchQueue<Arrival> queue;
  Receive a = receive(1, 8), b = receive(2, 8);
  queue.post(posted(a));
  queue.post(posted(b));
  queue.keep(3, eager(1));
  queue.keep(3, rts(2));
  queue.keep(3, eager(3));
  std::vector<const Request*> failed;
  queue.fail_all([&](PostedReceive& r) { failed.push_back(r.request.get()); },
                 [](const Arrival& arrival) { return arrival.rts; });
  EXPECT_EQ(failed, (std::vector<const Request*>{a.request.get(), b.request.get()}));
  EXPECT_FALSE(queue.has_posted());
  EXPECT_EQ(matched(queue, 1), nullptr);
  EXPECT_EQ(unexpected_id(queue, 3), 1);
  EXPECT_EQ(unexpected_id(queue, 3), 3) << "the request to send is gone";
  EXPECT_EQ(unexpected_id(queue, 3), -1);
}

TEST(MatchQueue, SteadyTrafficAllocatesNothingOnceTheQueuesHaveGrown) {
  MatchQueue<Arrival> queue;
  std::vector<Receive> receives;
  for (int i = 0; i < 4; ++i) receives.push_back(receive(static_cast<Tag>(i), 8));
  auto round = [&] {
    for (Receive& r : receives) queue.post(posted(r));
    for (int i = 0; i < 4; ++i) queue.keep(static_cast<Tag>(10 + i), Arrival{i, true, nullptr});
    for (int i = 3; i >= 0; --i) EXPECT_NE(matched(queue, static_cast<Tag>(i)), nullptr);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(unexpected_id(queue, static_cast<Tag>(10 + i)), i);
  };
  round();  // grows the queues
  const std::size_t before = allocations;
  for (int i = 0; i < 100; ++i) round();
  EXPECT_EQ(allocations, before);
}

}  // namespace
}  // namespace rcoll::transport
