// Where the TCP transport listens and how a rank's endpoint blob is written.
//
// Blob: "<port>" when the rank listens on every interface (peers then use the
// address the bootstrap service saw), or "<a.b.c.d>:<port>" when it was told
// an interface (peers must use exactly that address).
#pragma once

#include <cstdint>
#include <string>

#include "transport/transport.hpp"

namespace rcoll::transport::tcp {

// IPv4 address (dotted) of an interface name ("lo", "eth0") or a literal
// IPv4 address given as is. InvalidArgument naming `ifname` if no such
// interface has an IPv4 address.
std::string interface_ipv4(const std::string& ifname);

std::string format_blob(const std::string& listen_ip, std::uint16_t port);

struct ConnectTarget {
  std::string host;
  std::uint16_t port = 0;
};

// The address to connect to for `endpoint`: the blob's address if it names
// one, else endpoint.address. InvalidArgument naming `rank` if the blob is
// malformed; an empty host when neither names an address.
ConnectTarget connect_target(int rank, const PeerEndpoint& endpoint);

}  // namespace rcoll::transport::tcp
