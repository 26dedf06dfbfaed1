// Comm::create_group (groups made by their members alone, as
// torch.distributed.new_group makes them) and Request::notify_when_done
// (how the PyTorch backend learns that a call is done). Ranks as threads,
// in process and over TCP, and RDMA in the guest.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rcoll/rcoll.hpp"
#include "support/comm_ranks.hpp"
#include "support/transport_fixture.hpp"

namespace rcoll {
namespace {

using namespace std::chrono_literals;

using World = std::pair<std::string, int>;

class CreateGroup : public test::OnBackend<World> {
 protected:
  void run(const std::function<void(Comm&)>& body, Progress progress = Progress::caller) {
    Options base;
    base.timeout = 30s;
    base.progress = progress;
    test::run_comm_ranks(GetParam().first, GetParam().second, base, body);
  }
  // One store per group, shared by the member threads.
  Store& store_for(const std::string& group) {
    std::lock_guard lock(mutex_);
    auto& store = stores_[group];
    if (!store) store = std::make_unique<InMemoryStore>();
    return *store;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<InMemoryStore>> stores_;
};

std::int64_t sum(const std::vector<int>& ranks) {
  std::int64_t s = 0;
  for (int r : ranks) s += r;
  return s;
}

// The odd ranks, listed backwards, and the ranks from 1 up: groups that
// overlap, made one after the other by their members only, then used at
// the same time as the world, each in its own tag space.
TEST_P(CreateGroup, OverlappingGroupsMadeByTheirMembersRunBesideTheWorld) {
  const int n = GetParam().second;
  if (n < 3) GTEST_SKIP() << "needs 3 ranks";
  run([&](Comm& world) {
    const int me = world.rank();
    std::vector<int> odds, upper;
    for (int r = n - 1; r >= 0; --r)
      if (r % 2 == 1) odds.push_back(r);
    for (int r = 1; r < n; ++r) upper.push_back(r);
    std::optional<Comm> odd, up;
    if (me % 2 == 1) odd = world.create_group(odds, store_for("odds"));
    if (me >= 1) up = world.create_group(upper, store_for("upper"));
    std::int64_t in_world = me, in_odd = 100 + me, in_up = 10000 + me;
    std::vector<Request> pending;
    if (odd) {
      EXPECT_EQ(odd->size(), static_cast<int>(odds.size()));
      EXPECT_EQ(odd->rank(), std::find(odds.begin(), odds.end(), me) - odds.begin());
      pending.push_back(odd->iallreduce(std::span<std::int64_t>(&in_odd, 1), ReduceOp::sum));
    }
    if (up) {
      EXPECT_EQ(up->rank(), me - 1);
      pending.push_back(up->iallreduce(std::span<std::int64_t>(&in_up, 1), ReduceOp::sum));
    }
    world.allreduce(std::span<std::int64_t>(&in_world, 1), ReduceOp::sum);
    wait_all(pending);
    std::vector<int> all(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) all[static_cast<std::size_t>(r)] = r;
    EXPECT_EQ(in_world, sum(all));
    if (odd) EXPECT_EQ(in_odd, 100 * static_cast<std::int64_t>(odds.size()) + sum(odds));
    if (up) EXPECT_EQ(in_up, 10000 * static_cast<std::int64_t>(upper.size()) + sum(upper));
  });
}

TEST_P(CreateGroup, ABadListIsRefusedBeforeTheStoreIsUsed) {
  run([&](Comm& world) {
    const int me = world.rank();
    const int n = world.size();
    InMemoryStore untouched;
    std::vector<int> without_me;
    for (int r = 0; r < n; ++r)
      if (r != me) without_me.push_back(r);
    EXPECT_THROW(world.create_group(without_me, untouched), InvalidArgument);
    std::vector<int> twice{me, me};
    EXPECT_THROW(world.create_group(twice, untouched), InvalidArgument);
    std::vector<int> outside{me, n};
    EXPECT_THROW(world.create_group(outside, untouched), InvalidArgument);
    EXPECT_FALSE(untouched.try_get("rcoll/create_group/next_id/0").has_value());
    // The communicator is still fine.
    std::int64_t one = 1;
    world.allreduce(std::span<std::int64_t>(&one, 1), ReduceOp::sum);
    EXPECT_EQ(one, n);
  });
}

// With a progress thread an issued call is done without anyone waiting:
// its notify comes, and test() then finds it complete.
TEST_P(CreateGroup, NotifyWhenDoneComesWithoutAWaitOnTheProgressThread) {
  run(
      [&](Comm& world) {
        std::mutex mutex;
        std::condition_variable told;
        bool done = false;
        std::vector<std::int64_t> data(100000, world.rank());
        Request request = world.iallreduce(std::span<std::int64_t>(data), ReduceOp::sum);
        request.notify_when_done([&] {
          std::lock_guard lock(mutex);
          done = true;
          told.notify_all();
        });
        {
          std::unique_lock lock(mutex);
          ASSERT_TRUE(told.wait_for(lock, 20s, [&] { return done; })) << "no notify within 20 s";
        }
        // Asked again when the call is done already, the notify runs at once.
        bool at_once = false;
        request.notify_when_done([&] { at_once = true; });
        EXPECT_TRUE(at_once);
        EXPECT_TRUE(request.test());
        const std::int64_t n = world.size();
        EXPECT_EQ(data.front(), n * (n - 1) / 2);
        EXPECT_EQ(data.back(), n * (n - 1) / 2);
      },
      Progress::thread);
}

std::vector<World> worlds() {
  std::vector<World> list;
  for (int n : {1, 3, 6}) list.emplace_back("inproc", n);
  list.emplace_back("tcp", 4);
  list.emplace_back("rdma", 3);
  return list;
}

INSTANTIATE_TEST_SUITE_P(Worlds, CreateGroup, ::testing::ValuesIn(worlds()), [](const auto& info) {
  return info.param.first + "_n" + std::to_string(info.param.second);
});

}  // namespace
}  // namespace rcoll
