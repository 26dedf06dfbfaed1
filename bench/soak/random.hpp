// Deterministic pseudo-random numbers for the soak test. Every rank derives
// the same operation plan and every rank's inputs from the seed alone, so
// the generator must give the same sequence on every rank and every run:
// splitmix64 (a counter through a 64-bit finaliser), no std:: distributions
// (their output is not fixed by the standard).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rcoll::soak {

// A strong 64-bit mix (the splitmix64 finaliser): nearby inputs give
// unrelated outputs.
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Combines a seed with a few integers into a new, unrelated seed.
constexpr std::uint64_t derive(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) noexcept {
  return mix(mix(seed ^ mix(a)) ^ mix(b + 0x632be59bd9b4e019ULL));
}

class Stream {
 public:
  explicit constexpr Stream(std::uint64_t seed) noexcept : state_(seed) {}
  constexpr std::uint64_t next() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t x = state_;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  // Uniform in [0, n) for n >= 1 (the modulo bias is irrelevant here).
  constexpr std::uint64_t below(std::uint64_t n) noexcept { return next() % n; }
  // True with probability percent / 100.
  constexpr bool percent(unsigned percent) noexcept { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

}  // namespace rcoll::soak
