#include "tuning/link_cost.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

namespace rcoll::tuning {

bool plausible(const LinkCost& link) {
  auto ok = [](double v) { return std::isfinite(v) && v > 0; };
  return ok(link.alpha) && ok(link.beta) && ok(link.gamma);
}

LinkCost fallback_link_cost(const transport::Capabilities& caps) {
  // RDMA: a few microseconds per message, ~100 Gbit/s.
  if (caps.remote_write) return {3e-6, 1.0 / 12e9, 1.0 / 10e9};
  // TCP (and in-process): a loopback stream's rate; a message's cost once a
  // wait may block (docs/PERFORMANCE.md, "Conventions": the physical limits).
  return {15e-6, 1.0 / 5e9, 1.0 / 10e9};
}

// std::to_chars/from_chars in hex: exact and independent of the C locale.
std::string encode_link_cost(const LinkCost& link) {
  std::string out;
  for (double field : {link.alpha, link.beta, link.gamma}) {
    std::array<char, 64> text{};
    auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), field, std::chars_format::hex);
    if (!out.empty()) out += ' ';
    out.append(text.data(), end);
  }
  return out;
}

std::optional<LinkCost> decode_link_cost(std::string_view text) {
  std::array<double, 3> fields{};
  const char* p = text.data();
  const char* const stop = text.data() + text.size();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0 && (p == stop || *p++ != ' ')) return std::nullopt;
    auto [end, error] = std::from_chars(p, stop, fields[i], std::chars_format::hex);
    if (error != std::errc()) return std::nullopt;
    p = end;
  }
  if (p != stop) return std::nullopt;
  LinkCost link{fields[0], fields[1], fields[2]};
  if (!plausible(link)) return std::nullopt;
  return link;
}

}  // namespace rcoll::tuning
