#include "transport/tcp/endpoint.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <memory>

#include "common/fd.hpp"
#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::transport::tcp {
namespace {

struct IfAddrsDeleter {
  void operator()(ifaddrs* list) const noexcept { ::freeifaddrs(list); }
};

bool parse_port(std::string_view text, std::uint16_t& port) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535)
    return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

// The source address the kernel picks for packets to `host` (a UDP
// socket's connect() only consults the routing table: nothing is sent).
// Empty if there is no route or the host does not resolve.
std::string route_source(const std::string& host, std::uint16_t port) {
  sockaddr_in target{};
  try {
    target = net::resolve_ipv4(host, port == 0 ? 9 : port);
  } catch (const Error&) {
    return {};
  }
  UniqueFd probe(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!probe || ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&target), sizeof(target)) != 0) return {};
  sockaddr_in local{};
  socklen_t length = sizeof(local);
  if (::getsockname(probe.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0) return {};
  return net::ip_string(local);
}

}  // namespace

std::string listen_address(const TransportConfig& config) {
  if (!config.socket_ifname.empty()) return interface_ipv4(config.socket_ifname);
  net::HostPort route;
  try {
    route = net::parse_host_port(config.job_route);
  } catch (const InvalidArgument&) {
    return "127.0.0.1";  // no service to reach: every rank is in this process
  }
  if (route.host.empty() || route.host == "*" || route.host == "0.0.0.0") return "0.0.0.0";
  std::string source = route_source(route.host, route.port);
  return source.empty() ? "0.0.0.0" : source;
}

std::string interface_ipv4(const std::string& ifname) {
  in_addr literal{};
  if (::inet_pton(AF_INET, ifname.c_str(), &literal) == 1) return ifname;
  ifaddrs* raw = nullptr;
  if (::getifaddrs(&raw) != 0)
    throw InvalidArgument("socket interface '" + ifname + "': cannot list interfaces (getifaddrs failed)");
  std::unique_ptr<ifaddrs, IfAddrsDeleter> list(raw);
  for (ifaddrs* entry = raw; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    if (ifname != entry->ifa_name) continue;
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(entry->ifa_addr)->sin_addr, text, sizeof(text));
    return text;
  }
  throw InvalidArgument("socket interface '" + ifname +
                        "' is neither an IPv4 address nor an interface with an IPv4 address");
}

std::string format_blob(const std::string& listen_ip, std::uint16_t port) {
  if (listen_ip.empty() || listen_ip == "0.0.0.0") return std::to_string(port);
  return listen_ip + ":" + std::to_string(port);
}

ConnectTarget connect_target(int rank, const PeerEndpoint& endpoint) {
  const std::string& blob = endpoint.blob;
  auto colon = blob.rfind(':');
  ConnectTarget target;
  std::string_view port_text = colon == std::string::npos ? std::string_view(blob)
                                                          : std::string_view(blob).substr(colon + 1);
  if (!parse_port(port_text, target.port))
    throw InvalidArgument("tcp endpoint of rank " + std::to_string(rank) + " is malformed: '" + blob +
                          "' (expected 'port' or 'a.b.c.d:port')");
  target.host = colon == std::string::npos ? endpoint.address : blob.substr(0, colon);
  return target;
}

}  // namespace rcoll::transport::tcp
