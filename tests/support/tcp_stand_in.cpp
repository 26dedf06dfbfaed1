#include "support/tcp_stand_in.hpp"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <stdexcept>

#include "common/deadline.hpp"
#include "common/socket_util.hpp"
#include "transport/tcp/handshake.hpp"

namespace rcoll::test::tcp_stand_in {

using namespace std::chrono_literals;

void read_pumping(int fd, void* buf, std::size_t n, transport::Transport& t) {
  auto deadline = Deadline::after(5s);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd, static_cast<char*>(buf) + got, n - got, MSG_DONTWAIT);
    if (r > 0) got += static_cast<std::size_t>(r);
    else if (r == 0) throw std::runtime_error("stand-in: connection closed");
    else if (errno != EAGAIN && errno != EINTR) throw std::runtime_error("stand-in: " + net::errno_text(errno));
    else if (deadline.expired()) throw std::runtime_error("stand-in: nothing to read for 5 s");
    else t.progress();
  }
}

bool closed_by_peer(int fd, transport::Transport& t) {
  auto deadline = Deadline::after(5s);
  char byte;
  while (!deadline.expired()) {
    ssize_t r = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    if (r == 0) return true;
    if (r > 0 || (errno != EAGAIN && errno != EINTR)) return r < 0 && errno == ECONNRESET;
    t.progress();
  }
  return false;
}

std::uint16_t port_of(const std::string& endpoint) {
  auto colon = endpoint.rfind(':');
  return static_cast<std::uint16_t>(std::stoi(colon == std::string::npos ? endpoint : endpoint.substr(colon + 1)));
}

UniqueFd connect_to(std::uint16_t port) {
  int error = 0;
  UniqueFd fd = net::connect_nonblocking(net::resolve_ipv4("127.0.0.1", port), error);
  if (error != 0 || !(net::wait_fd(fd.get(), POLLOUT, Deadline::after(5s)) & POLLOUT) ||
      net::socket_error(fd.get()) != 0)
    throw std::runtime_error("stand-in: cannot connect to port " + std::to_string(port));
  return fd;
}

Dialed dial_as(int rank, int size, const std::string& token, const std::string& endpoint, transport::Transport& t) {
  Dialed dialed;
  dialed.fd = connect_to(port_of(endpoint));
  dialed.challenge = read_pumping<tcp::Challenge>(dialed.fd.get(), t);
  EXPECT_EQ(dialed.challenge.kind, tcp::HelloKind::challenge);
  dialed.hello = tcp::make_hello(rank, size, dialed.challenge.nonce, token);
  if (!tcp::send_whole(dialed.fd.get(), &dialed.hello, sizeof(dialed.hello)))
    throw std::runtime_error("stand-in: short write of the hello");
  return dialed;
}

tcp::Reply read_reply(Dialed& dialed, const std::string& token, transport::Transport& t) {
  auto reply = read_pumping<tcp::Reply>(dialed.fd.get(), t);
  EXPECT_TRUE(tcp::verify_reply(reply, dialed.hello, dialed.challenge.nonce, token)) << "the reply proves no token";
  return reply;
}

UniqueFd accept_pumping(int listener, transport::Transport& t) {
  auto deadline = Deadline::after(5s);
  while (!deadline.expired()) {
    UniqueFd fd(::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd) return fd;
    t.progress();
  }
  throw std::runtime_error("stand-in: no connection within 5 s");
}

Accepted accept_and_greet(int listener, const std::string& token, transport::Transport& t) {
  Accepted accepted;
  accepted.fd = accept_pumping(listener, t);
  accepted.nonce = auth::fresh_nonce();
  tcp::Challenge challenge;
  challenge.nonce = accepted.nonce;
  if (!tcp::send_whole(accepted.fd.get(), &challenge, sizeof(challenge)))
    throw std::runtime_error("stand-in: short write of the challenge");
  accepted.hello = read_pumping<tcp::Hello>(accepted.fd.get(), t);
  EXPECT_EQ(tcp::verify_hello(accepted.hello, accepted.nonce, token), tcp::HelloVerdict::proven);
  return accepted;
}

void answer(Accepted& accepted, tcp::HelloKind kind, tcp::RefuseReason reason, int rank, int size,
            const std::string& token) {
  tcp::Reply reply = tcp::make_reply(kind, reason, rank, size, accepted.hello, accepted.nonce, token);
  ASSERT_TRUE(tcp::send_whole(accepted.fd.get(), &reply, sizeof(reply)));
}

}  // namespace rcoll::test::tcp_stand_in
