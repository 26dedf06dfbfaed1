// Argument checks run before any communication: a call that fails here has
// sent nothing and leaves the communicator intact (InvalidArgument).
//
// The checks run on every call, so the tests are inline and only the
// error paths (building the message, throwing) are out of line.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "rcoll/options.hpp"
#include "rcoll/types.hpp"

namespace rcoll::comm {

void validate_options(const Options& options);
// What a communicator built through rcoll's bootstrap service needs
// (an address; only rank 0 hosts the service), and one built on a store
// (Comm::create(options, store): no service to host).
void validate_service_options(const Options& options);
void validate_store_options(const Options& options);

// The error paths of the checks below.
[[noreturn, gnu::cold]] void throw_bad_dtype(int rank, std::string_view call, DataType type);
[[noreturn, gnu::cold]] void throw_byte_overflow(int rank, std::string_view call, std::size_t count, DataType type);
[[noreturn, gnu::cold]] void throw_bad_op(int rank, std::string_view call, ReduceOp op);
[[noreturn, gnu::cold]] void throw_null_buffer(int rank, std::string_view call, std::string_view name,
                                               std::size_t count);
[[noreturn, gnu::cold]] void throw_bad_peer(int rank, int size, std::string_view call, std::string_view role, int peer);
[[noreturn, gnu::cold]] void throw_bad_tag(int rank, std::string_view call, int tag);
[[noreturn, gnu::cold]] void throw_partial_overlap(int rank, std::string_view call, const void* send, const void* recv,
                                                   std::size_t bytes);
[[noreturn, gnu::cold]] void throw_bad_timeout(int rank, std::string_view call, std::chrono::milliseconds timeout);
[[noreturn, gnu::cold]] void throw_invalid(int rank, std::string_view call, const std::string& what);

// Returns count * dtype_size(type), checking dtype and overflow.
inline std::size_t checked_bytes(int rank, std::string_view call, std::size_t count, DataType type) {
  std::size_t element = dtype_size(type);
  if (element == 0) [[unlikely]]
    throw_bad_dtype(rank, call, type);
  if (count > std::numeric_limits<std::size_t>::max() / element) [[unlikely]]
    throw_byte_overflow(rank, call, count, type);
  return count * element;
}

inline void check_op(int rank, std::string_view call, ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: case ReduceOp::prod: case ReduceOp::min: case ReduceOp::max: return;
  }
  throw_bad_op(rank, call, op);
}

inline void check_buffer(int rank, std::string_view call, std::string_view name, const void* buf, std::size_t count) {
  if (buf == nullptr && count > 0) [[unlikely]]
    throw_null_buffer(rank, call, name, count);
}

// A send and a receive buffer of `bytes` each are one buffer (in place) or
// disjoint. A partial overlap is refused: a schedule would receive into
// bytes it has still to send (or reduce), and the result would silently be
// wrong on every rank.
inline void check_no_partial_overlap(int rank, std::string_view call, const void* send, const void* recv,
                                     std::size_t bytes) {
  if (send == recv) return;
  const auto s = reinterpret_cast<std::uintptr_t>(send);
  const auto r = reinterpret_cast<std::uintptr_t>(recv);
  if ((s < r ? r - s : s - r) < bytes) [[unlikely]]
    throw_partial_overlap(rank, call, send, recv, bytes);
}

inline void check_peer(int rank, int size, std::string_view call, std::string_view role, int peer) {
  if (peer < 0 || peer >= size) [[unlikely]]
    throw_bad_peer(rank, size, call, role, peer);
}

inline void check_user_tag(int rank, std::string_view call, int tag) {
  if (tag < 0) [[unlikely]]
    throw_bad_tag(rank, call, tag);
}

// count * factor elements of `type` as bytes (the whole buffer of a call
// with one block per rank), checking dtype and overflow.
std::size_t checked_total(int rank, std::string_view call, std::size_t count, std::size_t factor, DataType type);

// Two buffers that must not share a byte (a send and a receive buffer of
// different lengths); InvalidArgument naming both otherwise.
void check_disjoint(int rank, std::string_view call, const void* send, std::size_t send_bytes, const void* recv,
                    std::size_t recv_bytes);

// The per-rank blocks of a v-variant: `counts` and `displs` (elements)
// have `size` entries and no block's end overflows; with `disjoint`, no
// two non-empty blocks share an element (receive buffers: each element is
// written once). Returns the buffer's extent in elements (the largest
// block end). `which` names the buffer in errors ("recv").
std::size_t check_blocks(int rank, std::string_view call, std::string_view which, std::span<const std::size_t> counts,
                         std::span<const std::size_t> displs, int size, DataType type, bool disjoint);

// A per-call timeout (CallOptions::timeout) must not be negative; 0 = default.
inline void check_timeout(int rank, std::string_view call, std::chrono::milliseconds timeout) {
  if (timeout.count() < 0) [[unlikely]]
    throw_bad_timeout(rank, call, timeout);
}

}  // namespace rcoll::comm
