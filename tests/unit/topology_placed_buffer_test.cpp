// The library's own buffers: PlacedBuffer on the process's memory node and
// the per-thread reuse of collective scratch.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "collectives/scratch.hpp"
#include "topology/memory_node.hpp"
#include "topology/numa_alloc.hpp"
#include "topology/placed_buffer.hpp"
#include "topology/topology.hpp"
#include "transport/buffer_pool.hpp"

namespace rcoll::topology {
namespace {

class ProcessNode {
 public:
  explicit ProcessNode(int node) : saved_(process_memory_node()) { set_process_memory_node(node); }
  ~ProcessNode() { set_process_memory_node(saved_); }

 private:
  int saved_;
};

bool page_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 4096 == 0; }

TEST(PlacedBuffer, TakesTheProcessNodeAtConstruction) {
  const int node = static_cast<int>(this_machine().numa_nodes().back());
  PlacedBuffer before(8192);
  EXPECT_EQ(before.numa_node(), process_memory_node());
  ProcessNode chosen(node);
  PlacedBuffer after(3 << 20);
  EXPECT_EQ(after.numa_node(), node);
  ASSERT_TRUE(after);
  EXPECT_TRUE(page_aligned(after.get()));
  std::memset(after.get(), 3, after.size());
  Bitmap where = memory_location(this_machine(), after.get(), after.size());
  std::cout << "PlacedBuffer(3 MiB) on node " << node << ": pages on {" << where.to_list() << "}\n";
  if (can_bind_memory(this_machine()) && !where.empty()) {
    EXPECT_EQ(where.to_list(), std::to_string(node));
  }
}

TEST(PlacedBuffer, WithoutANodeIsPageAlignedHeapMemory) {
  PlacedBuffer plain(10000, -1);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(page_aligned(plain.data()));
  EXPECT_EQ(plain.size(), 10000u);
  std::memset(plain.data(), 9, plain.size());
  EXPECT_EQ(plain.data()[9999], std::byte{9});
  PlacedBuffer none(0, 0);
  EXPECT_FALSE(none);
  EXPECT_TRUE(none.empty());
}

TEST(PlacedBuffer, MovesOwnership) {
  PlacedBuffer first(65536, static_cast<int>(this_machine().numa_nodes().front()));
  std::byte* data = first.get();
  PlacedBuffer second(std::move(first));
  EXPECT_EQ(second.get(), data);
  EXPECT_FALSE(first);  // NOLINT(bugprone-use-after-move): the contract under test
  PlacedBuffer third(4096, -1);
  third = std::move(second);
  EXPECT_EQ(third.get(), data);
  EXPECT_EQ(third.size(), 65536u);
}

TEST(Scratch, IsReusedByTheNextCallOnTheSameThread) {
  std::byte* first = nullptr;
  {
    collectives::Scratch scratch(100000);
    ASSERT_NE(scratch.get(), nullptr);
    EXPECT_GE(scratch.size(), 100000u);
    std::memset(scratch.get(), 1, 100000);
    first = scratch.get();
  }
  {
    collectives::Scratch smaller(5000);
    EXPECT_EQ(smaller.get(), first);  // the kept buffer
    collectives::Scratch nested(5000);  // the kept one is in use: a fresh one
    EXPECT_NE(nested.get(), first);
  }
  std::byte* other_thread = nullptr;
  std::thread([&] {
    collectives::Scratch scratch(5000);
    other_thread = scratch.get();
  }).join();
  EXPECT_NE(other_thread, first);
  EXPECT_EQ(collectives::Scratch(0).get(), nullptr);
}

TEST(Scratch, FollowsAChangeOfTheProcessNode) {
  { collectives::Scratch warm(70000); }
  const int node = static_cast<int>(this_machine().numa_nodes().front());
  ProcessNode chosen(process_memory_node() == node ? -1 : node);
  collectives::Scratch scratch(70000);
  ASSERT_NE(scratch.get(), nullptr);
  std::memset(scratch.get(), 2, 70000);
  // A buffer of the old node is not reused for the new one.
  Bitmap where = memory_location(this_machine(), scratch.get(), 70000);
  if (process_memory_node() >= 0 && can_bind_memory(this_machine()) && !where.empty()) {
    EXPECT_EQ(where.to_list(), std::to_string(node));
  }
}

TEST(TcpBufferPool, PooledBlocksArePlacedAndReused) {
  transport::BufferPool pool(65536, 2);
  auto small = pool.take(100);
  auto large = pool.take(60000);
  ASSERT_TRUE(small && large);
  EXPECT_TRUE(page_aligned(large.get()));
  std::memset(large.get(), 4, 60000);
  std::byte* block = large.get();
  pool.put(std::move(large), 60000);
  pool.put(std::move(small), 100);
  EXPECT_EQ(pool.take(50000).get(), block);
}

}  // namespace
}  // namespace rcoll::topology
