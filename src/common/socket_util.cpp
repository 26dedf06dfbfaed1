#include "common/socket_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <thread>

#include "common/log.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::net {
namespace {

[[noreturn]] void throw_errno(const std::string& step, int error) {
  throw IoError(-1, -1, step, errno_text(error));
}

struct AddrInfoDeleter {
  void operator()(addrinfo* info) const noexcept { ::freeaddrinfo(info); }
};

}  // namespace

std::string errno_text(int error) {
  return std::string(std::strerror(error)) + " (errno " + std::to_string(error) + ")";
}

HostPort parse_host_port(std::string_view text) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    throw InvalidArgument("address '" + std::string(text) + "' is not host:port");
  std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535)
    throw InvalidArgument("address '" + std::string(text) + "' has no valid port (0..65535)");
  return HostPort{std::string(text.substr(0, colon)), static_cast<std::uint16_t>(port)};
}

sockaddr_in resolve_ipv4(const std::string& host, std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (host.empty() || host == "*" || host == "0.0.0.0") {
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    return address;
  }
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) == 1) return address;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* raw = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &raw);
  std::unique_ptr<addrinfo, AddrInfoDeleter> result(raw);
  if (rc != 0 || result == nullptr)
    throw InvalidArgument("cannot resolve host '" + host + "' to an IPv4 address: " +
                          (rc != 0 ? ::gai_strerror(rc) : "no address"));
  address.sin_addr = reinterpret_cast<const sockaddr_in*>(result->ai_addr)->sin_addr;
  return address;
}

std::string ip_string(const sockaddr_in& address) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text));
  return text;
}

std::string to_string(const sockaddr_in& address) {
  return ip_string(address) + ":" + std::to_string(ntohs(address.sin_port));
}

namespace {
bool peer_of(int fd, sockaddr_in& address) {
  socklen_t length = sizeof(address);
  return ::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
         address.sin_family == AF_INET;
}
}  // namespace

std::string peer_ip(int fd) {
  sockaddr_in address{};
  return peer_of(fd, address) ? ip_string(address) : std::string("?");
}

std::string peer_address(int fd) {
  sockaddr_in address{};
  return peer_of(fd, address) ? to_string(address) : std::string("?");
}

std::string local_address(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof(address);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw_errno("getsockname", errno);
  return to_string(address);
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw_errno("fcntl O_NONBLOCK", errno);
}

void set_nodelay(int fd) {
  int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
    throw_errno("setsockopt TCP_NODELAY", errno);
}

UniqueFd listen_on(const std::string& host, std::uint16_t port, int backlog) {
  sockaddr_in address = resolve_ipv4(host, port);
  std::string where = "listen on " + to_string(address);
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw_errno(where + ": socket", errno);
  int one = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
    throw_errno(where + ": setsockopt SO_REUSEADDR", errno);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
    throw_errno(where + ": bind", errno);
  if (::listen(fd.get(), backlog) != 0) throw_errno(where + ": listen", errno);
  return fd;
}

UniqueFd connect_nonblocking(const sockaddr_in& address, int& error) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) throw_errno("connect to " + to_string(address) + ": socket", errno);
  set_nodelay(fd.get());
  error = 0;
  // EINTR on a non-blocking connect means it goes on in the background,
  // exactly like EINPROGRESS; retrying connect() would answer EALREADY.
  int rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof(address));
  if (rc != 0 && errno != EINPROGRESS && errno != EINTR) {
    error = errno;
    fd.reset();
  }
  return fd;
}

int socket_error(int fd) {
  int error = 0;
  socklen_t length = sizeof(error);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
  return error;
}

namespace {

// Errors that mean "the server is not (yet) reachable", worth retrying.
bool retryable(int error) {
  return error == ECONNREFUSED || error == ECONNRESET || error == ETIMEDOUT || error == EHOSTUNREACH ||
         error == ENETUNREACH || error == EAGAIN;
}

// One connect attempt; returns the connected socket or sets `error`.
UniqueFd try_connect(const sockaddr_in& address, Deadline deadline, int& error) {
  UniqueFd fd = connect_nonblocking(address, error);
  if (!fd) return fd;
  if (wait_fd(fd.get(), POLLOUT, deadline) == 0) {
    error = ETIMEDOUT;
    return UniqueFd();
  }
  error = socket_error(fd.get());
  if (error != 0) fd.reset();
  return fd;
}

}  // namespace

UniqueFd connect_with_retry(const sockaddr_in& address, Deadline deadline, ConnectFailure& failure) {
  auto backoff = std::chrono::milliseconds(10);
  for (failure.attempts = 1;; ++failure.attempts) {
    UniqueFd fd = try_connect(address, deadline, failure.error);
    if (fd) return fd;
    failure.retryable = retryable(failure.error);
    if (!failure.retryable || deadline.expired()) return fd;
    log::debug("connect to {} failed ({}); retrying", to_string(address), errno_text(failure.error));
    std::this_thread::sleep_for(std::min(backoff, deadline.remaining()));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(250));
  }
}

int send_all(int fd, std::string_view bytes, Deadline deadline) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n >= 0) {
      sent += static_cast<std::size_t>(n);
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return errno;
    } else if (errno != EINTR && wait_fd(fd, POLLOUT, deadline) == 0) {
      return -1;
    }
  }
  return 0;
}

short wait_fd(int fd, short events, Deadline deadline) {
  for (;;) {
    pollfd entry{fd, events, 0};
    auto wait_ms = deadline.remaining(std::chrono::milliseconds(1000)).count();
    int rc = ::poll(&entry, 1, static_cast<int>(wait_ms));
    if (rc > 0) return entry.revents;
    if (rc < 0 && errno != EINTR) throw_errno("poll", errno);
    if (rc == 0 && deadline.expired()) return 0;
  }
}

}  // namespace rcoll::net
