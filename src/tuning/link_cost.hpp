// The link model's three figures (alpha, beta, gamma), where they come from
// when nothing is measured, and their exact text form for the store.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "transport/transport.hpp"

namespace rcoll::tuning {

struct LinkCost {
  double alpha = 0;  // seconds per message (latency, including the wake-up)
  double beta = 0;   // seconds per byte moved over one link
  double gamma = 0;  // seconds per byte reduced
};

// True when every field is positive and finite (a usable measurement).
bool plausible(const LinkCost& link);

// Fixed per-transport estimates, for when nothing is measured
// (RCOLL_CALIBRATE=0, one-rank jobs). The only place these constants live.
LinkCost fallback_link_cost(const transport::Capabilities& caps);

// Exact text form (hex floats, so every rank decodes the very same doubles):
// "alpha beta gamma". decode: nullopt unless three plausible numbers.
std::string encode_link_cost(const LinkCost& link);
std::optional<LinkCost> decode_link_cost(std::string_view text);

}  // namespace rcoll::tuning
