// Tag spaces: collectives, RCOLL_CHECK fingerprints, the start-up
// calibration, and user point-to-point messages never match each other,
// nor do the messages of different communicators over one transport.
// Bit 63 alone selects user messages, bit 62 alone the fingerprint
// exchange, both together the calibration ping-pong; bits 50-61 hold the
// communicator's id (0 for one built by create(), split() and dup() give
// others: the sub-transport adds them, transport/sub_transport.hpp); a
// collective's tag is its call's sequence number (26 bits, 24-49; two
// calls 2^26 apart are never in flight together) above the algorithm's
// step bits; a user tag is its 32 bits.
#pragma once

#include <cstdint>

#include "collectives/collectives.hpp"
#include "transport/request.hpp"

namespace rcoll::comm {

inline constexpr int comm_id_shift = 50;
inline constexpr std::uint64_t max_comm_id = (std::uint64_t(1) << 12) - 1;

// The bits a communicator's id adds to every tag of its messages.
inline transport::Tag comm_id_bits(std::uint64_t id) { return id << comm_id_shift; }

inline transport::Tag collective_tag_base(std::uint64_t sequence) {
  return (sequence & ((std::uint64_t(1) << 26) - 1)) << collectives::Context::step_bits;
}

// The RCOLL_CHECK exchange of a call uses this tag and the next one.
inline transport::Tag check_tag(std::uint64_t sequence) {
  return (std::uint64_t(1) << 62) | collective_tag_base(sequence);
}

inline constexpr transport::Tag calibration_tag = (std::uint64_t(1) << 63) | (std::uint64_t(1) << 62);

inline transport::Tag user_tag(int tag) {
  return (std::uint64_t(1) << 63) | static_cast<std::uint32_t>(tag);
}

static_assert(collectives::Context::step_bits + 26 == comm_id_shift, "sequence bits end where the id begins");

}  // namespace rcoll::comm
