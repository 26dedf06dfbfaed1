// Departed ranks: the bootstrap service records a rank whose connection
// closed after the job formed under the reserved key
// store::keys::departed(rank), which ranks waiting on that rank (the RDMA
// connector) poll; clients cannot write under that prefix. Real TCP server
// on 127.0.0.1, real clients as threads; and the in-memory rendezvous.
#include <gtest/gtest.h>

#include <chrono>
#include <latch>
#include <optional>
#include <thread>

#include "bootstrap/in_memory.hpp"
#include "bootstrap/tcp_client.hpp"
#include "bootstrap/tcp_server.hpp"
#include "rcoll/errors.hpp"
#include "store/keys.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::bootstrap {
namespace {

using namespace std::chrono_literals;

Deadline soon() { return Deadline::after(10s); }

BootstrapServer::Config config_for(int size) {
  BootstrapServer::Config config;
  config.size = size;
  config.job_token = "secret-token";
  config.join_timeout = 10s;
  return config;
}

JoinRequest request_for(const BootstrapServer& server, int rank, int size) {
  return JoinRequest{server.address(), "secret-token", rank, size, "blob-" + std::to_string(rank)};
}

// Why `rank` left the job, if the store recorded it already.
std::optional<std::string> departure(Bootstrap& boot, int rank) { return boot.try_get(store::keys::departed(rank)); }

// Polls departure(rank) until it reports one or `limit` passed.
std::optional<std::string> await_departure(Bootstrap& boot, int rank, std::chrono::milliseconds limit) {
  auto deadline = Deadline::after(limit);
  for (;;) {
    if (auto why = departure(boot, rank)) return why;
    if (deadline.expired()) return std::nullopt;
    std::this_thread::sleep_for(5ms);
  }
}

TEST(BootstrapDeparted, TheServiceRecordsARankWhoseConnectionClosed) {
  BootstrapServer server(config_for(3));
  server.start();
  std::latch joined(3);
  std::latch rank0_done(1);
  test::run_ranks(3, [&](int rank) {
    auto boot = join_tcp(request_for(server, rank, 3), soon());
    EXPECT_EQ(departure(*boot, 2), std::nullopt) << "rank 2 is still in the job";
    joined.arrive_and_wait();
    if (rank == 2) {
      std::this_thread::sleep_for(100ms);  // rank 1's blocking get is waiting by now
      return;                              // closes its connection
    }
    if (rank == 1) {
      // A GET already waiting for the record is answered when it is written.
      std::string why = boot->get(store::keys::departed(2), soon());
      EXPECT_NE(why.find("rank 2 (127.0.0.1:"), std::string::npos) << why;
      rank0_done.wait();  // stay in the job until rank 0 looked at rank 1
      return;
    }
    auto start = std::chrono::steady_clock::now();
    auto why = await_departure(*boot, 2, 5s);
    ASSERT_TRUE(why.has_value()) << "no departure recorded for rank 2";
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    EXPECT_NE(why->find("closed the connection"), std::string::npos) << *why;
    EXPECT_EQ(departure(*boot, 1), std::nullopt) << "rank 1 has not left";
    EXPECT_EQ(departure(*boot, 0), std::nullopt);
    rank0_done.count_down();
  });
}

TEST(BootstrapDeparted, ClientsCannotForgeOrPreemptADeparture) {
  BootstrapServer server(config_for(2));
  server.start();
  std::latch forged(2);
  test::run_ranks(2, [&](int rank) {
    auto boot = join_tcp(request_for(server, rank, 2), soon());
    if (rank == 1) {
      forged.arrive_and_wait();
      return;  // leaves after rank 0's attempts
    }
    for (const char* key : {"departed/1", "departed/0", "departed/", "departed/1/x"}) {
      try {
        boot->set(key, "forged", soon());
        ADD_FAILURE() << "the server accepted a PUT of the reserved key " << key;
      } catch (const InvalidArgument& error) {
        EXPECT_NE(std::string(error.what()).find("reserved"), std::string::npos) << error.what();
      }
    }
    EXPECT_EQ(departure(*boot, 1), std::nullopt) << "a refused set left a record";
    boot->set("departedness", "ordinary key", soon());  // only the prefix is reserved; the channel still works
    EXPECT_EQ(boot->get("departedness", soon()), "ordinary key");
    forged.arrive_and_wait();
    auto why = await_departure(*boot, 1, 5s);
    ASSERT_TRUE(why.has_value()) << "no departure recorded for rank 1";
    EXPECT_EQ(why->find("forged"), std::string::npos) << *why;
    EXPECT_NE(why->find("rank 1 (127.0.0.1:"), std::string::npos) << *why;
  });
}

TEST(BootstrapDeparted, InMemoryRecordsADestroyedRankAndRefusesTheReservedPrefix) {
  InMemoryRendezvous rendezvous(2);
  std::latch joined(2);
  std::latch gone(1);
  test::run_ranks(2, [&](int rank) {
    auto boot = rendezvous.join(rank, "blob", soon());
    joined.arrive_and_wait();
    if (rank == 1) {
      EXPECT_THROW(boot->set(store::keys::departed(0), "forged", soon()), InvalidArgument);
      boot.reset();
      gone.count_down();
      return;
    }
    gone.wait();
    auto why = departure(*boot, 1);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("rank 1"), std::string::npos) << *why;
    EXPECT_EQ(departure(*boot, 0), std::nullopt) << "rank 0 is still here; rank 1's forged record was refused";
  });
}

}  // namespace
}  // namespace rcoll::bootstrap
