// What a rank tells every other rank when it joins (its bootstrap blob):
// the host it runs on, the settings every rank must share, and its
// transport's endpoint. Every rank reads every card, so whatever is decided
// from them (which ranks share a host, the plan) is decided alike on all.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/peer_endpoint.hpp"

namespace rcoll::comm {

struct RankCard {
  std::string host;      // topology::Host::identity
  int host_cpus = 1;     // topology::Host::cpus
  std::string settings;  // shared_settings.hpp: equal on every rank of a job
  std::string endpoint;  // the transport's local_endpoint()
};

// A versioned text: "rcoll-card 1", then host, cpus and settings on a line
// each (newlines in them are replaced), then the endpoint, which may hold
// any bytes.
std::string encode(const RankCard& card);
// IoError naming `rank` when `blob` is not a card of this version (a rank
// of another rcoll build, or not an rcoll rank at all).
RankCard decode_card(std::string_view blob, int rank, int self);

// Every member's card (index = rank), and the endpoints the transport
// needs: the address the bootstrap saw each rank at, with its card's endpoint.
std::vector<RankCard> read_cards(const std::vector<PeerEndpoint>& members, int self);
std::vector<PeerEndpoint> transport_endpoints(const std::vector<PeerEndpoint>& members,
                                              const std::vector<RankCard>& cards);

}  // namespace rcoll::comm
