// A plain TCP client of the bootstrap service that sends whatever bytes a
// test wants (hostile ones included) and reads the server's frames. It
// reads the server's CHALLENGE on connecting, so a test can make a JOIN
// whose proof is right (proven_join) or wrong.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <optional>
#include <string>

#include "bootstrap/messages.hpp"
#include "bootstrap/proofs.hpp"
#include "common/socket_util.hpp"

namespace rcoll::test {

namespace wire = bootstrap::wire;

class RawBootstrapClient {
 public:
  static Deadline soon() { return Deadline::after(std::chrono::seconds(10)); }

  explicit RawBootstrapClient(const std::string& address) {
    auto where = net::parse_host_port(address);
    int error = 0;
    fd_ = net::connect_nonblocking(net::resolve_ipv4(where.host, where.port), error);
    EXPECT_TRUE(fd_.valid()) << net::errno_text(error);
    EXPECT_NE(net::wait_fd(fd_.get(), POLLOUT, soon()), 0);
    auto challenge = read_frame();
    if (!challenge || challenge->type != static_cast<std::uint16_t>(wire::MessageType::challenge)) {
      ADD_FAILURE() << "the server's first frame was not a CHALLENGE";
      return;
    }
    challenge_ = wire::decode_challenge(challenge->payload).nonce;
  }
  const auth::Nonce& challenge() const { return challenge_; }

  // A JOIN frame whose proof of `token` answers this connection's challenge.
  std::string proven_join(wire::JoinMessage join, const std::string& token) const {
    join.proof = bootstrap::proofs::client_proof(token, challenge_, join);
    return wire::encode(join);
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
  // The next frame, which must be of `type` (fails the test otherwise).
  std::optional<wire::Frame> expect_frame(wire::MessageType type) {
    auto frame = read_frame();
    if (!frame || frame->type != static_cast<std::uint16_t>(type)) {
      ADD_FAILURE() << "expected a " << wire::to_string(type) << " frame";
      return std::nullopt;
    }
    return frame;
  }
  // The ERROR the server answered with; fails the test for anything else.
  wire::ErrorMessage read_error() {
    auto frame = expect_frame(wire::MessageType::error);
    return frame ? wire::decode_error(frame->payload) : wire::ErrorMessage{};
  }
  // True once the server closed the connection without sending another frame.
  bool closed_silently(std::chrono::milliseconds within = std::chrono::seconds(3)) {
    auto deadline = Deadline::after(within);
    bool framed = read_frame(deadline).has_value();
    EXPECT_FALSE(framed) << "the server answered instead of closing silently";
    return !framed && !deadline.expired();
  }
  // True once the server closed the connection (frames before that are skipped).
  bool closed_by_server() {
    auto deadline = Deadline::after(std::chrono::seconds(3));
    while (read_frame(deadline)) {
    }
    return !deadline.expired();
  }

 private:
  UniqueFd fd_;
  std::string in_;
  auth::Nonce challenge_{};
};

}  // namespace rcoll::test
