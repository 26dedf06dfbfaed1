// Who holds a TCP port, for the error a server gives when it cannot listen
// there ("port 29500 is in use by pid 1234 (python3)").
#pragma once

#include <cstdint>
#include <string>

namespace rcoll::net {

// The listener on TCP `port` (any local address, IPv4 or IPv6), found
// through /proc/net/tcp{,6} (the socket's inode) and /proc/<pid>/fd (the
// process holding it): "pid 1234 (python3)"; "another process (uid 1001)"
// when the holder's fds are not readable (another user's process);
// "another process" when /proc shows no listener. Never throws; reads /proc
// only, so call it on the error path, not per connection.
std::string port_owner(std::uint16_t port);

}  // namespace rcoll::net
