// Every way the TCP bootstrap server refuses a client: a client that proved
// the job token sees the precise reason and the server logs it with the
// client's address; one that did not gets at most a reason that tells
// nothing about the job (or is closed silently) and is only counted in the
// server's rate-limited summary; the good ranks still form their job
// afterwards. Hostile bytes go over a plain socket (RawClient).
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <optional>
#include <thread>

#include "bootstrap/messages.hpp"
#include "bootstrap/tcp_client.hpp"
#include "bootstrap/tcp_server.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"
#include "support/captured_log.hpp"
#include "support/raw_bootstrap_client.hpp"
#include "support/run_ranks.hpp"

namespace rcoll::bootstrap {
namespace {

using namespace std::chrono_literals;
using wire::ErrorCode;

Deadline soon() { return Deadline::after(10s); }
const std::string token = "secret-token";

using RawClient = test::RawBootstrapClient;

class BootstrapRefusal : public ::testing::Test {
 protected:
  static constexpr int size = 2;

  BootstrapRefusal() : server_(make_config()) { server_.start(); }

  static BootstrapServer::Config make_config() {
    BootstrapServer::Config config;
    config.size = size;
    config.job_token = token;
    config.io_timeout = 500ms;
    config.hello_timeout = 500ms;
    return config;
  }
  JoinRequest request(int rank) const {
    JoinRequest join{server_.address(), token, rank, size, "b"};
    join.blob += std::to_string(rank);
    return join;
  }
  static wire::JoinMessage join_message(std::uint32_t join_size, std::uint32_t rank) {
    return wire::JoinMessage{{}, {}, join_size, rank, 1000, ""};
  }

  // After any refusal the good ranks must still form their job.
  void expect_job_forms() {
    test::run_ranks(size, [&](int rank) {
      auto boot = join_tcp(request(rank), soon());
      EXPECT_EQ(boot->members().size(), static_cast<std::size_t>(size));
      boot->barrier(soon());
    });
  }
  // The reason (code and text) a raw client gets for `bytes`. A JOIN with a
  // right proof is ACCEPTED before it is refused.
  void expect_raw_refusal(RawClient& client, const std::string& bytes, ErrorCode code, const std::string& text,
                          bool proven = false) {
    client.send(bytes);
    if (proven) client.expect_frame(wire::MessageType::accepted);
    auto error = client.read_error();
    EXPECT_EQ(error.code, code) << error.text;
    EXPECT_NE(error.text.find(text), std::string::npos) << error.text;
    EXPECT_TRUE(client.closed_by_server());
  }
  void expect_raw_refusal(const std::string& bytes, ErrorCode code, const std::string& text) {
    RawClient client(server_.address());
    expect_raw_refusal(client, bytes, code, text);
  }
  // What ends without an answer: the connection is closed, nothing said.
  void expect_silent_close(const std::string& bytes) {
    RawClient client(server_.address());
    client.send(bytes);
    EXPECT_TRUE(client.closed_silently());
  }
  // The server's summary of unauthenticated connections, once it has ended.
  void wait_until_served() {
    auto deadline = Deadline::after(10s);
    while (server_.outcome() == BootstrapServer::Outcome::serving && !deadline.expired())
      std::this_thread::sleep_for(5ms);
  }
  void expect_join_refused(const JoinRequest& bad, const std::string& reason) {
    try {
      join_tcp(bad, soon());
      ADD_FAILURE() << "join was not refused";
    } catch (const InvalidArgument& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
  }

  BootstrapServer server_;
};

TEST_F(BootstrapRefusal, WrongTokenIsRefusedWithoutJobDetailsAndCountedNotLogged) {
  std::string logged;
  {
    test::CapturedLog log(spdlog::level::warn);
    auto bad = request(0);
    bad.job_token = "guess";
    expect_join_refused(bad, "wrong job token (RCOLL_JOB_TOKEN differs from the service's)");
    expect_job_forms();
    wait_until_served();
    logged = log.text();
  }
  // No line of its own; the summary counts it (and names no token).
  EXPECT_EQ(logged.find("refusing"), std::string::npos) << logged;
  EXPECT_NE(logged.find("dropped 1 connection that did not prove the job token in the last "), std::string::npos)
      << logged;
  EXPECT_NE(logged.find("(1 failed the token proof; 1 from 127.0.0.1; 1 since it opened)"), std::string::npos)
      << logged;
  EXPECT_EQ(logged.find("guess"), std::string::npos) << "the log must not show tokens";
}

TEST_F(BootstrapRefusal, AWrongProofHearsNeitherRankNorWorldSize) {
  RawClient client(server_.address());
  auto join = join_message(size, 1);
  join.proof = bootstrap::proofs::client_proof("guess", client.challenge(), join);
  client.send(wire::encode(join));
  auto error = client.read_error();
  EXPECT_EQ(error.code, ErrorCode::wrong_token);
  EXPECT_EQ(error.text, "authentication failed");
  EXPECT_TRUE(error.ranks.empty());
  EXPECT_TRUE(client.closed_by_server());
  expect_job_forms();
}

TEST_F(BootstrapRefusal, AJoinReplayedOnAnotherConnectionFailsItsProof) {
  RawClient first(server_.address());
  std::string recorded = first.proven_join(join_message(size, 0), token);
  RawClient second(server_.address());  // another challenge
  expect_raw_refusal(second, recorded, ErrorCode::wrong_token, "authentication failed");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, WorldSizeMismatch) {
  auto bad = request(0);
  bad.size = 3;
  expect_join_refused(bad, "world size mismatch");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, RankOutOfRange) {
  RawClient client(server_.address());
  expect_raw_refusal(client, client.proven_join(join_message(size, 5), token), ErrorCode::rank_out_of_range,
                     "rank 5 is out of range", true);
  // The client library refuses such a request before sending anything.
  auto bad = request(0);
  bad.rank = 7;
  EXPECT_THROW(join_tcp(bad, soon()), InvalidArgument);
  expect_job_forms();
}

TEST_F(BootstrapRefusal, DuplicateRank) {
  std::thread first([&] { EXPECT_EQ(join_tcp(request(0), soon())->members()[0].blob, "b0"); });
  auto deadline = Deadline::after(5s);
  while (server_.joined_ranks() < 1 && !deadline.expired()) std::this_thread::sleep_for(5ms);
  expect_join_refused(request(0), "duplicate rank");
  auto second = join_tcp(request(1), soon());  // completes the job with the first rank 0
  EXPECT_EQ(second->members()[1].blob, "b1");
  first.join();
}

TEST_F(BootstrapRefusal, VersionMismatch) {
  auto frame = wire::encode(join_message(size, 0));
  frame[4] = static_cast<char>(protocol_version + 1);  // version field, low byte
  expect_raw_refusal(frame, ErrorCode::version_mismatch, "version " + std::to_string(protocol_version + 1));
  expect_job_forms();
}

TEST_F(BootstrapRefusal, OversizedFrame) {
  wire::Writer header;
  header.u32(wire::frame_magic);
  header.u16(protocol_version);
  header.u16(static_cast<std::uint16_t>(wire::MessageType::join));
  header.u32(64u << 20);
  expect_raw_refusal(header.take(), ErrorCode::frame_too_large, "exceeds the limit");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, MalformedJoinIsClosedSilently) {
  expect_silent_close(wire::encode_frame(wire::MessageType::join, "abc"));
  expect_job_forms();
}

TEST_F(BootstrapRefusal, BadMagic) {
  expect_raw_refusal("GET / HTTP/1.0\r\n\r\n", ErrorCode::bad_magic, "bad magic");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, RequestBeforeJoinIsClosedSilently) {
  expect_silent_close(wire::encode(wire::BarrierMessage{1, 0, 100}));
  expect_job_forms();
}

TEST_F(BootstrapRefusal, ClientThatNeverCompletesAJoinIsClosedSilently) {
  RawClient silent(server_.address());
  RawClient partial(server_.address());
  partial.send(partial.proven_join(join_message(size, 0), token).substr(0, 15));
  // Both are closed once the hello_timeout (500 ms) passes, while the job is still forming.
  EXPECT_TRUE(silent.closed_silently());
  EXPECT_TRUE(partial.closed_silently());
  expect_job_forms();
}

TEST(BootstrapFailure, JoinedRankLostBeforeTheJobFormedIsNamed) {
  BootstrapServer::Config config;
  config.size = 3;
  config.job_token = token;
  BootstrapServer server(config);
  server.start();
  std::thread rank0([&] {
    try {
      join_tcp(JoinRequest{server.address(), token, 0, 3, ""}, soon());
      ADD_FAILURE() << "joined a job whose rank 1 was lost";
    } catch (const IoError& error) {
      EXPECT_EQ(error.peer(), 1) << error.what();
      EXPECT_NE(std::string(error.what()).find("before the job formed"), std::string::npos) << error.what();
    }
  });
  auto deadline = Deadline::after(5s);
  while (server.joined_ranks() < 1 && !deadline.expired()) std::this_thread::sleep_for(5ms);
  {
    RawClient quitter(server.address());
    quitter.send(quitter.proven_join(wire::JoinMessage{{}, {}, 3, 1, 10000, ""}, token));
    while (server.joined_ranks() < 2 && !deadline.expired()) std::this_thread::sleep_for(5ms);
  }  // rank 1 disconnects
  rank0.join();
  auto end = Deadline::after(5s);
  while (server.outcome() == BootstrapServer::Outcome::serving && !end.expired()) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server.outcome(), BootstrapServer::Outcome::rank_lost);
  EXPECT_EQ(server.failed_ranks(), std::vector<int>{1});
}

}  // namespace
}  // namespace rcoll::bootstrap
