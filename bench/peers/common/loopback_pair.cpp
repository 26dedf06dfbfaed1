#include "common/loopback_pair.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rcoll::peers {
namespace {

constexpr int timeout_seconds = 60;

// A pacing congestion control (BBR, where it is the system's default)
// paces a loopback stream at a rate it estimated, well below what the
// connection can carry (6.5 against 2.5 GB/s at 64 MiB on the CI machine),
// so the limit is measured unpaced: cubic, else reno, as rcoll's own
// connections on one host (src/transport/tcp/congestion_control.hpp). A
// socket that already has a window-based algorithm keeps it.
void avoid_pacing(int fd) {
  char name[32] = {};
  socklen_t length = sizeof name - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &length) != 0 || std::strncmp(name, "bbr", 3) != 0) return;
  for (const char* algorithm : {"cubic", "reno"})
    if (::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, algorithm, static_cast<socklen_t>(std::strlen(algorithm))) == 0)
      return;
}

void configure(int fd) {
  timeval tv{timeout_seconds, 0};
  check(::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), "SO_RCVTIMEO");
  check(::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv), "SO_SNDTIMEO");
  const int one = 1;
  check(::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), "TCP_NODELAY");
  avoid_pacing(fd);
}

int listen_on_loopback(sockaddr_in& address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  check(fd, "socket");
  address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0 || ::listen(fd, 1) < 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) < 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error(std::string("listen on 127.0.0.1: ") + std::strerror(error));
  }
  return fd;
}

int run_child(const char* name, const sockaddr_in& address, const std::function<int(int fd)>& child) {
  try {
    Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
    configure(fd.get());
    check(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), "connect");
    return child(fd.get());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s child: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace

Fd::Fd(int fd) : fd_(fd) {
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
}

Fd::~Fd() { ::close(fd_); }

void check(int rc, const char* what) {
  if (rc < 0) throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

void send_all(int fd, const std::byte* data, std::size_t bytes) {
  while (bytes > 0) {
    const ssize_t n = ::send(fd, data, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    check(static_cast<int>(n), "send");
    data += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void recv_all(int fd, std::byte* data, std::size_t bytes, bool spin) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  unsigned idle = 0;
  while (bytes > 0) {
    const ssize_t n = ::recv(fd, data, bytes, spin ? MSG_DONTWAIT : 0);
    if (n < 0 && (errno == EINTR || (spin && errno == EAGAIN))) {
      if (++idle % 4096 == 0 && std::chrono::steady_clock::now() > give_up)
        throw std::runtime_error("recv: nothing for 60 s");
      continue;
    }
    check(static_cast<int>(n), "recv");
    if (n == 0) throw std::runtime_error("recv: peer closed the connection");
    data += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

LoopbackPair::LoopbackPair(const char* name, const std::function<int(int fd)>& child)
    : name_(name), connection_([&] {
        sockaddr_in address{};
        Fd listener(listen_on_loopback(address));
        std::fflush(stdout);  // the child must not print the parent's buffered lines again
        child_ = ::fork();
        check(child_, "fork");
        if (child_ == 0) ::_exit(run_child(name, address, child));
        const int fd = ::accept(listener.get(), nullptr, nullptr);
        check(fd, "accept");
        configure(fd);
        return fd;
      }()) {}

LoopbackPair::~LoopbackPair() {
  if (child_ <= 0) return;
  ::shutdown(connection_.get(), SHUT_RDWR);
  ::waitpid(child_, nullptr, 0);
}

void LoopbackPair::finish() {
  int status = 0;
  const pid_t child = child_;
  child_ = -1;
  check(::waitpid(child, &status, 0), "waitpid");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(std::string(name_) + " failed");
}

}  // namespace rcoll::peers
