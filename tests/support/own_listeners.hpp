// The listening TCP sockets of this process, found the way a local attacker
// finds a job's ports: /proc/net/tcp lists every IPv4 socket of the host
// (address, port, state, inode); the ones whose inode is an open descriptor
// of this process (/proc/self/fd) are ours. Tests use it to aim floods at
// their own listeners only, never at another process's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rcoll::test {

struct Listener {
  std::string ip;  // dotted IPv4 the socket is bound to ("0.0.0.0": every interface)
  std::uint16_t port = 0;
  std::uint64_t inode = 0;
};

std::vector<Listener> own_listeners();

}  // namespace rcoll::test
