// Fuzz target: what the RDMA transport decodes from a peer
// (transport/rdma/wire.hpp), no device needed:
//   0: ConnInfo as the hex text a peer publishes in the bootstrap store
//   1: ConnInfo as raw bytes (encoded to hex first, so the decoder's checks
//      of magic, version and ring are reached with any field values)
//   2: CmPrivate, the rdma_cm connection private data
//   3: a received SEND: MsgHeader + payload
// The first input byte selects the decoder; the rest is its input.
// Invariants: a refusal says why; what is accepted passes every check the
// transport relies on (a usable ring, a known kind, an EAGER length equal
// to the bytes carried) and re-encodes to exactly the bytes it came from.
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "transport/rdma/wire.hpp"

namespace rdma = rcoll::transport::rdma;

namespace {

bool usable(std::uint32_t magic, std::uint16_t version, std::uint32_t ring_slots, std::uint32_t slot_bytes) {
  return magic == rdma::conn_magic && version == rdma::wire_version && ring_slots >= rdma::min_peer_ring_slots &&
         ring_slots <= rdma::max_peer_ring_slots && slot_bytes >= sizeof(rdma::MsgHeader);
}

void conn_info_text(std::string_view text) {
  auto info = rdma::conn_info_from_hex(text);
  if (!info) return;
  FUZZ_CHECK(usable(info->magic, info->version, info->ring_slots, info->slot_bytes));
  FUZZ_CHECK(rdma::to_hex(*info) == text);
}

void conn_info_raw(std::string_view bytes) {
  rdma::ConnInfo raw;
  std::memcpy(&raw, bytes.data(), std::min(bytes.size(), sizeof(raw)));
  auto info = rdma::conn_info_from_hex(rdma::to_hex(raw));
  FUZZ_CHECK(info.has_value() == usable(raw.magic, raw.version, raw.ring_slots, raw.slot_bytes));
  if (info) FUZZ_CHECK(std::memcmp(&*info, &raw, sizeof(raw)) == 0);
}

void cm_private(std::string_view bytes) {
  auto checked = rdma::decode_cm_private(bytes.data(), bytes.size());
  if (!checked.value) {
    FUZZ_CHECK(!checked.problem.empty());
    return;
  }
  const rdma::CmPrivate& data = *checked.value;
  FUZZ_CHECK(bytes.size() >= sizeof(data));
  FUZZ_CHECK(usable(data.magic, data.version, data.ring_slots, data.slot_bytes));
  FUZZ_CHECK(std::memcmp(&data, bytes.data(), sizeof(data)) == 0);
}

void message(std::string_view bytes) {
  auto start = reinterpret_cast<const std::byte*>(bytes.data());
  rdma::Message m;
  rdma::MessageFault fault = rdma::decode_message(start, bytes.size(), m);
  if (fault != rdma::MessageFault::none) {
    FUZZ_CHECK(!rdma::message_problem(fault, m, bytes.size()).empty());
    return;
  }
  FUZZ_CHECK(rdma::kind_name(m.header.kind) != "UNKNOWN");
  FUZZ_CHECK(m.header.version == rdma::wire_version);
  FUZZ_CHECK(m.payload == start + sizeof(rdma::MsgHeader));
  FUZZ_CHECK(m.payload_bytes + sizeof(rdma::MsgHeader) == bytes.size());
  FUZZ_CHECK(m.payload_bytes == (m.header.kind == rdma::MsgKind::eager ? m.header.length : 0));
  FUZZ_CHECK(std::memcmp(&m.header, start, sizeof(m.header)) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rcoll::fuzz::Input input(data, size);
  std::uint8_t which = input.u8() % 4;
  std::string_view rest = input.rest();
  switch (which) {
    case 0: conn_info_text(rest); break;
    case 1: conn_info_raw(rest); break;
    case 2: cm_private(rest); break;
    default: message(rest); break;
  }
  (void)rdma::token_hash(rest);
  return 0;
}
