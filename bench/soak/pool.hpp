// The soak test's communicators. Algorithms are fixed per communicator
// (rcoll::Options), so the soak forces them at random by running each
// operation on a communicator drawn from a pool, each member created with
// its own allreduce algorithm, bcast algorithm and pipeline segment size.
//
// Creating a member: rank 0 finds a free port on `host`, tells every rank
// through the world communicator, and hosts that member's bootstrap
// service itself (Options::host_bootstrap); all ranks join with the job's
// token. This needs only the public API, so it works under any launcher.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <rcoll/rcoll.hpp>

namespace rcoll::soak {

struct PoolSetup {
  AllreduceAlgo allreduce = AllreduceAlgo::automatic;
  BcastAlgo bcast = BcastAlgo::automatic;
  std::size_t segment_bytes = 0;  // 0: the transport's default
  std::string describe() const;
};

// Member k: allreduce and bcast algorithms cycle through every value
// (automatic included); members 4..7 repeat them with small, odd segment
// sizes drawn from `seed`, so that mid-size messages take many segments.
std::vector<PoolSetup> pool_setups(int count, std::uint64_t seed);

// What every member shares with the world communicator.
struct PoolBase {
  TransportKind transport = TransportKind::automatic;
  std::string job_token;
  std::string socket_ifname;
  std::string host = "127.0.0.1";  // where rank 0 hosts each member's service
  std::chrono::milliseconds timeout{120000};
};

// Collective over `world`: every rank gets one Comm per setup, in order.
std::vector<Comm> make_pool(Comm& world, const PoolBase& base, const std::vector<PoolSetup>& setups);

// A TCP port on `host` that was free a moment ago (bound, then released).
int free_port(const std::string& host);

}  // namespace rcoll::soak
