// The public allocator (include/rcoll/alloc.hpp) on this host: memory on
// the asked or preferred NUMA node (checked with hwloc where the host can
// tell), standard-allocator use, and the edge cases of the contract. This
// CI machine may have one NUMA node; the tests check what it can show.
#include <gtest/gtest.h>

#include <rcoll/rcoll.hpp>

#include <cstdint>
#include <cstring>
#include <list>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "topology/apply.hpp"
#include "topology/binding.hpp"
#include "topology/memory_node.hpp"
#include "topology/numa_alloc.hpp"
#include "topology/topology.hpp"

namespace rcoll {
namespace {

using topology::this_machine;

bool page_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 4096 == 0; }

// Sets the process's memory node for one test, as apply_placement does,
// and restores it.
class ProcessNode {
 public:
  explicit ProcessNode(int node) : saved_(topology::process_memory_node()) { topology::set_process_memory_node(node); }
  ~ProcessNode() { topology::set_process_memory_node(saved_); }

 private:
  int saved_;
};

// Where the touched pages of [p, p + bytes) are, "" when the host cannot tell.
std::string pages_of(const void* p, std::size_t bytes) {
  return topology::memory_location(this_machine(), p, bytes).to_list();
}

TEST(PublicAlloc, NoPreferenceUntilPlacementChoosesOne) {
  // Nothing in this process applied placement: default placement.
  EXPECT_EQ(preferred_numa_node(), -1);
  void* p = alloc(1 << 20);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(page_aligned(p));
  std::memset(p, 0x11, 1 << 20);
  EXPECT_EQ(static_cast<unsigned char*>(p)[(1 << 20) - 1], 0x11);
  free(p, 1 << 20);
}

TEST(PublicAlloc, PagesAreOnTheAskedNode) {
  const bool can_bind = topology::can_bind_memory(this_machine());
  for (unsigned node : this_machine().numa_nodes()) {
    const std::size_t bytes = 4 << 20;
    void* p = alloc(bytes, static_cast<int>(node));
    std::memset(p, 0x5a, bytes);  // touch every page
    std::string where = pages_of(p, bytes);
    std::cout << "alloc(4 MiB, " << node << "): pages on {" << where << "}, binding "
              << (can_bind ? "supported" : "unsupported") << "\n";
    if (can_bind && !where.empty()) {
      EXPECT_EQ(where, std::to_string(node));
    }
    free(p, bytes);
  }
}

TEST(PublicAlloc, DefaultFollowsThePreferredNode) {
  const int node = static_cast<int>(this_machine().numa_nodes().back());
  ProcessNode chosen(node);
  EXPECT_EQ(preferred_numa_node(), node);
  const std::size_t bytes = 2 << 20;
  void* p = alloc(bytes);
  std::memset(p, 1, bytes);
  std::string where = pages_of(p, bytes);
  if (topology::can_bind_memory(this_machine()) && !where.empty()) {
    EXPECT_EQ(where, std::to_string(node));
  }
  free(p, bytes);
}

TEST(PublicAlloc, ApplyingPlacementSetsThePreferredNode) {
  ProcessNode restore(-1);
  topology::Bitmap cpus = topology::this_process_binding(this_machine());
  topology::PlacementReport report = topology::apply_placement(topology::BindPolicy::none, 0, 1, "no_such_nic0");
  EXPECT_EQ(preferred_numa_node(), report.memory.node);
  EXPECT_FALSE(report.memory.why.empty());
  if (this_machine().numa_node_count() == 1) {
    EXPECT_EQ(report.memory.node, -1);
    EXPECT_NE(report.log_line().find("memory default (one NUMA node"), std::string::npos) << report.log_line();
  }
  EXPECT_NE(report.log_line().find("placement: bind=none cpus " + cpus.to_list() + " (unbound)"), std::string::npos)
      << report.log_line();
  EXPECT_NE(report.log_line().find("device no_such_nic0 (numa unknown)"), std::string::npos) << report.log_line();
}

TEST(PublicAlloc, ZeroBytesAndNullptr) {
  void* a = alloc(0);
  void* b = alloc(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);  // unique, like operator new(0)
  EXPECT_TRUE(page_aligned(a));
  free(a, 0);
  free(b, 0);
  free(nullptr, 0);
  free(nullptr, 4096);
}

TEST(PublicAlloc, MissingNodeIsDefaultPlacement) {
  void* p = alloc(1 << 16, 999);
  ASSERT_NE(p, nullptr);
  std::memset(p, 7, 1 << 16);
  EXPECT_EQ(static_cast<unsigned char*>(p)[12345], 7);
  free(p, 1 << 16);
}

TEST(PublicAllocator, BacksAStandardVector) {
  const int node = static_cast<int>(this_machine().numa_nodes().front());
  std::vector<double, Allocator<double>> values(100000, 1.5, Allocator<double>(node));
  values.push_back(2.5);  // reallocates
  EXPECT_DOUBLE_EQ(std::accumulate(values.begin(), values.end(), 0.0), 150002.5);
  EXPECT_EQ(values.get_allocator().numa_node(), node);
  EXPECT_TRUE(page_aligned(values.data()));
  std::string where = pages_of(values.data(), values.size() * sizeof(double));
  if (topology::can_bind_memory(this_machine()) && !where.empty()) {
    EXPECT_EQ(where, std::to_string(node));
  }

  std::vector<double, Allocator<double>> moved = std::move(values);
  EXPECT_EQ(moved.size(), 100001u);
  moved.clear();
  moved.shrink_to_fit();
}

TEST(PublicAllocator, DefaultInstancesFollowThePreferredNode) {
  Allocator<int> follows;
  Allocator<int> fixed(0);
  EXPECT_EQ(follows.numa_node(), preferred_numa_node());
  {
    ProcessNode chosen(0);
    EXPECT_EQ(follows.numa_node(), 0);
  }
  EXPECT_EQ(fixed.numa_node(), 0);
  Allocator<char> rebound(fixed);
  EXPECT_EQ(rebound.numa_node(), 0);
  EXPECT_TRUE(follows == fixed);  // memory of one is freed by the other
  int* p = fixed.allocate(10);
  follows.deallocate(p, 10);
}

TEST(PublicAllocator, RebindsForNodeContainersAndRefusesOverflow) {
  std::list<int, Allocator<int>> items;
  for (int i = 0; i < 16; ++i) items.push_back(i);
  EXPECT_EQ(std::accumulate(items.begin(), items.end(), 0), 120);
  Allocator<double> a;
  EXPECT_THROW((void)a.allocate(static_cast<std::size_t>(-1) / 4), std::bad_array_new_length);
}

TEST(PublicAlloc, ThreadsAllocateAndFreeConcurrently) {
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < 50; ++i) {
        const std::size_t bytes = 4096 * static_cast<std::size_t>(1 + (i % 7));
        auto* p = static_cast<unsigned char*>(alloc(bytes));
        std::memset(p, t + 1, bytes);
        if (p[bytes - 1] != t + 1 || p[0] != t + 1) ++wrong[static_cast<std::size_t>(t)];
        free(p, bytes);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace rcoll
