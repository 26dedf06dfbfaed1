// Argument checks run before any communication: a call that fails here has
// sent nothing and leaves the communicator intact (InvalidArgument).
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

#include "rcoll/options.hpp"
#include "rcoll/types.hpp"

namespace rcoll::detail {

void validate_options(const Options& options);
// Returns count * dtype_size(type), checking dtype, op (if any) and overflow.
std::size_t checked_bytes(int rank, std::string_view call, std::size_t count, DataType type);
void check_op(int rank, std::string_view call, ReduceOp op);
void check_buffer(int rank, std::string_view call, std::string_view name, const void* buf, std::size_t count);
void check_peer(int rank, int size, std::string_view call, std::string_view role, int peer);
void check_user_tag(int rank, std::string_view call, int tag);
// A per-call timeout (CallOptions::timeout) must not be negative; 0 = default.
void check_timeout(int rank, std::string_view call, std::chrono::milliseconds timeout);

}  // namespace rcoll::detail
