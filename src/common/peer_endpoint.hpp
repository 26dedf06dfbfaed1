// What the bootstrap service tells every rank about every other rank: the
// bootstrap produces it (bootstrap/bootstrap.hpp, members()), the transport
// consumes it (transport/transport.hpp, set_peer_endpoints()). It lives
// below both so that neither includes the other.
#pragma once

#include <string>

namespace rcoll {

struct PeerEndpoint {
  std::string address;  // IP address the bootstrap service saw the peer connect from
  std::string blob;     // what the peer published when it joined (a communicator: its rank card)
};

}  // namespace rcoll
