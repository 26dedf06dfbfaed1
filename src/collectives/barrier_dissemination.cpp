// Dissemination barrier: in round r every rank signals rank + 2^r and waits
// for rank - 2^r (mod n). After ceil(log2 n) rounds each rank has heard,
// directly or through others, from every rank, for any n.
#include "collectives/algorithms.hpp"
#include "collectives/requests.hpp"
#include "collectives/schedule.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {

void barrier_dissemination(const Context& ctx) {
  const int n = ctx.size();
  const int rounds = ceil_log2(n);
  // Zero-byte messages; the transport gets a valid address all the same.
  std::byte token{};
  for (int round = 0; round < rounds; ++round) {
    const RoundPeers peers = dissemination_peers(ctx.rank(), n, round);
    const auto step = static_cast<std::uint32_t>(round);
    RequestList requests(ctx);
    requests.add(ctx.transport.irecv(peers.from, ctx.tag(step), &token, 0));
    requests.send(peers.to, step, &token, 0);
    requests.wait_all(step_label(ctx, "barrier dissemination round {}/{} (to rank {}, from rank {})", round + 1,
                                 rounds, peers.to, peers.from));
  }
}

}  // namespace rcoll::collectives
