#include "comm/validate.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "rcoll/errors.hpp"

namespace rcoll::comm {
namespace {

// "rank R: call: what"; "rank unknown: ..." when the rank itself is invalid.
[[noreturn]] void invalid(int rank, std::string_view call, const std::string& what) {
  const std::string who = rank >= 0 ? "rank " + std::to_string(rank) : std::string("rank unknown");
  throw InvalidArgument(who + ": " + std::string(call) + ": " + what);
}

}  // namespace

void validate_options(const Options& o) {
  if (o.size < 1)
    invalid(o.rank < 0 ? -1 : o.rank, "create", "world size " + std::to_string(o.size) + " must be at least 1");
  if (o.rank < 0 || o.rank >= o.size)
    invalid(-1, "create", "rank " + std::to_string(o.rank) + " is outside 0.." + std::to_string(o.size - 1));
  if (o.timeout.count() <= 0) invalid(o.rank, "create", "timeout must be positive");
  if (o.segment_bytes != 0 && o.segment_bytes < min_segment_bytes)
    invalid(o.rank, "create",
            "segment_bytes (RCOLL_SEGMENT_BYTES) " + std::to_string(o.segment_bytes) + " is below the minimum of " +
                std::to_string(min_segment_bytes) + " bytes (or 0 for the transport's default)");
}

void validate_service_options(const Options& o) {
  if (o.size > 1 && o.bootstrap.empty())
    invalid(o.rank, "create",
            "no bootstrap address: set RCOLL_BOOTSTRAP=host:port (or MASTER_ADDR and MASTER_PORT), "
            "or start the job with rcoll-run");
  if (o.host_bootstrap && o.rank != 0) invalid(o.rank, "create", "only rank 0 can host the bootstrap service");
}

void validate_store_options(const Options& o) {
  if (o.host_bootstrap)
    invalid(o.rank, "create", "host_bootstrap asks for rcoll's bootstrap service, which a store replaces");
}

void throw_bad_dtype(int rank, std::string_view call, DataType type) {
  invalid(rank, call, "unknown data type (value " + std::to_string(static_cast<int>(type)) + ")");
}

void throw_byte_overflow(int rank, std::string_view call, std::size_t count, DataType type) {
  invalid(rank, call, "count " + std::to_string(count) + " x " + std::string(to_string(type)) +
                          " overflows the byte count");
}

void throw_bad_op(int rank, std::string_view call, ReduceOp op) {
  invalid(rank, call, "unknown reduce op (value " + std::to_string(static_cast<int>(op)) + ")");
}

void throw_null_buffer(int rank, std::string_view call, std::string_view name, std::size_t count) {
  invalid(rank, call, std::string(name) + " buffer is null with count " + std::to_string(count));
}

void throw_bad_peer(int rank, int size, std::string_view call, std::string_view role, int peer) {
  invalid(rank, call, std::string(role) + " " + std::to_string(peer) + " is outside 0.." + std::to_string(size - 1));
}

void throw_bad_tag(int rank, std::string_view call, int tag) {
  invalid(rank, call, "tag " + std::to_string(tag) + " is negative");
}

void throw_partial_overlap(int rank, std::string_view call, const void* send, const void* recv, std::size_t bytes) {
  const auto s = reinterpret_cast<std::uintptr_t>(send);
  const auto r = reinterpret_cast<std::uintptr_t>(recv);
  const std::string where = r > s ? "recv starts " + std::to_string(r - s) + " bytes after send"
                                  : "send starts " + std::to_string(s - r) + " bytes after recv";
  invalid(rank, call, "send and recv buffers overlap partly (" + where + ", " + std::to_string(bytes) +
                          " bytes each); pass the same pointer for in place, or buffers that do not overlap");
}

void throw_bad_timeout(int rank, std::string_view call, std::chrono::milliseconds timeout) {
  invalid(rank, call, "timeout " + std::to_string(timeout.count()) + " ms is negative (0 means the default)");
}

void throw_invalid(int rank, std::string_view call, const std::string& what) { invalid(rank, call, what); }

std::size_t checked_total(int rank, std::string_view call, std::size_t count, std::size_t factor, DataType type) {
  if (factor != 0 && count > std::numeric_limits<std::size_t>::max() / factor)
    invalid(rank, call, "count " + std::to_string(count) + " x " + std::to_string(factor) + " ranks overflows");
  return checked_bytes(rank, call, count * factor, type);
}

void check_disjoint(int rank, std::string_view call, const void* send, std::size_t send_bytes, const void* recv,
                    std::size_t recv_bytes) {
  const auto s = reinterpret_cast<std::uintptr_t>(send);
  const auto r = reinterpret_cast<std::uintptr_t>(recv);
  if (send_bytes == 0 || recv_bytes == 0 || s + send_bytes <= r || r + recv_bytes <= s) return;
  invalid(rank, call,
          "send (" + std::to_string(send_bytes) + " bytes) and recv (" + std::to_string(recv_bytes) +
              " bytes) overlap; use rcoll::in_place for the in-place form, or buffers that do not overlap");
}

std::size_t check_blocks(int rank, std::string_view call, std::string_view which, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, int size, DataType type, bool disjoint) {
  const auto n = static_cast<std::size_t>(size);
  const std::string w(which);
  if (counts.size() != n || displs.size() != n)
    invalid(rank, call,
            w + " counts and displacements must have " + std::to_string(n) + " entries each (one per rank), got " +
                std::to_string(counts.size()) + " and " + std::to_string(displs.size()));
  std::size_t extent = 0;
  std::vector<std::size_t> order;
  for (std::size_t r = 0; r < n; ++r) {
    if (displs[r] > std::numeric_limits<std::size_t>::max() - counts[r])
      invalid(rank, call, w + " block of rank " + std::to_string(r) + " ends past the largest size");
    if (counts[r] == 0) continue;
    extent = std::max(extent, displs[r] + counts[r]);
    order.push_back(r);
  }
  checked_bytes(rank, call, extent, type);
  if (!disjoint) return extent;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return displs[a] < displs[b]; });
  for (std::size_t i = 1; i < order.size(); ++i) {
    const std::size_t a = order[i - 1], b = order[i];
    if (displs[a] + counts[a] > displs[b])
      invalid(rank, call,
              w + " blocks of ranks " + std::to_string(a) + " (" + std::to_string(counts[a]) + " at " +
                  std::to_string(displs[a]) + ") and " + std::to_string(b) + " (" + std::to_string(counts[b]) +
                  " at " + std::to_string(displs[b]) + ") overlap");
  }
  return extent;
}

}  // namespace rcoll::comm
