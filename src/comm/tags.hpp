// Tag spaces: collectives, RCOLL_CHECK fingerprints, the start-up
// calibration, and user point-to-point messages never match each other.
// Bit 63 alone selects user messages, bit 62 alone the fingerprint
// exchange, both together the calibration ping-pong; a collective's tag is
// its call's sequence number (38 bits, bits 24-61) above the algorithm's
// step bits.
#pragma once

#include <cstdint>

#include "collectives/collectives.hpp"
#include "transport/request.hpp"

namespace rcoll::comm {

inline transport::Tag collective_tag_base(std::uint64_t sequence) {
  return (sequence & ((std::uint64_t(1) << 38) - 1)) << collectives::Context::step_bits;
}

// The RCOLL_CHECK exchange of a call uses this tag and the next one.
inline transport::Tag check_tag(std::uint64_t sequence) {
  return (std::uint64_t(1) << 62) | collective_tag_base(sequence);
}

inline constexpr transport::Tag calibration_tag = (std::uint64_t(1) << 63) | (std::uint64_t(1) << 62);

inline transport::Tag user_tag(int tag) {
  return (std::uint64_t(1) << 63) | static_cast<std::uint32_t>(tag);
}

}  // namespace rcoll::comm
