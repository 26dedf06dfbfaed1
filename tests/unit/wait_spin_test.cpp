// wait_all's spin policy: how long it spins on progress() before it blocks
// in wait_for_activity(), by SpinMode. The transport here is a stand-in
// whose one receive completes at a set time, and which counts the waits'
// progress and blocking calls.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "transport/wait.hpp"

namespace rcoll::transport {
namespace {

using Clock = std::chrono::steady_clock;

class TimedTransport final : public Transport {
 public:
  explicit TimedTransport(Clock::duration complete_after)
      : complete_at_(Clock::now() + complete_after), request_(make_request(Request::Kind::recv, 1, 7, 8)) {}

  const RequestPtr& request() const { return request_; }
  int blocks() const { return blocks_; }

  std::string_view name() const override { return "timed"; }
  const Capabilities& capabilities() const override { return capabilities_; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  std::string local_endpoint() const override { return {}; }
  void set_peer_endpoints(std::vector<PeerEndpoint>) override {}
  RequestPtr isend(int, Tag, const void*, std::size_t) override { return nullptr; }
  RequestPtr irecv(int, Tag, void*, std::size_t) override { return nullptr; }
  void cancel(Request& request) override { request.mark_cancelled(); }

  bool progress() override {
    if (!request_->pending() || Clock::now() < complete_at_) return false;
    request_->complete(8);
    return true;
  }
  void wait_for_activity(std::chrono::microseconds max) override {
    ++blocks_;
    std::this_thread::sleep_for(std::min(max, std::chrono::microseconds(100)));
  }

 private:
  Capabilities capabilities_;
  Clock::time_point complete_at_;
  RequestPtr request_;
  int blocks_ = 0;
};

void wait_for(TimedTransport& transport) {
  wait(transport, transport.request(), Deadline::after(std::chrono::seconds(10)), LazyText("test wait"));
  ASSERT_EQ(transport.request()->state(), Request::State::done);
}

TEST(WaitSpin, ARankSharingACoreBlocksSoonAfterItsShortSpin) {
  ScopedWaitObserver scope(nullptr, SpinMode::yield);
  TimedTransport transport(std::chrono::milliseconds(20));
  wait_for(transport);
  EXPECT_GE(transport.blocks(), 1);  // 50 µs of spinning, then blocking slices until 20 ms
}

// An answer 200 µs away is caught by spinning (the budget is 2 ms): no
// wake-up to pay. Fails only if this thread loses its core for over 1.8 ms
// at one precise point of the loop.
TEST(WaitSpin, ARankWithItsOwnCoreSpinsThroughAShortWait) {
  ScopedWaitObserver scope(nullptr, SpinMode::pure);
  TimedTransport transport(std::chrono::microseconds(200));
  wait_for(transport);
  EXPECT_EQ(transport.blocks(), 0);
}

TEST(WaitSpin, ARankWithItsOwnCoreStillBlocksWhenTheWaitIsLong) {
  ScopedWaitObserver scope(nullptr, SpinMode::pure);
  TimedTransport transport(std::chrono::milliseconds(30));
  wait_for(transport);
  EXPECT_GE(transport.blocks(), 1);
}

}  // namespace
}  // namespace rcoll::transport
