// Placement on the real host: memory bound to a NUMA node lands there, a
// bound thread runs where it was bound, apply_placement binds the process.
// This CI machine may have one NUMA node; the tests say so and still check
// what can be checked.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

#include "topology/apply.hpp"
#include "topology/binding.hpp"
#include "topology/numa_alloc.hpp"
#include "topology/topology.hpp"

namespace rcoll::topology {
namespace {

// Restores the process binding a test changed.
class ProcessBindingGuard {
 public:
  ProcessBindingGuard() : saved_(this_process_binding(this_machine())) {}
  ~ProcessBindingGuard() {
    if (!saved_.empty()) bind_this_process(this_machine(), saved_);
  }

 private:
  Bitmap saved_;
};

TEST(HostTopology, LoadsThisMachine) {
  const Topology& t = this_machine();
  EXPECT_TRUE(t.is_this_system());
  EXPECT_GE(t.numa_node_count(), 1);
  EXPECT_GE(t.pu_count(), 1);
  EXPECT_EQ(&t, &this_machine());  // loaded once
  std::cout << "this host: " << t.numa_node_count() << " NUMA node(s), " << t.core_count() << " core(s), "
            << t.pu_count() << " PU(s)" << (t.numa_node_count() == 1 ? " (single node: locality checks are trivial)" : "")
            << "\n";
}

TEST(HostNumaBuffer, PagesAreOnTheChosenNode) {
  const Topology& t = this_machine();
  for (unsigned node : t.numa_nodes()) {
    NumaBuffer buffer(t, 4 << 20, static_cast<int>(node));
    ASSERT_NE(buffer.data(), nullptr);
    std::memset(buffer.data(), 0x5a, buffer.size());  // touch every page
    Bitmap where = memory_location(t, buffer.data(), buffer.size());
    std::cout << "node " << node << ": bound=" << buffer.bound() << " pages on {" << where.to_list() << "} "
              << buffer.fallback_reason() << "\n";
    if (buffer.bound()) {
      EXPECT_EQ(where.to_list(), std::to_string(node));
    } else {
      EXPECT_FALSE(buffer.fallback_reason().empty());
    }
  }
}

TEST(HostNumaBuffer, MissingNodeFallsBackToPlainMemory) {
  NumaBuffer buffer(this_machine(), 1 << 16, 999);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_FALSE(buffer.bound());
  EXPECT_NE(buffer.fallback_reason().find("no NUMA node 999"), std::string::npos) << buffer.fallback_reason();
  std::memset(buffer.data(), 1, buffer.size());
  EXPECT_EQ(static_cast<unsigned char*>(buffer.data())[buffer.size() - 1], 1);
}

TEST(HostNumaBuffer, MovesOwnership) {
  NumaBuffer first(this_machine(), 8192, 0);
  void* data = first.data();
  NumaBuffer second(std::move(first));
  EXPECT_EQ(second.data(), data);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): the contract under test
  EXPECT_EQ(first.size(), 0u);
  NumaBuffer third;
  third = std::move(second);
  EXPECT_EQ(third.data(), data);
  EXPECT_EQ(third.size(), 8192u);
  EXPECT_EQ(NumaBuffer(this_machine(), 0, 0).data(), nullptr);
}

TEST(HostBinding, ThreadRunsWhereItIsBound) {
  const Topology& t = this_machine();
  Bitmap allowed = this_thread_binding(t);
  ASSERT_FALSE(allowed.empty());
  unsigned pu = static_cast<unsigned>(allowed.first());
  Bitmap target = Bitmap::from_list(std::to_string(pu));
  std::string error;
  std::string after;
  int cpu = -1;
  std::thread worker([&] {
    BindResult result = bind_this_thread(t, target);
    error = result.error;
    after = this_thread_binding(t).to_list();
    cpu = sched_getcpu();
  });
  worker.join();
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_EQ(after, std::to_string(pu));
  EXPECT_EQ(cpu, static_cast<int>(pu));
  EXPECT_EQ(this_thread_binding(t), allowed);  // only the worker was bound
}

TEST(HostBinding, RefusesEmptySetsAndForeignTopologies) {
  EXPECT_FALSE(bind_this_thread(this_machine(), Bitmap()).ok);
  std::string xml = (std::filesystem::path(__FILE__).parent_path().parent_path() / "data/topologies/laptop.xml").string();
  Topology laptop = Topology::load_xml(xml);
  BindResult result = bind_this_thread(laptop, Bitmap::from_list("0"));
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.error.find("does not describe this machine"), std::string::npos) << result.error;
}

TEST(HostApply, CoreBindsTheProcessToOneCore) {
  ProcessBindingGuard guard;
  PlacementReport report = apply_placement(BindPolicy::core, 0, 1);
  ASSERT_TRUE(report.bound) << report.bind_error;
  EXPECT_EQ(report.binding, report.placement.cpuset);
  EXPECT_EQ(this_process_binding(this_machine()), report.placement.cpuset);
  EXPECT_GE(report.placement.numa_node, 0);
  std::string line = report.summary(0, 0, 1);
  EXPECT_NE(line.find("rank 0 (local 0/1): bind=core cpuset=" + report.binding.to_list()), std::string::npos) << line;
}

TEST(HostApply, NoneLeavesTheBindingAlone) {
  Bitmap before = this_process_binding(this_machine());
  PlacementReport report = apply_placement(BindPolicy::none, 0, 1, "rxe0");
  EXPECT_FALSE(report.bound);
  EXPECT_EQ(report.binding, before);
  EXPECT_NE(report.summary(2, 0, 1).find("device=rxe0 (numa unknown)"), std::string::npos) << report.summary(2, 0, 1);
}

TEST(HostApply, ReportsAndFallsBack) {
  ProcessBindingGuard guard;
  PlacementReport report = apply_placement(BindPolicy::nic, 0, 1, "no_such_nic0");
  testing::internal::CaptureStderr();
  print_bindings(report, 5, 0, 1);
  std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(report.placement.applied, BindPolicy::core);
  EXPECT_NE(printed.find("rcoll bindings: rank 5 (local 0/1): bind=core"), std::string::npos) << printed;
  EXPECT_NE(printed.find("requested nic: nic -> core: no hwloc locality for no_such_nic0"), std::string::npos)
      << printed;
}

}  // namespace
}  // namespace rcoll::topology
