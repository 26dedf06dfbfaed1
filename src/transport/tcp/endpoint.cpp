#include "transport/tcp/endpoint.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <charconv>
#include <memory>

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

}  // namespace

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
