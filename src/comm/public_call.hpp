// How Comm's public calls (comm.cpp, comm_nonblocking.cpp) reach CommImpl:
// a Comm that was moved from is refused, the communicator's call guard is
// held for the call, and a std::bad_alloc becomes a ResourceError.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "comm/call_guard.hpp"
#include "comm/comm_impl.hpp"
#include "diagnostics/call_info.hpp"
#include "rcoll/errors.hpp"
#include "rcoll/types.hpp"

namespace rcoll::comm {

[[noreturn, gnu::cold]] inline void throw_moved_from(std::string_view call) {
  throw InvalidArgument(std::string(call) +
                        ": this Comm was moved from (use the Comm it was moved to), or is the empty result of a split "
                        "with a negative color");
}

[[noreturn, gnu::cold]] inline void throw_out_of_memory(int rank, diagnostics::CallKind kind, std::size_t count,
                                                        DataType type) {
  throw ResourceError("rank " + std::to_string(rank) + ": " + std::string(diagnostics::to_string(kind)) + " of " +
                      std::to_string(count) + " x " + std::string(to_string(type)) +
                      ": out of memory (std::bad_alloc) before anything was sent");
}

// The implementation behind `comm` for a call named `call`: InvalidArgument
// when the Comm was moved from (its implementation went with the move).
inline CommImpl& checked(const std::unique_ptr<CommImpl>& impl, std::string_view call) {
  if (!impl) [[unlikely]]
    throw_moved_from(call);
  return *impl;
}

// Runs one communicating call: holds the communicator's call guard
// (call_guard.hpp) for its duration, runs it on the progress thread when
// the communicator has one, and turns a std::bad_alloc that reaches this
// boundary into a ResourceError (those met while the call communicated
// became one inside CommImpl::run already).
template <typename Body>
auto public_call(const std::unique_ptr<CommImpl>& impl, diagnostics::CallKind kind, std::size_t count, DataType type,
                 Body&& body) {
  CommImpl& c = checked(impl, diagnostics::to_string(kind));
  CallGuard::Scope scope(c.call_guard(), c.rank(), kind);
  try {
    return c.on_progress_thread([&] { return body(c); });
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(c.rank(), kind, count, type);
  }
}

}  // namespace rcoll::comm
