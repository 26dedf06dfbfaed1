#include "comm/call_guard.hpp"

#include <string>

#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

constexpr unsigned kind_bits = 8;

[[noreturn, gnu::cold]] void throw_overlap(int rank, diagnostics::CallKind kind, std::uint64_t running) {
  const auto other = static_cast<diagnostics::CallKind>(running & ((1u << kind_bits) - 1));
  const std::uint64_t number = running >> kind_bits;
  const std::string which = number == 0 ? "just starting" : "call #" + std::to_string(number);
  throw InvalidArgument("rank " + std::to_string(rank) + ": " + std::string(diagnostics::to_string(kind)) +
                        " called while " + std::string(diagnostics::to_string(other)) + " (" + which +
                        ") is still running on another thread; a communicator serves one call at a time "
                        "(docs/THREADING.md)");
}

}  // namespace

CallGuard::Scope::Scope(CallGuard& guard, int rank, diagnostics::CallKind kind) : guard_(guard) {
  const auto kind_word = static_cast<std::uint64_t>(kind);
  std::uint64_t expected = 0;
  if (!guard.current_.compare_exchange_strong(expected, kind_word, std::memory_order_acquire,
                                              std::memory_order_relaxed)) [[unlikely]]
    throw_overlap(rank, kind, expected);
  // Only the holder numbers calls, so the counter needs no atomic increment.
  guard.current_.store((++guard.calls_ << kind_bits) | kind_word, std::memory_order_relaxed);
}

}  // namespace rcoll::comm
