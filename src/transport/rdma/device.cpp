#include "transport/rdma/device.hpp"

#include <arpa/inet.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <vector>

#include "rcoll/errors.hpp"
#include "transport/rdma/cm.hpp"
#include "transport/rdma/verbs.hpp"

namespace rcoll::transport::rdma {
namespace {

// Eager rings and bounce buffers take about 1 MiB per connected peer, plus
// the user buffers of the transfers in flight.
constexpr std::size_t memlock_needed = std::size_t(32) << 20;

[[noreturn]] void fail(int rank, const std::string& reason) {
  throw IoError(rank, -1, "rdma device selection", reason);
}

bool ipv4_mapped(const ibv_gid& gid) {
  static const std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(gid.raw, prefix, sizeof(prefix)) == 0;
}

std::string ipv4_of(const ibv_gid& gid) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, gid.raw + 12, text, sizeof(text));
  return text;
}

struct Wanted {
  std::string device;  // empty: any
  int port = 0;        // 0: any ACTIVE
  int gid_index = -1;
  std::string ipv4;    // the GID must carry this address (RCOLL_IB_ADDR)
};

// RCOLL_IB_ADDR: librdmacm binds an id to the address, which names the
// device and port that own it.
void resolve_address(Wanted& wanted, int rank) {
  Where where{rank, -1};
  auto channel = create_event_channel(where);
  auto id = create_cm_id(channel.get(), nullptr, where);
  sockaddr_in sa = ipv4_sockaddr(wanted.ipv4, 0);
  if (rdma_bind_addr(id.get(), reinterpret_cast<sockaddr*>(&sa)) != 0)
    fail(rank, "RCOLL_IB_ADDR=" + wanted.ipv4 + ": rdma_bind_addr: " + std::strerror(errno) +
                   " (no local interface has this address?)");
  if (id->verbs == nullptr) fail(rank, "RCOLL_IB_ADDR=" + wanted.ipv4 + " is not the address of an RDMA device");
  wanted.device = ibv_get_device_name(id->verbs->device);
  wanted.port = id->port_num;
}

// The RoCE v2 GID of an IPv4 address on `port` (the wanted one, if named).
std::optional<ibv_gid_entry> find_roce_v2_gid(ibv_context* context, int port, int table_len, const Wanted& wanted) {
  for (int i = 0; i < table_len; ++i) {
    ibv_gid_entry entry{};
    if (ibv_query_gid_ex(context, static_cast<std::uint32_t>(port), static_cast<std::uint32_t>(i), &entry, 0) != 0)
      continue;  // an empty slot
    if (entry.gid_type != IBV_GID_TYPE_ROCE_V2 || !ipv4_mapped(entry.gid)) continue;
    if (!wanted.ipv4.empty() && ipv4_of(entry.gid) != wanted.ipv4) continue;
    return entry;
  }
  return std::nullopt;
}

// Fills `choice` from one ACTIVE port; returns a reason if the port won't do.
std::string try_port(ibv_context* context, int port, const Wanted& wanted, DeviceChoice& choice) {
  ibv_port_attr attr{};
  std::string where = choice.name + " port " + std::to_string(port);
  if (ibv_query_port(context, static_cast<std::uint8_t>(port), &attr) != 0) return where + ": ibv_query_port failed";
  if (attr.state != IBV_PORT_ACTIVE) return where + " is " + ibv_port_state_str(attr.state) + ", not ACTIVE";
  choice.port = static_cast<std::uint8_t>(port);
  choice.lid = attr.lid;
  choice.active_mtu = attr.active_mtu;
  choice.roce = attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  ibv_gid_entry entry{};
  if (wanted.gid_index >= 0) {
    if (ibv_query_gid_ex(context, static_cast<std::uint32_t>(port), static_cast<std::uint32_t>(wanted.gid_index),
                         &entry, 0) != 0)
      return where + ": RCOLL_IB_GID_INDEX=" + std::to_string(wanted.gid_index) + " is not a valid GID";
  } else if (choice.roce) {
    auto found = find_roce_v2_gid(context, port, attr.gid_tbl_len, wanted);
    if (!found)
      return where + ": no RoCE v2 GID with an IPv4 address" +
             (wanted.ipv4.empty() ? std::string() : " " + wanted.ipv4) +
             " (give its netdev an IPv4 address, or set RCOLL_IB_GID_INDEX)";
    entry = *found;
  } else {
    return {};  // InfiniBand: routed by LID, no GRH needed
  }
  choice.gid_index = static_cast<int>(entry.gid_index);
  choice.gid = entry.gid;
  if (ipv4_mapped(entry.gid)) choice.ipv4 = ipv4_of(entry.gid);
  return {};
}

// Returns the first usable port of `device`, or appends why there is none.
std::optional<DeviceChoice> try_device(ibv_device* device, const Wanted& wanted, std::vector<std::string>& problems) {
  DeviceChoice choice;
  choice.name = ibv_get_device_name(device);
  ContextPtr context(ibv_open_device(device));
  if (!context) {
    problems.push_back(choice.name + ": ibv_open_device: " + std::strerror(errno));
    return std::nullopt;
  }
  ibv_device_attr attr{};
  if (ibv_query_device(context.get(), &attr) != 0) {
    problems.push_back(choice.name + ": ibv_query_device failed");
    return std::nullopt;
  }
  for (int port = 1; port <= attr.phys_port_cnt; ++port) {
    if (wanted.port != 0 && port != wanted.port) continue;
    std::string problem = try_port(context.get(), port, wanted, choice);
    if (problem.empty()) return choice;
    problems.push_back(problem);
  }
  if (wanted.port > attr.phys_port_cnt)
    problems.push_back(choice.name + " has no port " + std::to_string(wanted.port));
  return std::nullopt;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

std::string DeviceChoice::describe() const {
  std::string text = name + " port " + std::to_string(port);
  if (gid_index >= 0) text += " gid[" + std::to_string(gid_index) + "] " + gid_text(gid);
  else text += " lid " + std::to_string(lid);
  return text + " mtu " + mtu_bytes(active_mtu);
}

std::string gid_text(const ibv_gid& gid) {
  if (ipv4_mapped(gid)) return "::ffff:" + ipv4_of(gid);
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, gid.raw, text, sizeof(text));
  return text;
}

std::string memlock_problem() {
  if (geteuid() == 0) return {};  // CAP_IPC_LOCK: the limit does not apply
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return {};
  if (limit.rlim_cur >= memlock_needed) return {};
  return "memlock limit (ulimit -l) is " + std::to_string(limit.rlim_cur / 1024) + " KiB, RDMA needs at least " +
         std::to_string(memlock_needed >> 20) +
         " MiB of pinned memory: raise it with ulimit -l unlimited or /etc/security/limits.conf";
}

DeviceChoice select_device(const RdmaOptions& options, int rank) {
  int count = 0;
  DeviceListPtr list = device_list(count);
  if (count == 0)
    fail(rank, "no RDMA device (ibv_get_device_list found none; load a driver such as mlx5_ib, or rdma_rxe for Soft-RoCE)");
  Wanted wanted{options.device, options.port, options.gid_index, {}};
  if (!options.address.empty()) {
    wanted.ipv4 = options.address;
    resolve_address(wanted, rank);
  }
  std::vector<std::string> problems;
  std::string names;
  for (int i = 0; i < count; ++i) {
    std::string name = ibv_get_device_name(list.get()[i]);
    names += (names.empty() ? "" : ", ") + name;
    if (!wanted.device.empty() && name != wanted.device) continue;
    if (auto choice = try_device(list.get()[i], wanted, problems)) {
      if (std::string why = memlock_problem(); !why.empty()) fail(rank, why);
      return *choice;
    }
  }
  if (problems.empty()) fail(rank, "RCOLL_IB_DEV=" + wanted.device + ": no such device (found: " + names + ")");
  fail(rank, "no usable RDMA port: " + join(problems));
}

}  // namespace rcoll::transport::rdma
