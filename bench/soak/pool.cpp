#include "pool.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "random.hpp"

namespace rcoll::soak {
namespace {

constexpr AllreduceAlgo allreduce_cycle[] = {AllreduceAlgo::automatic, AllreduceAlgo::ring, AllreduceAlgo::tree,
                                             AllreduceAlgo::recursive_doubling};
constexpr BcastAlgo bcast_cycle[] = {BcastAlgo::automatic, BcastAlgo::binomial, BcastAlgo::scatter_allgather,
                                     BcastAlgo::chain};

// Closes the socket on every path.
struct SocketGuard {
  int fd;
  ~SocketGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string PoolSetup::describe() const {
  return "allreduce " + to_string(allreduce) + ", bcast " + to_string(bcast) + ", segment " +
         (segment_bytes == 0 ? std::string("default") : std::to_string(segment_bytes) + " B");
}

std::vector<PoolSetup> pool_setups(int count, std::uint64_t seed) {
  std::vector<PoolSetup> setups;
  Stream stream(derive(seed, 0x5e9));
  for (int k = 0; k < count; ++k) {
    PoolSetup setup;
    setup.allreduce = allreduce_cycle[k % 4];
    // Offset by k / 4 so that later rounds pair the algorithms differently.
    setup.bcast = bcast_cycle[(k + k / 4) % 4];
    if ((k / 4) % 2 == 1) setup.segment_bytes = 4096 + stream.below(61000);  // odd sizes above the minimum
    setups.push_back(setup);
  }
  return setups;
}

int free_port(const std::string& host) {
  SocketGuard socket_fd{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (socket_fd.fd < 0) throw IoError(0, -1, "soak: find a free port", std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1)
    throw InvalidArgument("soak: --host must be an IPv4 address, got '" + host + "'");
  if (::bind(socket_fd.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0)
    throw IoError(0, -1, "soak: bind " + host + ":0", std::strerror(errno));
  socklen_t length = sizeof(address);
  if (::getsockname(socket_fd.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw IoError(0, -1, "soak: getsockname", std::strerror(errno));
  return ntohs(address.sin_port);
}

std::vector<Comm> make_pool(Comm& world, const PoolBase& base, const std::vector<PoolSetup>& setups) {
  std::vector<Comm> pool;
  for (const PoolSetup& setup : setups) {
    std::int32_t port = world.rank() == 0 ? free_port(base.host) : 0;
    world.bcast(std::span<std::int32_t>(&port, 1), 0);
    Options options;
    options.rank = world.rank();
    options.size = world.size();
    options.bootstrap = base.host + ":" + std::to_string(port);
    options.host_bootstrap = world.rank() == 0;
    options.job_token = base.job_token;
    options.transport = base.transport;
    options.socket_ifname = base.socket_ifname;
    options.timeout = base.timeout;
    options.allreduce_algo = setup.allreduce;
    options.bcast_algo = setup.bcast;
    options.segment_bytes = setup.segment_bytes;
    pool.push_back(Comm::create(options));
  }
  return pool;
}

}  // namespace rcoll::soak
