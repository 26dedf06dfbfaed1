// Locality and placement decisions on the hand-written topologies of
// tests/data/topologies/, loaded through Topology::load_xml.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rcoll/errors.hpp"
#include "topology/locality.hpp"
#include "topology/placement.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {
namespace {

std::filesystem::path data_dir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "topologies";
}

Topology load(const std::string& name) { return Topology::load_xml((data_dir() / name).string()); }

// One rank's decision, reduced to what the tests compare.
struct Decided {
  std::string cpuset;
  int numa;
  BindPolicy applied;
};

Decided decide(const Topology& t, BindPolicy policy, int local_rank, int local_size, std::string_view device = {}) {
  Placement p = decide_placement(t, policy, local_rank, local_size, device);
  EXPECT_EQ(p.requested, policy);
  return {p.cpuset.to_list(), p.numa_node, p.applied};
}

TEST(TopologyLoad, DescribesTheTwoSocketServer) {
  Topology t = load("two_socket_nic.xml");
  EXPECT_FALSE(t.is_this_system());
  EXPECT_EQ(t.numa_node_count(), 2);
  EXPECT_EQ(t.core_count(), 8);
  EXPECT_EQ(t.pu_count(), 8);
  EXPECT_EQ(t.numa_nodes(), (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(rdma_device_names(t), std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(network_device_names(t), (std::vector<std::string>{"ib0", "eth0"}));
}

TEST(TopologyLoad, MissingOrBrokenFilesAreInvalidArguments) {
  EXPECT_THROW(load("no_such_topology.xml"), InvalidArgument);
  auto broken = std::filesystem::temp_directory_path() / "rcoll_topology_broken.xml";
  std::ofstream(broken) << "<topology><object type=\"Nonsense\">";
  EXPECT_THROW(Topology::load_xml(broken.string()), InvalidArgument);
  std::filesystem::remove(broken);
}

TEST(Locality, RdmaAndNetworkDevicesOfTheNicAreOnSocketOne) {
  Topology t = load("two_socket_nic.xml");
  for (const char* name : {"mlx5_0", "ib0", "eth0"}) {
    Locality l = device_locality(t, name);
    ASSERT_TRUE(l.found) << name << ": " << l.reason;
    EXPECT_EQ(l.cpuset.to_list(), "4-7") << name;
    EXPECT_EQ(l.nodeset.to_list(), "1") << name;
    EXPECT_EQ(l.numa_nodes, std::vector<unsigned>{1}) << name;
    EXPECT_EQ(l.first_numa_node(), 1) << name;
  }
  EXPECT_EQ(device_locality(t, "mlx5_0").kind, "openfabrics");
  EXPECT_EQ(device_locality(t, "eth0").kind, "network");
}

TEST(Locality, VirtualAndUnknownDevicesAreNotFoundWithAReason) {
  Topology t = load("two_socket_nic.xml");
  Locality rxe = device_locality(t, "rxe0");
  EXPECT_FALSE(rxe.found);
  EXPECT_EQ(rxe.first_numa_node(), -1);
  EXPECT_NE(rxe.reason.find("no hwloc locality for rxe0"), std::string::npos) << rxe.reason;
  EXPECT_NE(rxe.reason.find("virtual device"), std::string::npos) << rxe.reason;
  EXPECT_FALSE(device_locality(t, "").found);
  EXPECT_NE(device_locality(t, "").reason.find("no device name"), std::string::npos);
}

TEST(Locality, TwoNicsOnDifferentNodesOfTheFourNodeServer) {
  Topology t = load("four_numa_two_nics.xml");
  EXPECT_EQ(t.numa_node_count(), 4);
  Locality first = device_locality(t, "mlx5_0");
  Locality second = device_locality(t, "ib1");
  ASSERT_TRUE(first.found && second.found);
  EXPECT_EQ(first.cpuset.to_list(), "4-7");
  EXPECT_EQ(first.first_numa_node(), 1);
  EXPECT_EQ(second.cpuset.to_list(), "8-11");
  EXPECT_EQ(second.first_numa_node(), 2);
}

TEST(Locality, NoPciInformationIsExplained) {
  Topology t = load("no_pci.xml");
  Locality l = device_locality(t, "mlx5_0");
  EXPECT_FALSE(l.found);
  EXPECT_NE(l.reason.find("no PCI information"), std::string::npos) << l.reason;
}

TEST(Locality, LaptopWifiIsLocalToTheOnlyNode) {
  Topology t = load("laptop.xml");
  Locality l = device_locality(t, "wlp2s0");
  ASSERT_TRUE(l.found) << l.reason;
  EXPECT_EQ(l.cpuset.to_list(), "0-7");
  EXPECT_EQ(l.first_numa_node(), 0);
  EXPECT_TRUE(l.reason.empty()) << l.reason;
}

TEST(BindPolicyNames, ParseAndPrint) {
  for (BindPolicy p : {BindPolicy::none, BindPolicy::core, BindPolicy::numa, BindPolicy::nic}) {
    EXPECT_EQ(parse_bind_policy(to_string(p)), p);
  }
  EXPECT_FALSE(parse_bind_policy("socket").has_value());
  EXPECT_FALSE(parse_bind_policy("").has_value());
  EXPECT_FALSE(parse_bind_policy("Core").has_value());
}

TEST(Placement, NoneBindsNothingButReportsTheDevice) {
  Topology t = load("two_socket_nic.xml");
  Placement p = decide_placement(t, BindPolicy::none, 0, 4, "mlx5_0");
  EXPECT_TRUE(p.cpuset.empty());
  EXPECT_EQ(p.numa_node, -1);
  EXPECT_EQ(p.applied, BindPolicy::none);
  EXPECT_EQ(p.device, "mlx5_0");
  EXPECT_EQ(p.device_numa, 1);
  EXPECT_TRUE(p.reason.empty());
}

TEST(Placement, CoreIsRoundRobinOverAllCores) {
  Topology t = load("two_socket_nic.xml");
  const std::vector<Decided> expected = {{"0", 0, BindPolicy::core}, {"1", 0, BindPolicy::core},
                                         {"2", 0, BindPolicy::core}, {"3", 0, BindPolicy::core},
                                         {"4", 1, BindPolicy::core}, {"5", 1, BindPolicy::core}};
  for (int r = 0; r < 6; ++r) {
    Decided d = decide(t, BindPolicy::core, r, 6);
    EXPECT_EQ(d.cpuset, expected[r].cpuset) << "rank " << r;
    EXPECT_EQ(d.numa, expected[r].numa) << "rank " << r;
    EXPECT_EQ(d.applied, BindPolicy::core);
  }
  EXPECT_TRUE(decide_placement(t, BindPolicy::core, 7, 8).reason.empty());
}

TEST(Placement, CoreOversubscriptionWrapsAndSaysSo) {
  Topology t = load("two_socket_nic.xml");
  Placement p = decide_placement(t, BindPolicy::core, 9, 10);
  EXPECT_EQ(p.cpuset.to_list(), "1");
  EXPECT_NE(p.reason.find("oversubscribed: 10 ranks on 8 cores"), std::string::npos) << p.reason;
}

TEST(Placement, CoreBindsWholeCoresWithTheirHyperthreads) {
  Topology t = load("laptop.xml");
  EXPECT_EQ(decide(t, BindPolicy::core, 0, 4).cpuset, "0-1");
  EXPECT_EQ(decide(t, BindPolicy::core, 3, 4).cpuset, "6-7");
  EXPECT_EQ(decide(t, BindPolicy::core, 3, 4).numa, 0);
}

// auto binds like core only when the machine's ranks fill its 8 cores.
TEST(Placement, AutoBindsCoresOnlyWhenTheRanksFillThem) {
  Topology t = load("two_socket_nic.xml");
  for (int size : {8, 10}) {
    for (int r = 0; r < size; ++r) {
      Placement p = decide_placement(t, BindPolicy::automatic, r, size);
      EXPECT_EQ(p.applied, BindPolicy::core) << size << " ranks, rank " << r;
      EXPECT_EQ(p.cpuset.to_list(), std::to_string(r % 8)) << size << " ranks, rank " << r;
    }
  }
  EXPECT_NE(decide_placement(t, BindPolicy::automatic, 9, 10).reason.find("oversubscribed"), std::string::npos);
  Placement spare = decide_placement(t, BindPolicy::automatic, 0, 7);
  EXPECT_EQ(spare.applied, BindPolicy::none);
  EXPECT_TRUE(spare.cpuset.empty());
  EXPECT_EQ(spare.reason, "7 ranks on 8 cores: left to the OS scheduler");
  EXPECT_EQ(parse_bind_policy("auto"), BindPolicy::automatic);
  EXPECT_EQ(to_string(BindPolicy::automatic), "auto");
}

TEST(Placement, NumaIsRoundRobinOverNodes) {
  Topology two = load("two_socket_nic.xml");
  EXPECT_EQ(decide(two, BindPolicy::numa, 0, 4).cpuset, "0-3");
  EXPECT_EQ(decide(two, BindPolicy::numa, 1, 4).cpuset, "4-7");
  EXPECT_EQ(decide(two, BindPolicy::numa, 1, 4).numa, 1);
  EXPECT_EQ(decide(two, BindPolicy::numa, 2, 4).numa, 0);
  Topology four = load("four_numa_two_nics.xml");
  for (int r = 0; r < 4; ++r) {
    Decided d = decide(four, BindPolicy::numa, r, 4);
    EXPECT_EQ(d.numa, r);
    EXPECT_EQ(d.cpuset, std::to_string(4 * r) + "-" + std::to_string(4 * r + 3));
  }
  Topology laptop = load("laptop.xml");
  EXPECT_EQ(decide(laptop, BindPolicy::numa, 1, 2).cpuset, "0-7");
}

TEST(Placement, NicPacksRanksOnTheNicsNodeAndWraps) {
  Topology t = load("two_socket_nic.xml");
  const std::vector<std::string> expected = {"4", "5", "6", "7", "4", "5"};
  for (int r = 0; r < 6; ++r) {
    Placement p = decide_placement(t, BindPolicy::nic, r, 6, "mlx5_0");
    EXPECT_EQ(p.applied, BindPolicy::nic);
    EXPECT_EQ(p.cpuset.to_list(), expected[r]) << "rank " << r;
    EXPECT_EQ(p.numa_node, 1);
    EXPECT_EQ(p.device_numa, 1);
    EXPECT_NE(p.reason.find("oversubscribed: 6 ranks on 4 cores local to mlx5_0"), std::string::npos) << p.reason;
  }
  EXPECT_TRUE(decide_placement(t, BindPolicy::nic, 3, 4, "eth0").reason.empty());
}

TEST(Placement, NicUsesTheNamedDeviceOfTwo) {
  Topology t = load("four_numa_two_nics.xml");
  EXPECT_EQ(decide(t, BindPolicy::nic, 0, 2, "mlx5_0").cpuset, "4");
  EXPECT_EQ(decide(t, BindPolicy::nic, 1, 2, "mlx5_1").cpuset, "9");
  EXPECT_EQ(decide(t, BindPolicy::nic, 1, 2, "ib1").numa, 2);
}

TEST(Placement, NicWithoutLocalityFallsBackToCore) {
  Topology t = load("two_socket_nic.xml");
  Placement p = decide_placement(t, BindPolicy::nic, 1, 4, "rxe0");
  EXPECT_EQ(p.requested, BindPolicy::nic);
  EXPECT_EQ(p.applied, BindPolicy::core);
  EXPECT_EQ(p.cpuset.to_list(), "1");
  EXPECT_EQ(p.numa_node, 0);
  EXPECT_EQ(p.device_numa, -1);
  EXPECT_NE(p.reason.find("nic -> core: no hwloc locality for rxe0"), std::string::npos) << p.reason;

  Placement no_device = decide_placement(t, BindPolicy::nic, 0, 1);
  EXPECT_EQ(no_device.applied, BindPolicy::core);
  EXPECT_NE(no_device.reason.find("no device name"), std::string::npos) << no_device.reason;

  Placement no_pci = decide_placement(load("no_pci.xml"), BindPolicy::nic, 2, 4, "mlx5_0");
  EXPECT_EQ(no_pci.applied, BindPolicy::core);
  EXPECT_EQ(no_pci.cpuset.to_list(), "2");
  EXPECT_EQ(no_pci.numa_node, 1);
  EXPECT_NE(no_pci.reason.find("no PCI information"), std::string::npos) << no_pci.reason;
}

TEST(Placement, LaptopNicOnTheOnlyNode) {
  Topology t = load("laptop.xml");
  Placement wifi = decide_placement(t, BindPolicy::nic, 1, 2, "wlp2s0");
  EXPECT_EQ(wifi.applied, BindPolicy::nic);
  EXPECT_EQ(wifi.cpuset.to_list(), "2-3");
  EXPECT_EQ(decide_placement(t, BindPolicy::nic, 0, 1, "mlx5_0").applied, BindPolicy::core);
}

TEST(Placement, BadLocalRankBindsNothing) {
  Topology t = load("two_socket_nic.xml");
  for (auto [rank, size] : {std::pair{4, 4}, std::pair{-1, 2}, std::pair{0, 0}}) {
    Placement p = decide_placement(t, BindPolicy::core, rank, size);
    EXPECT_TRUE(p.cpuset.empty());
    EXPECT_EQ(p.applied, BindPolicy::none);
    EXPECT_NE(p.reason.find("bad local rank"), std::string::npos) << p.reason;
  }
}

}  // namespace
}  // namespace rcoll::topology
