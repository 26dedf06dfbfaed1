#include "transport/tcp/congestion_control.hpp"

#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstring>

namespace rcoll::transport::tcp {
namespace {

// In order of preference; a process without CAP_NET_ADMIN may only choose
// those in net.ipv4.tcp_allowed_congestion_control, which always has reno.
constexpr const char* window_based[] = {"cubic", "reno"};

bool set_congestion_control(int fd, const char* algorithm) noexcept {
  return ::setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, algorithm, static_cast<socklen_t>(std::strlen(algorithm))) == 0;
}

bool ends_of(int fd, sockaddr_in& local, sockaddr_in& peer) noexcept {
  socklen_t local_length = sizeof local;
  socklen_t peer_length = sizeof peer;
  return ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_length) == 0 &&
         ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) == 0 && local.sin_family == AF_INET &&
         peer.sin_family == AF_INET;
}

}  // namespace

bool stays_on_host(const sockaddr_in& local, const sockaddr_in& peer) noexcept {
  return local.sin_addr.s_addr == peer.sin_addr.s_addr;
}

bool paces(const std::string& algorithm) noexcept { return algorithm.starts_with("bbr"); }

std::string congestion_control_of(int fd) {
  char name[32] = {};  // TCP_CA_NAME_MAX is 16
  socklen_t length = sizeof name - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &length) != 0) return {};
  return std::string(name, ::strnlen(name, length));
}

std::string choose_congestion_control(int fd) {
  const std::string current = congestion_control_of(fd);
  if (!paces(current)) return "kept " + (current.empty() ? std::string("the system's") : current);
  sockaddr_in local{};
  sockaddr_in peer{};
  if (!ends_of(fd, local, peer)) return "kept " + current + " (the socket's addresses cannot be read)";
  if (!stays_on_host(local, peer)) return "kept " + current + " (to another host)";
  for (const char* algorithm : window_based)
    if (set_congestion_control(fd, algorithm))
      return std::string(algorithm) + " instead of " + current + " (stays on this host)";
  return "kept " + current + " (neither cubic nor reno may be set)";
}

}  // namespace rcoll::transport::tcp
