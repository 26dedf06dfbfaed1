// RdmaOptions::from_env: the RCOLL_IB_* environment variables.
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "common/byte_count.hpp"
#include "rcoll/errors.hpp"
#include "transport/rdma/rdma_transport.hpp"

namespace rcoll::transport::rdma {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

[[noreturn]] void bad(const char* name, std::string_view value, std::string_view expected) {
  throw InvalidArgument(std::string(name) + "='" + std::string(value) + "': expected " + std::string(expected));
}

std::size_t parse_size(const char* name, std::string_view text) {
  auto value = parse_byte_count(text);
  if (!value) bad(name, text, "a byte count such as 8192 or 64K");
  return *value;
}

long parse_int(const char* name, std::string_view text, long low, long high) {
  long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
    bad(name, text, "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  return value;
}

void read_device_choice(RdmaOptions& o) {
  if (const char* v = env("RCOLL_IB_DEV")) o.device = v;
  if (const char* v = env("RCOLL_IB_PORT")) o.port = static_cast<int>(parse_int("RCOLL_IB_PORT", v, 1, 255));
  if (const char* v = env("RCOLL_IB_GID_INDEX"))
    o.gid_index = static_cast<int>(parse_int("RCOLL_IB_GID_INDEX", v, 0, 65535));
  if (const char* v = env("RCOLL_IB_ADDR")) o.address = v;
}

void read_modes(RdmaOptions& o) {
  if (const char* v = env("RCOLL_IB_CM")) {
    std::string_view s(v);
    if (s == "rdmacm") o.connect = ConnectMode::rdmacm;
    else if (s == "bootstrap" || s == "verbs") o.connect = ConnectMode::bootstrap;
    else bad("RCOLL_IB_CM", s, "bootstrap or rdmacm");
  }
  if (const char* v = env("RCOLL_IB_POLL")) {
    std::string_view s(v);
    if (s == "busy") o.poll = PollMode::busy;
    else if (s == "event") o.poll = PollMode::event;
    else if (s == "auto") o.poll = PollMode::automatic;
    else bad("RCOLL_IB_POLL", s, "busy, event or auto");
  }
}

void read_tuning(RdmaOptions& o) {
  if (const char* v = env("RCOLL_IB_EAGER_LIMIT")) o.eager_limit = parse_size("RCOLL_IB_EAGER_LIMIT", v);
  if (const char* v = env("RCOLL_IB_RING_SLOTS"))
    o.ring_slots = static_cast<int>(parse_int("RCOLL_IB_RING_SLOTS", v, 4, 4096));
  if (const char* v = env("RCOLL_IB_CHUNK")) o.chunk_bytes = parse_size("RCOLL_IB_CHUNK", v);
  if (const char* v = env("RCOLL_IB_WRITES"))
    o.writes_in_flight = static_cast<int>(parse_int("RCOLL_IB_WRITES", v, 1, 64));
  if (const char* v = env("RCOLL_IB_MR_CACHE")) o.mr_cache = parse_int("RCOLL_IB_MR_CACHE", v, 0, 1) != 0;
  if (const char* v = env("RCOLL_IB_MR_CACHE_ENTRIES"))
    o.mr_cache_entries = static_cast<std::size_t>(parse_int("RCOLL_IB_MR_CACHE_ENTRIES", v, 0, 1 << 20));
  if (const char* v = env("RCOLL_IB_MR_CACHE_BYTES")) o.mr_cache_bytes = parse_size("RCOLL_IB_MR_CACHE_BYTES", v);
  if (const char* v = env("RCOLL_IB_DISCOVERY_MS"))
    o.discovery_interval = std::chrono::milliseconds(parse_int("RCOLL_IB_DISCOVERY_MS", v, 0, 60000));
  if (const char* v = env("RCOLL_IB_KEEPALIVE_MS"))
    o.keepalive_interval = std::chrono::milliseconds(parse_int("RCOLL_IB_KEEPALIVE_MS", v, 0, 600000));
  if (o.eager_limit > (std::size_t(1) << 20)) bad("RCOLL_IB_EAGER_LIMIT", std::to_string(o.eager_limit), "at most 1M");
  if (o.chunk_bytes < 4096) bad("RCOLL_IB_CHUNK", std::to_string(o.chunk_bytes), "at least 4K");
}

}  // namespace

RdmaOptions RdmaOptions::from_env() {
  RdmaOptions options;
  read_device_choice(options);
  read_modes(options);
  read_tuning(options);
  return options;
}

}  // namespace rcoll::transport::rdma
