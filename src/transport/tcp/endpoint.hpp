// Where the TCP transport listens and how a rank's endpoint blob is written.
//
// Blob: "<a.b.c.d>:<port>", the address it listens on (peers must dial
// exactly that), or "<port>" when it listens on every interface (peers
// then dial the address the bootstrap service saw it at).
#pragma once

#include <cstdint>
#include <string>

#include "transport/factory.hpp"
#include "transport/transport.hpp"

namespace rcoll::transport::tcp {

// IPv4 address (dotted) of an interface name ("lo", "eth0") or a literal
// IPv4 address given as is. InvalidArgument naming `ifname` if no such
// interface has an IPv4 address.
std::string interface_ipv4(const std::string& ifname);

// The one address the listener binds, so that it is reachable only the way
// peers will dial it (SECURITY.md, "Who can connect"):
//  - RCOLL_SOCKET_IFNAME (config.socket_ifname): that interface's address;
//  - else the local address of this host's route to the job's bootstrap
//    service (config.job_route): 127.0.0.1 when the service is on
//    loopback (every rank on this host), else the address of the
//    interface the route leaves by, which is the one the service sees;
//  - no bootstrap address (the in-memory bootstrap: every rank is a
//    thread of this process): 127.0.0.1;
//  - a wildcard bootstrap host (0.0.0.0: rank 0 hosting the service on
//    every interface) or one that does not resolve: 0.0.0.0, for no one
//    address is known (the join then reports the bad address).
std::string listen_address(const TransportConfig& config);

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
