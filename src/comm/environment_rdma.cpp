// The environment module, part two: the RDMA backend's RCOLL_IB_*
// variables (environment.hpp; docs/RDMA.md lists them).
#include <string>

#include "comm/environment.hpp"
#include "comm/environment_values.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

using transport::rdma::ConnectMode;
using transport::rdma::PollMode;
using transport::rdma::RdmaOptions;

[[noreturn]] void bad(const char* name, const std::string& value, const std::string& expected) {
  throw InvalidArgument(std::string(name) + "='" + value + "': expected " + expected);
}

void read_device_choice(RdmaOptions& o) {
  if (auto v = env::text("RCOLL_IB_DEV")) o.device = *v;
  if (auto v = env::integer("RCOLL_IB_PORT", 1, 255)) o.port = static_cast<int>(*v);
  if (auto v = env::integer("RCOLL_IB_GID_INDEX", 0, 65535)) o.gid_index = static_cast<int>(*v);
  if (auto v = env::text("RCOLL_IB_ADDR")) o.address = *v;
}

void read_modes(RdmaOptions& o) {
  if (auto v = env::text("RCOLL_IB_CM")) {
    if (*v == "rdmacm") o.connect = ConnectMode::rdmacm;
    else if (*v == "bootstrap" || *v == "verbs") o.connect = ConnectMode::bootstrap;
    else bad("RCOLL_IB_CM", *v, "bootstrap or rdmacm");
  }
  if (auto v = env::text("RCOLL_IB_POLL")) {
    if (*v == "busy") o.poll = PollMode::busy;
    else if (*v == "event") o.poll = PollMode::event;
    else if (*v == "auto") o.poll = PollMode::automatic;
    else bad("RCOLL_IB_POLL", *v, "busy, event or auto");
  }
}

void read_sizes(RdmaOptions& o) {
  if (auto v = env::bytes("RCOLL_IB_EAGER_LIMIT")) {
    if (*v > (std::size_t(1) << 20)) bad("RCOLL_IB_EAGER_LIMIT", std::to_string(*v), "at most 1M");
    o.eager_limit = *v;
  }
  if (auto v = env::integer("RCOLL_IB_RING_SLOTS", 4, 4096)) o.ring_slots = static_cast<int>(*v);
  if (auto v = env::bytes("RCOLL_IB_CHUNK")) {
    if (*v < 4096) bad("RCOLL_IB_CHUNK", std::to_string(*v), "at least 4K");
    o.chunk_bytes = *v;
  }
  if (auto v = env::integer("RCOLL_IB_WRITES", 1, 64)) o.writes_in_flight = static_cast<int>(*v);
}

void read_cache_and_timers(RdmaOptions& o) {
  if (auto v = env::zero_or_one("RCOLL_IB_MR_CACHE")) o.mr_cache = *v;
  if (auto v = env::integer("RCOLL_IB_MR_CACHE_ENTRIES", 0, 1 << 20)) o.mr_cache_entries = static_cast<std::size_t>(*v);
  if (auto v = env::bytes("RCOLL_IB_MR_CACHE_BYTES")) o.mr_cache_bytes = *v;
  if (auto v = env::integer("RCOLL_IB_DISCOVERY_MS", 0, 60000)) o.discovery_interval = std::chrono::milliseconds(*v);
  if (auto v = env::integer("RCOLL_IB_KEEPALIVE_MS", 0, 600000)) o.keepalive_interval = std::chrono::milliseconds(*v);
}

}  // namespace

RdmaOptions rdma_options_from_env() {
  RdmaOptions options;
  read_device_choice(options);
  read_modes(options);
  read_sizes(options);
  read_cache_and_timers(options);
  return options;
}

}  // namespace rcoll::comm
