// Options from the launcher environments rcoll understands.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "comm/environment.hpp"
#include "rcoll/errors.hpp"
#include "support/scoped_env.hpp"

namespace rcoll::comm {
namespace {

// Clears every variable rcoll reads, sets the given ones, restores all on exit.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& values) {
    for (const char* name : known) {
      if (const char* old = std::getenv(name)) saved_[name] = old;
      unsetenv(name);
    }
    for (const auto& [name, value] : values) setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (const char* name : known) unsetenv(name);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  static constexpr const char* known[] = {
      "RCOLL_RANK", "RCOLL_SIZE", "RCOLL_LOCAL_RANK", "RCOLL_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE",
      "OMPI_COMM_WORLD_LOCAL_SIZE", "LOCAL_WORLD_SIZE", "RCOLL_BOOTSTRAP", "RCOLL_BOOTSTRAP_SERVE",
      "RCOLL_JOB_TOKEN", "RCOLL_TRANSPORT", "RCOLL_TIMEOUT", "RCOLL_SOCKET_IFNAME", "RCOLL_ALLREDUCE_ALGO",
      "RCOLL_BCAST_ALGO", "RCOLL_SEGMENT_BYTES", "RCOLL_CHECK", "RCOLL_PROGRESS", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "RANK", "WORLD_SIZE",
      "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
      "TORCHELASTIC_USE_AGENT_STORE"};
  std::map<std::string, std::string> saved_;
};

TEST(EnvOptions, NoLauncherIsASingleRankJob) {
  ScopedEnv env({});
  Options o = options_from_env();
  EXPECT_EQ(o.rank, 0);
  EXPECT_EQ(o.size, 1);
  EXPECT_TRUE(o.bootstrap.empty());
  EXPECT_FALSE(o.host_bootstrap);
}

TEST(EnvOptions, RcollRunVariables) {
  ScopedEnv env({{"RCOLL_RANK", "2"}, {"RCOLL_SIZE", "5"}, {"RCOLL_LOCAL_RANK", "1"}, {"RCOLL_LOCAL_SIZE", "3"},
                 {"RCOLL_BOOTSTRAP", "127.0.0.1:4000"}, {"RCOLL_JOB_TOKEN", "secret"},
                 {"RCOLL_TRANSPORT", "tcp"}, {"RCOLL_TIMEOUT", "2.5"}, {"RCOLL_ALLREDUCE_ALGO", "ring"},
                 {"RCOLL_BCAST_ALGO", "chain"}, {"RCOLL_SEGMENT_BYTES", "4096"}, {"RCOLL_SOCKET_IFNAME", "lo"}});
  Options o = options_from_env();
  EXPECT_EQ(o.rank, 2);
  EXPECT_EQ(o.size, 5);
  EXPECT_EQ(o.local_rank, 1);
  EXPECT_EQ(o.local_size, 3);
  EXPECT_EQ(o.bootstrap, "127.0.0.1:4000");
  EXPECT_FALSE(o.host_bootstrap);
  EXPECT_EQ(o.job_token, "secret");
  EXPECT_EQ(o.transport, TransportKind::tcp);
  EXPECT_EQ(o.timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(o.allreduce_algo, AllreduceAlgo::ring);
  EXPECT_EQ(o.bcast_algo, BcastAlgo::chain);
  EXPECT_EQ(o.segment_bytes, 4096u);
  EXPECT_EQ(o.socket_ifname, "lo");
}

TEST(EnvOptions, SegmentBytesTakesASizeSuffix) {
  for (auto [text, bytes] : {std::pair{"512K", 524288u}, {"1M", 1048576u}, {"65536", 65536u}}) {
    ScopedEnv env(std::map<std::string, std::string>{{"RCOLL_SEGMENT_BYTES", text}});
    EXPECT_EQ(options_from_env().segment_bytes, bytes) << text;
  }
}

TEST(EnvOptions, SlurmVariables) {
  ScopedEnv env({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "3"},
                 {"RCOLL_BOOTSTRAP", "node1:5000"}});
  Options o = options_from_env();
  EXPECT_EQ(o.rank, 3);
  EXPECT_EQ(o.size, 8);
  EXPECT_EQ(o.local_rank, 3);
  EXPECT_EQ(o.bootstrap, "node1:5000");
}

TEST(EnvOptions, OpenMpiVariables) {
  ScopedEnv env({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                 {"OMPI_COMM_WORLD_LOCAL_RANK", "0"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                 {"RCOLL_BOOTSTRAP", "h:1"}});
  Options o = options_from_env();
  EXPECT_EQ(o.local_size, 2);
  EXPECT_EQ(o.rank, 1);
  EXPECT_EQ(o.size, 2);
  EXPECT_EQ(o.local_rank, 0);
}

TEST(EnvOptions, TorchrunVariablesMakeRankZeroHostTheService) {
  {
    ScopedEnv env({{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}, {"MASTER_ADDR", "127.0.0.1"},
                   {"MASTER_PORT", "29500"}});
    Options o = options_from_env();
    EXPECT_EQ(o.bootstrap, "127.0.0.1:29500");
    EXPECT_TRUE(o.host_bootstrap);
  }
  {
    ScopedEnv env({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}});
    Options o = options_from_env();
    EXPECT_EQ(o.rank, 3);
    EXPECT_FALSE(o.host_bootstrap);
  }
}

// torchrun's agent serves its TCPStore at MASTER_ADDR:MASTER_PORT (static
// rendezvous): every rank joins through it, none hosts rcoll's service.
TEST(EnvOptions, TorchrunWithItsAgentsStoreJoinsThroughIt) {
  for (const char* rank : {"0", "1"}) {
    ScopedEnv env({{"RANK", rank}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"},
                   {"TORCHELASTIC_RUN_ID", "job7"}, {"TORCHELASTIC_RESTART_COUNT", "2"},
                   {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
    Options o = options_from_env();
    EXPECT_TRUE(o.bootstrap.empty()) << o.bootstrap;
    EXPECT_FALSE(o.host_bootstrap);
    auto store = torchrun_store_from_env(o.rank);
    ASSERT_TRUE(store.has_value());
    EXPECT_EQ(store->address, "127.0.0.1:29500");
    EXPECT_EQ(store->prefix, "rcoll/job7/2/") << "a restarted worker group gets keys of its own";
  }
  ScopedEnv env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"},
                 {"TORCHELASTIC_RUN_ID", "none"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
  EXPECT_EQ(torchrun_store_from_env(0)->prefix, "rcoll/none/0/") << "no restart count: the first group";
}

// Under torchrun's c10d rendezvous nothing serves MASTER_PORT: rank 0 hosts
// rcoll's service there; RCOLL_BOOTSTRAP always names rcoll's service.
TEST(EnvOptions, TorchrunWithoutItsAgentsStoreOrWithRcollBootstrapHostsRcollsService) {
  {
    ScopedEnv env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "localhost"}, {"MASTER_PORT", "4100"},
                   {"TORCHELASTIC_RUN_ID", "none"}, {"TORCHELASTIC_USE_AGENT_STORE", "False"}});
    Options o = options_from_env();
    EXPECT_EQ(o.bootstrap, "localhost:4100");
    EXPECT_TRUE(o.host_bootstrap);
    EXPECT_FALSE(torchrun_store_from_env(0).has_value());
  }
  {
    ScopedEnv env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"},
                   {"TORCHELASTIC_RUN_ID", "none"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                   {"RCOLL_BOOTSTRAP", "node1:5000"}});
    Options o = options_from_env();
    EXPECT_EQ(o.bootstrap, "node1:5000");
    EXPECT_FALSE(torchrun_store_from_env(0).has_value());
  }
}

TEST(EnvOptions, TorchrunStoreErrorsNameTheRankAndTheVariable) {
  auto expect_invalid = [](std::map<std::string, std::string> values, const std::string& needle) {
    values.insert({{"TORCHELASTIC_RUN_ID", "none"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"}});
    ScopedEnv env(values);
    try {
      torchrun_store_from_env(1);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid({}, "rank 1: TORCHELASTIC_USE_AGENT_STORE=True (torchrun) but MASTER_ADDR is not set");
  expect_invalid({{"MASTER_ADDR", "h"}}, "rank 1: MASTER_ADDR is set but MASTER_PORT is not");
  expect_invalid({{"MASTER_ADDR", "h"}, {"MASTER_PORT", "x"}}, "rank 1: MASTER_PORT='x'");
  expect_invalid({{"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}, {"TORCHELASTIC_RESTART_COUNT", "-1"}},
                 "rank 1: TORCHELASTIC_RESTART_COUNT='-1'");
}

TEST(EnvOptions, RcollVariablesWinOverOtherLaunchers) {
  ScopedEnv env({{"RCOLL_RANK", "1"}, {"RCOLL_SIZE", "2"}, {"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "9"}});
  Options o = options_from_env();
  EXPECT_EQ(o.rank, 1);
  EXPECT_EQ(o.size, 2);
}

TEST(EnvOptions, MalformedValuesNameTheVariable) {
  auto expect_invalid = [](const std::map<std::string, std::string>& values, const std::string& needle) {
    ScopedEnv env(values);
    try {
      options_from_env();
      ADD_FAILURE() << "no error for " << needle;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("rank ", 0), 0u) << "no rank in front: " << e.what();
    }
  };
  expect_invalid({{"RCOLL_RANK", "x"}, {"RCOLL_SIZE", "2"}}, "rank unknown: RCOLL_RANK='x'");
  expect_invalid({{"RCOLL_RANK", "1"}}, "rank unknown: set both RCOLL_RANK and RCOLL_SIZE");
  expect_invalid({{"RCOLL_RANK", "1"}, {"RCOLL_SIZE", "two"}}, "rank 1: RCOLL_SIZE='two'");
  expect_invalid({{"RCOLL_RANK", "2"}, {"RCOLL_SIZE", "4"}, {"RCOLL_TIMEOUT", "-1"}}, "rank 2: RCOLL_TIMEOUT='-1'");
  expect_invalid({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"RCOLL_TRANSPORT", "x"}}, "rank 3: unknown transport 'x'");
  expect_invalid({{"RCOLL_TIMEOUT", "-1"}}, "rank 0: RCOLL_TIMEOUT");
  expect_invalid({{"RCOLL_TIMEOUT", "soon"}}, "RCOLL_TIMEOUT");
  expect_invalid({{"RCOLL_TRANSPORT", "carrier-pigeon"}}, "carrier-pigeon");
  expect_invalid({{"RCOLL_ALLREDUCE_ALGO", "magic"}}, "magic");
  expect_invalid({{"RCOLL_BCAST_ALGO", "magic"}}, "magic");
  expect_invalid({{"RCOLL_SEGMENT_BYTES", "0"}}, "RCOLL_SEGMENT_BYTES");
  // Below a page a segment's overhead outweighs its payload (options.hpp, min_segment_bytes).
  expect_invalid({{"RCOLL_SEGMENT_BYTES", "1"}}, "RCOLL_SEGMENT_BYTES='1': expected a byte count of at least 4096");
  expect_invalid({{"RCOLL_SEGMENT_BYTES", "4095"}}, "RCOLL_SEGMENT_BYTES");
  expect_invalid({{"RCOLL_SEGMENT_BYTES", "1.5M"}}, "RCOLL_SEGMENT_BYTES");
  expect_invalid({{"RCOLL_SEGMENT_BYTES", "-4K"}}, "RCOLL_SEGMENT_BYTES");
  expect_invalid({{"MASTER_ADDR", "h"}}, "MASTER_PORT");
  expect_invalid({{"RCOLL_CHECK", "yes"}}, "RCOLL_CHECK");
  expect_invalid({{"RCOLL_PROGRESS", "threads"}}, "progress mode 'threads' (expected caller or thread)");
}

TEST(EnvOptions, ProgressIsTheCallersUnlessRcollProgressIsThread) {
  {
    ScopedEnv env(std::map<std::string, std::string>{});
    EXPECT_EQ(options_from_env().progress, Progress::caller);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"RCOLL_PROGRESS", "thread"}});
    EXPECT_EQ(options_from_env().progress, Progress::thread);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"RCOLL_PROGRESS", "caller"}});
    EXPECT_EQ(options_from_env().progress, Progress::caller);
  }
}

TEST(EnvOptions, CheckIsOffUnlessRcollCheckIsOne) {
  {
    ScopedEnv env(std::map<std::string, std::string>{});
    EXPECT_FALSE(options_from_env().check);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"RCOLL_CHECK", "1"}});
    EXPECT_TRUE(options_from_env().check);
  }
  {
    ScopedEnv env(std::map<std::string, std::string>{{"RCOLL_CHECK", "0"}});
    EXPECT_FALSE(options_from_env().check);
  }
}

// ------------------------------------------------------------ process settings

TEST(EnvProcess, LogStatusAndTcpSendBuffer) {
  test::ScopedEnv log("RCOLL_LOG", "debug"), status("RCOLL_STATUS_SIGNAL", "1"), sndbuf("RCOLL_TCP_SNDBUF", "2M");
  const ProcessSettings s = process_settings_from_env(0);
  EXPECT_EQ(s.log_level, "debug");
  EXPECT_TRUE(s.status_signal);
  EXPECT_EQ(s.tcp_send_buffer, std::size_t{2} << 20);
}

TEST(EnvProcess, UnsetMeansDefaults) {
  test::ScopedEnv log("RCOLL_LOG", nullptr), status("RCOLL_STATUS_SIGNAL", nullptr), sndbuf("RCOLL_TCP_SNDBUF", nullptr);
  const ProcessSettings s = process_settings_from_env(0);
  EXPECT_FALSE(s.log_level.has_value());
  EXPECT_FALSE(s.status_signal);
  EXPECT_FALSE(s.tcp_send_buffer.has_value());
}

TEST(EnvProcess, AMalformedValueNamesTheRankAndTheVariable) {
  test::ScopedEnv sndbuf("RCOLL_TCP_SNDBUF", "lots");
  try {
    process_settings_from_env(5);
    ADD_FAILURE() << "RCOLL_TCP_SNDBUF=lots was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rank 5: RCOLL_TCP_SNDBUF='lots'", 0), 0u) << e.what();
  }
  test::ScopedEnv unset("RCOLL_TCP_SNDBUF", nullptr), cm("RCOLL_IB_CM", "tcp");
  try {
    process_settings_from_env(2);
    ADD_FAILURE() << "RCOLL_IB_CM=tcp was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rank 2: RCOLL_IB_CM='tcp'", 0), 0u) << e.what();
  }
}

TEST(EnvPlacement, PolicyReportAndDevice) {
  Options options;
  options.socket_ifname = "eth7";
  {
    test::ScopedEnv bind("RCOLL_BIND", "nic"), report("RCOLL_REPORT_BINDINGS", "yes"), dev("RCOLL_IB_DEV", nullptr);
    const PlacementRequest r = placement_from_env(options);
    EXPECT_EQ(r.policy, topology::BindPolicy::nic);
    EXPECT_TRUE(r.report);
    EXPECT_EQ(r.device, "eth7");
  }
  {
    // An unknown policy is warned about and not applied; the RDMA device wins over the interface.
    test::ScopedEnv bind("RCOLL_BIND", "socket"), report("RCOLL_REPORT_BINDINGS", nullptr), dev("RCOLL_IB_DEV", "mlx5_0");
    const PlacementRequest r = placement_from_env(options);
    EXPECT_EQ(r.policy, topology::BindPolicy::none);
    EXPECT_FALSE(r.report);
    EXPECT_EQ(r.device, "mlx5_0");
  }
}

// ------------------------------------------------------------ RCOLL_IB_*

using EnvVar = test::ScopedEnv;

TEST(EnvRdma, EnvironmentIsParsed) {
  EnvVar a("RCOLL_IB_DEV", "mlx5_1"), b("RCOLL_IB_PORT", "2"), c("RCOLL_IB_GID_INDEX", "3"),
      d("RCOLL_IB_CM", "rdmacm"), e("RCOLL_IB_POLL", "event"), f("RCOLL_IB_EAGER_LIMIT", "4K"),
      g("RCOLL_IB_CHUNK", "1M"), h("RCOLL_IB_MR_CACHE", "0"), i("RCOLL_IB_DISCOVERY_MS", "0"),
      j("RCOLL_IB_KEEPALIVE_MS", "250");
  transport::rdma::RdmaOptions o = rdma_options_from_env();
  EXPECT_EQ(o.device, "mlx5_1");
  EXPECT_EQ(o.port, 2);
  EXPECT_EQ(o.gid_index, 3);
  EXPECT_EQ(o.connect, transport::rdma::ConnectMode::rdmacm);
  EXPECT_EQ(o.poll, transport::rdma::PollMode::event);
  EXPECT_EQ(o.eager_limit, 4096u);
  EXPECT_EQ(o.chunk_bytes, 1u << 20);
  EXPECT_FALSE(o.mr_cache);
  EXPECT_EQ(o.discovery_interval.count(), 0);
  EXPECT_EQ(o.keepalive_interval.count(), 250);
}

TEST(EnvRdma, BadValuesAreInvalidArguments) {
  for (auto [name, value] : {std::pair{"RCOLL_IB_PORT", "0"}, {"RCOLL_IB_PORT", "1x"}, {"RCOLL_IB_CM", "tcp"},
                             {"RCOLL_IB_EAGER_LIMIT", "8Q"}, {"RCOLL_IB_EAGER_LIMIT", "2G"},
                             {"RCOLL_IB_CHUNK", "100"}, {"RCOLL_IB_RING_SLOTS", "2"},
                             {"RCOLL_IB_KEEPALIVE_MS", "-1"}}) {
    EnvVar var(name, value);
    EXPECT_THROW(rdma_options_from_env(), InvalidArgument) << name << "=" << value;
  }
}

}  // namespace
}  // namespace rcoll::comm
