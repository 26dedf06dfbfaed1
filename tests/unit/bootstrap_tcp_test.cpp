// TCP bootstrap server + client, ranks as threads over loopback: joins,
// barrier, timeouts that name the missing ranks, a silent client, a server
// that starts late, a rank lost during a barrier. The key-value store:
// store_contract_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "bootstrap/tcp_client.hpp"
#include "bootstrap/tcp_server.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::bootstrap {
namespace {

using namespace std::chrono_literals;
using Outcome = BootstrapServer::Outcome;

Deadline soon() { return Deadline::after(10s); }

BootstrapServer::Config config_for(int size, std::chrono::milliseconds join_timeout = 10s) {
  BootstrapServer::Config config;
  config.size = size;
  config.job_token = "secret-token";
  config.join_timeout = join_timeout;
  return config;
}

JoinRequest request_for(const BootstrapServer& server, int rank, int size) {
  return JoinRequest{server.address(), "secret-token", rank, size, "blob-" + std::to_string(rank)};
}

// The server's run() ends on its own thread; wait (bounded) until it did.
Outcome wait_for_outcome(const BootstrapServer& server, std::chrono::milliseconds limit = 5s) {
  auto deadline = Deadline::after(limit);
  while (server.outcome() == Outcome::serving && !deadline.expired()) std::this_thread::sleep_for(5ms);
  return server.outcome();
}

class TcpJoin : public ::testing::TestWithParam<int> {};

TEST_P(TcpJoin, EveryRankGetsAllMembers) {
  const int size = GetParam();
  BootstrapServer server(config_for(size));
  server.start();
  test::run_ranks(size, [&](int rank) {
    auto boot = join_tcp(request_for(server, rank, size), soon());
    EXPECT_EQ(boot->rank(), rank);
    EXPECT_EQ(boot->size(), size);
    ASSERT_EQ(boot->members().size(), static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(boot->members()[static_cast<std::size_t>(r)].address, "127.0.0.1");
      EXPECT_EQ(boot->members()[static_cast<std::size_t>(r)].blob, "blob-" + std::to_string(r));
    }
  });
  // Every rank disconnected after the job formed: the job completed.
  EXPECT_EQ(wait_for_outcome(server), Outcome::completed) << server.failure();
}

INSTANTIATE_TEST_SUITE_P(Sizes, TcpJoin, ::testing::Values(1, 2, 3, 5, 8));

TEST(TcpBootstrap, BarrierSeparatesPhases) {
  const int size = 4;
  BootstrapServer server(config_for(size));
  server.start();
  std::atomic<int> arrived{0};
  test::run_ranks(size, [&](int rank) {
    auto boot = join_tcp(request_for(server, rank, size), soon());
    for (int round = 1; round <= 3; ++round) {
      if (rank == round % size) std::this_thread::sleep_for(20ms);  // a late rank each round
      arrived.fetch_add(1);
      boot->barrier(soon());
      EXPECT_GE(arrived.load(), round * size) << "rank " << rank << " left barrier " << round << " early";
      boot->barrier(soon());
    }
  });
}

TEST(TcpBootstrap, BarrierTimeoutNamesTheLateRank) {
  BootstrapServer server(config_for(3));
  server.start();
  test::run_ranks(3, [&](int rank) {
    auto boot = join_tcp(request_for(server, rank, 3), soon());
    if (rank == 2) {
      std::this_thread::sleep_for(800ms);  // never enters, but stays connected past the others' deadline
      return;
    }
    try {
      boot->barrier(Deadline::after(400ms));
      ADD_FAILURE() << "barrier completed without rank 2";
    } catch (const TimeoutError& error) {
      EXPECT_EQ(error.waiting_for(), std::vector<int>{2}) << error.what();
    }
  });
}

TEST(TcpBootstrap, RankLostDuringABarrierIsNamed) {
  BootstrapServer server(config_for(2));
  server.start();
  test::run_ranks(2, [&](int rank) {
    auto boot = join_tcp(request_for(server, rank, 2), soon());
    if (rank == 1) return;  // disconnects without entering the barrier
    auto start = std::chrono::steady_clock::now();
    try {
      boot->barrier(soon());
      ADD_FAILURE() << "barrier completed without rank 1";
    } catch (const IoError& error) {
      EXPECT_EQ(error.peer(), 1) << error.what();
      EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // told, not timed out
    }
  });
}

TEST(TcpBootstrap, MissingRankTimeoutNamesIt) {
  BootstrapServer server(config_for(3));
  server.start();
  test::run_ranks(2, [&](int rank) {
    try {
      join_tcp(request_for(server, rank, 3), Deadline::after(600ms));
      ADD_FAILURE() << "job formed without rank 2";
    } catch (const TimeoutError& error) {
      EXPECT_EQ(error.waiting_for(), std::vector<int>{2}) << error.what();
      EXPECT_NE(std::string(error.what()).find("never joined: 2"), std::string::npos) << error.what();
    }
  });
  EXPECT_EQ(wait_for_outcome(server), Outcome::join_timed_out);
  EXPECT_EQ(server.failed_ranks(), std::vector<int>{2});
}

TEST(TcpBootstrap, ServerJoinTimeoutAnswersTheJoinedRanks) {
  BootstrapServer server(config_for(4, 400ms));
  server.start();
  test::run_ranks(2, [&](int rank) {
    try {
      join_tcp(request_for(server, rank * 2, 4), soon());  // ranks 0 and 2 join
      ADD_FAILURE() << "job formed without ranks 1 and 3";
    } catch (const TimeoutError& error) {
      EXPECT_EQ(error.waiting_for(), (std::vector<int>{1, 3})) << error.what();
    }
  });
  EXPECT_EQ(wait_for_outcome(server), Outcome::join_timed_out);
  EXPECT_EQ(server.failed_ranks(), (std::vector<int>{1, 3}));
  EXPECT_NE(server.failure().find("1, 3"), std::string::npos) << server.failure();
}

TEST(TcpBootstrap, SilentClientDoesNotBlockOthers) {
  BootstrapServer server(config_for(2));
  server.start();
  auto where = net::parse_host_port(server.address());
  int error = 0;
  UniqueFd silent = net::connect_nonblocking(net::resolve_ipv4(where.host, where.port), error);
  ASSERT_TRUE(silent.valid()) << net::errno_text(error);
  auto start = std::chrono::steady_clock::now();
  test::run_ranks(2, [&](int rank) { join_tcp(request_for(server, rank, 2), soon())->barrier(soon()); });
  // Far below the 10 s the server gives a client to send its JOIN.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s) << "the ranks waited for the silent client";
  // Once the job is over the silent client is told so and dropped.
  ASSERT_NE(net::wait_fd(silent.get(), POLLIN, Deadline::after(3s)), 0);
  char buffer[256];
  EXPECT_GT(::recv(silent.get(), buffer, sizeof(buffer), 0), 0);  // the ERROR frame
  EXPECT_EQ(wait_for_outcome(server), Outcome::completed);
}

TEST(TcpBootstrap, RanksMayStartBeforeTheServer) {
  // Find a free port, release it, and start the server there only later.
  std::string address;
  {
    UniqueFd probe = net::listen_on("127.0.0.1", 0);
    address = net::local_address(probe.get());
  }
  auto config = config_for(2);
  config.listen = address;
  std::unique_ptr<BootstrapServer> server;
  std::thread late_server([&] {
    std::this_thread::sleep_for(200ms);
    server = std::make_unique<BootstrapServer>(config);
    server->start();
  });
  test::run_ranks(2, [&](int rank) {
    auto boot = join_tcp(JoinRequest{address, "secret-token", rank, 2, "b"}, soon());
    EXPECT_EQ(boot->members().size(), 2u);
  });
  late_server.join();
}

TEST(TcpBootstrap, ServerNamedByHostname) {
  BootstrapServer server(config_for(1));
  server.start();
  auto port = net::parse_host_port(server.address()).port;
  auto boot = join_tcp(JoinRequest{"localhost:" + std::to_string(port), "secret-token", 0, 1, "b"}, soon());
  EXPECT_EQ(boot->members()[0].address, "127.0.0.1");
  EXPECT_THROW(join_tcp(JoinRequest{"no-such-host.invalid:1", "t", 0, 1, ""}, soon()), InvalidArgument);
  EXPECT_THROW(join_tcp(JoinRequest{"127.0.0.1", "t", 0, 1, ""}, soon()), InvalidArgument);  // no port
}

TEST(TcpBootstrap, NoServerTimesOut) {
  std::string address;
  {
    UniqueFd probe = net::listen_on("127.0.0.1", 0);
    address = net::local_address(probe.get());
  }
  auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(join_tcp(JoinRequest{address, "t", 0, 1, ""}, Deadline::after(300ms)), TimeoutError);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
}

TEST(TcpBootstrap, PortInUseNamesTheAddressTheHostingRankAndTheHolder) {
  BootstrapServer first(config_for(1));
  auto config = config_for(1);
  config.listen = first.address();
  config.host_rank = 0;
  try {
    BootstrapServer second(config);
    ADD_FAILURE() << "bound a port in use";
  } catch (const IoError& error) {
    std::string what = error.what();
    EXPECT_EQ(error.rank(), 0) << what;
    EXPECT_NE(what.find(first.address()), std::string::npos) << what;
    // This process holds it; /proc says so.
    std::string port = first.address().substr(first.address().rfind(':') + 1);
    EXPECT_NE(what.find("port " + port + " is in use by pid " + std::to_string(::getpid()) + " ("),
              std::string::npos)
        << what;
  }
}

TEST(TcpBootstrap, StopEndsAServerWithoutAJob) {
  BootstrapServer server(config_for(3));
  server.start();
  server.stop();
  EXPECT_EQ(wait_for_outcome(server), Outcome::stopped);
}

}  // namespace
}  // namespace rcoll::bootstrap
