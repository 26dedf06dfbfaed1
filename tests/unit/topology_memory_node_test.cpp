// Which NUMA node a rank's communication memory goes to
// (choose_memory_node), decided on the hand-written topologies of
// tests/data/topologies/ for every --bind policy, with and without binding.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "topology/locality.hpp"
#include "topology/memory_node.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {
namespace {

Topology load(const std::string& name) {
  auto dir = std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "topologies";
  return Topology::load_xml((dir / name).string());
}

// The memory node of local rank `r` of `n` when its binding took effect.
MemoryChoice memory_for(const Topology& t, BindPolicy policy, int r, int n, std::string_view device,
                        bool bound = true) {
  Placement p = decide_placement(t, policy, r, n, device);
  return choose_memory_node(t, p, bound && !p.cpuset.empty(), true);
}

TEST(MemoryNode, FollowsTheNicOnTheTwoSocketServerWhateverThePolicy) {
  Topology t = load("two_socket_nic.xml");
  for (BindPolicy policy : {BindPolicy::none, BindPolicy::core, BindPolicy::numa, BindPolicy::nic}) {
    for (int r = 0; r < 4; ++r) {
      MemoryChoice m = memory_for(t, policy, r, 4, "mlx5_0");
      EXPECT_EQ(m.node, 1) << to_string(policy) << " rank " << r << ": " << m.why;
      EXPECT_NE(m.why.find("local to mlx5_0"), std::string::npos) << m.why;
    }
  }
  EXPECT_EQ(memory_for(t, BindPolicy::none, 0, 1, "eth0").node, 1);  // the TCP interface of the same NIC
  EXPECT_NE(memory_for(t, BindPolicy::nic, 0, 1, "mlx5_0").why.find("and to the bound CPUs"), std::string::npos);
  EXPECT_EQ(memory_for(t, BindPolicy::core, 0, 1, "mlx5_0").why, "local to mlx5_0");  // CPUs on node 0
}

TEST(MemoryNode, EachNicOfTheFourNodeServerGetsItsOwnNode) {
  Topology t = load("four_numa_two_nics.xml");
  EXPECT_EQ(memory_for(t, BindPolicy::nic, 0, 2, "mlx5_0").node, 1);
  EXPECT_EQ(memory_for(t, BindPolicy::nic, 1, 2, "mlx5_1").node, 2);
  EXPECT_EQ(memory_for(t, BindPolicy::none, 0, 2, "ib1").node, 2);
  EXPECT_EQ(memory_for(t, BindPolicy::numa, 3, 4, "mlx5_0").node, 1);  // runs on node 3, DMA target on 1
}

TEST(MemoryNode, WithoutDeviceLocalityTheBoundCpusDecide) {
  Topology two = load("two_socket_nic.xml");
  MemoryChoice rxe = memory_for(two, BindPolicy::core, 5, 6, "rxe0");
  EXPECT_EQ(rxe.node, 1);  // core 5 is on node 1
  EXPECT_EQ(rxe.why, "the bound CPUs' node; rxe0's node unknown");
  EXPECT_EQ(memory_for(two, BindPolicy::numa, 0, 2, "").node, 0);

  Topology no_pci = load("no_pci.xml");
  MemoryChoice m = memory_for(no_pci, BindPolicy::nic, 0, 1, "mlx5_0");  // falls back to core 0
  EXPECT_EQ(m.node, 0);
  EXPECT_EQ(m.why, "the bound CPUs' node; mlx5_0's node unknown");
}

TEST(MemoryNode, UnboundWithoutLocalityIsDefaultPlacement) {
  Topology two = load("two_socket_nic.xml");
  MemoryChoice none = memory_for(two, BindPolicy::none, 0, 1, "rxe0");
  EXPECT_EQ(none.node, -1);
  EXPECT_EQ(none.why, "rxe0's node unknown, not bound: default allocation (first touch)");
  // A binding that was decided but refused counts as unbound.
  EXPECT_EQ(memory_for(two, BindPolicy::core, 5, 6, "rxe0", false).node, -1);
  EXPECT_EQ(memory_for(two, BindPolicy::core, 5, 6, "mlx5_0", false).node, 1);
}

TEST(MemoryNode, NoChoiceOnOneNodeOrWithoutMemoryBinding) {
  Topology laptop = load("laptop.xml");
  MemoryChoice one = memory_for(laptop, BindPolicy::core, 0, 1, "wlp2s0");
  EXPECT_EQ(one.node, -1);
  EXPECT_NE(one.why.find("one NUMA node"), std::string::npos) << one.why;

  Topology two = load("two_socket_nic.xml");
  Placement p = decide_placement(two, BindPolicy::nic, 0, 1, "mlx5_0");
  MemoryChoice unsupported = choose_memory_node(two, p, true, false);
  EXPECT_EQ(unsupported.node, -1);
  EXPECT_NE(unsupported.why.find("memory binding unsupported"), std::string::npos) << unsupported.why;
}

TEST(OnlyDevice, IsTheSingleRdmaDeviceElseTheSingleInterface) {
  EXPECT_EQ(only_device(load("two_socket_nic.xml")), "mlx5_0");  // not ib0/eth0: the RDMA device first
  EXPECT_EQ(only_device(load("four_numa_two_nics.xml")), "");    // two NICs: which one is not known
  EXPECT_EQ(only_device(load("laptop.xml")), "wlp2s0");
  EXPECT_EQ(only_device(load("no_pci.xml")), "");
}

TEST(MemoryNode, ProcessChoiceIsSharedAndResettable) {
  const int before = process_memory_node();
  set_process_memory_node(3);
  EXPECT_EQ(process_memory_node(), 3);
  set_process_memory_node(-1);
  EXPECT_EQ(process_memory_node(), -1);
  set_process_memory_node(before);
}

}  // namespace
}  // namespace rcoll::topology
