// Every way the TCP bootstrap server refuses a client: the client sees the
// precise reason, the server logs it with the client's address, and the
// good ranks still form their job afterwards. Hostile bytes go over a plain
// socket (RawClient).
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
#include "support/run_ranks.hpp"

namespace rcoll::bootstrap {
namespace {

using namespace std::chrono_literals;
using wire::ErrorCode;

Deadline soon() { return Deadline::after(10s); }
const std::string token = "secret-token";

// A plain TCP client that sends whatever bytes a test wants.
class RawClient {
 public:
  explicit RawClient(const std::string& address) {
    auto where = net::parse_host_port(address);
    int error = 0;
    fd_ = net::connect_nonblocking(net::resolve_ipv4(where.host, where.port), error);
    EXPECT_TRUE(fd_.valid()) << net::errno_text(error);
    EXPECT_NE(net::wait_fd(fd_.get(), POLLOUT, soon()), 0);
  }
  void send(const std::string& bytes) {
    ASSERT_EQ(::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  }
  // The next frame from the server, or nullopt if it closed the connection.
  std::optional<wire::Frame> read_frame(Deadline deadline = soon()) {
    for (;;) {
      auto decoded = wire::decode_frame(in_, wire::max_answer_payload);
      if (decoded.status == wire::Decoded::Status::complete) {
        in_.erase(0, decoded.consumed);
        return decoded.frame;
      }
      if (net::wait_fd(fd_.get(), POLLIN, deadline) == 0) return std::nullopt;
      char buffer[4096];
      ssize_t n = ::recv(fd_.get(), buffer, sizeof(buffer), 0);
      if (n <= 0) return std::nullopt;
      in_.append(buffer, static_cast<std::size_t>(n));
    }
  }
  // The ERROR the server answered with; fails the test for anything else.
  wire::ErrorMessage read_error() {
    auto frame = read_frame();
    if (!frame || frame->type != static_cast<std::uint16_t>(wire::MessageType::error)) {
      ADD_FAILURE() << "expected an ERROR frame";
      return {};
    }
    return wire::decode_error(frame->payload);
  }
  // True once the server closed the connection (frames before that are skipped).
  bool closed_by_server() {
    auto deadline = Deadline::after(3s);
    while (read_frame(deadline)) {
    }
    return !deadline.expired();
  }

 private:
  UniqueFd fd_;
  std::string in_;
};

class BootstrapRefusal : public ::testing::Test {
 protected:
  static constexpr int size = 2;

  BootstrapRefusal() : server_(make_config()) { server_.start(); }

  static BootstrapServer::Config make_config() {
    BootstrapServer::Config config;
    config.size = size;
    config.job_token = token;
    config.io_timeout = 500ms;
    return config;
  }
  JoinRequest request(int rank) const {
    JoinRequest join{server_.address(), token, rank, size, "b"};
    join.blob += std::to_string(rank);
    return join;
  }
  std::string join_frame(wire::JoinMessage join) const { return wire::encode(join); }

  // After any refusal the good ranks must still form their job.
  void expect_job_forms() {
    test::run_ranks(size, [&](int rank) {
      auto boot = join_tcp(request(rank), soon());
      EXPECT_EQ(boot->members().size(), static_cast<std::size_t>(size));
      boot->barrier(soon());
    });
  }
  // The reason (code and text) a raw client gets for `bytes`.
  void expect_raw_refusal(const std::string& bytes, ErrorCode code, const std::string& text) {
    RawClient client(server_.address());
    client.send(bytes);
    auto error = client.read_error();
    EXPECT_EQ(error.code, code) << error.text;
    EXPECT_NE(error.text.find(text), std::string::npos) << error.text;
    EXPECT_TRUE(client.closed_by_server());
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

TEST_F(BootstrapRefusal, WrongTokenIsRefusedAndLoggedWithTheClientAddress) {
  std::string logged;
  {
    test::CapturedLog log(spdlog::level::warn);
    auto bad = request(0);
    bad.job_token = "guess";
    expect_join_refused(bad, "wrong job token");
    logged = log.text();
  }
  EXPECT_NE(logged.find("refusing 127.0.0.1:"), std::string::npos) << logged;
  EXPECT_EQ(logged.find("guess"), std::string::npos) << "the log must not show tokens";
  expect_job_forms();
}

TEST_F(BootstrapRefusal, WorldSizeMismatch) {
  auto bad = request(0);
  bad.size = 3;
  expect_join_refused(bad, "world size mismatch");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, RankOutOfRange) {
  expect_raw_refusal(join_frame({token, size, 5, 1000, ""}), ErrorCode::rank_out_of_range, "rank 5 is out of range");
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
  auto frame = join_frame({token, size, 0, 1000, ""});
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

TEST_F(BootstrapRefusal, MalformedJoin) {
  expect_raw_refusal(wire::encode_frame(wire::MessageType::join, "abc"), ErrorCode::malformed, "truncated");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, BadMagic) {
  expect_raw_refusal("GET / HTTP/1.0\r\n\r\n", ErrorCode::bad_magic, "bad magic");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, RequestBeforeJoin) {
  expect_raw_refusal(wire::encode(wire::BarrierMessage{1, 0, 100}), ErrorCode::unexpected_message, "expected JOIN");
  expect_job_forms();
}

TEST_F(BootstrapRefusal, ClientThatNeverCompletesAFrameIsDropped) {
  RawClient silent(server_.address());
  RawClient partial(server_.address());
  partial.send(join_frame({token, size, 0, 1000, ""}).substr(0, 15));
  // Both are answered once the io_timeout (500 ms) passes, while the job is still forming.
  auto error = silent.read_error();
  EXPECT_EQ(error.code, ErrorCode::wait_timeout) << error.text;
  EXPECT_NE(error.text.find("no complete JOIN"), std::string::npos) << error.text;
  EXPECT_TRUE(partial.closed_by_server());
  EXPECT_TRUE(silent.closed_by_server());
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
    quitter.send(wire::encode(wire::JoinMessage{token, 3, 1, 10000, ""}));
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
