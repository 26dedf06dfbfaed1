#include "comm/validate.hpp"

#include <limits>
#include <string>

#include "rcoll/errors.hpp"

namespace rcoll::detail {
namespace {

[[noreturn]] void invalid(int rank, std::string_view call, const std::string& what) {
  throw InvalidArgument("rank " + std::to_string(rank) + ": " + std::string(call) + ": " + what);
}

}  // namespace

void validate_options(const Options& o) {
  if (o.size < 1) invalid(o.rank, "create", "world size " + std::to_string(o.size) + " must be at least 1");
  if (o.rank < 0 || o.rank >= o.size)
    invalid(o.rank, "create", "rank " + std::to_string(o.rank) + " is outside 0.." + std::to_string(o.size - 1));
  if (o.size > 1 && o.bootstrap.empty())
    invalid(o.rank, "create",
            "no bootstrap address: set RCOLL_BOOTSTRAP=host:port (or MASTER_ADDR and MASTER_PORT), "
            "or start the job with rcoll-run");
  if (o.host_bootstrap && o.rank != 0) invalid(o.rank, "create", "only rank 0 can host the bootstrap service");
  if (o.timeout.count() <= 0) invalid(o.rank, "create", "timeout must be positive");
}

std::size_t checked_bytes(int rank, std::string_view call, std::size_t count, DataType type) {
  std::size_t element = dtype_size(type);
  if (element == 0)
    invalid(rank, call, "unknown data type (value " + std::to_string(static_cast<int>(type)) + ")");
  if (count > std::numeric_limits<std::size_t>::max() / element)
    invalid(rank, call, "count " + std::to_string(count) + " x " + std::string(to_string(type)) +
                            " overflows the byte count");
  return count * element;
}

void check_op(int rank, std::string_view call, ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: case ReduceOp::prod: case ReduceOp::min: case ReduceOp::max: return;
  }
  invalid(rank, call, "unknown reduce op (value " + std::to_string(static_cast<int>(op)) + ")");
}

void check_buffer(int rank, std::string_view call, std::string_view name, const void* buf, std::size_t count) {
  if (buf == nullptr && count > 0)
    invalid(rank, call, std::string(name) + " buffer is null with count " + std::to_string(count));
}

void check_peer(int rank, int size, std::string_view call, std::string_view role, int peer) {
  if (peer < 0 || peer >= size)
    invalid(rank, call, std::string(role) + " " + std::to_string(peer) + " is outside 0.." + std::to_string(size - 1));
}

void check_user_tag(int rank, std::string_view call, int tag) {
  if (tag < 0) invalid(rank, call, "tag " + std::to_string(tag) + " is negative");
}

void check_timeout(int rank, std::string_view call, std::chrono::milliseconds timeout) {
  if (timeout.count() < 0)
    invalid(rank, call, "timeout " + std::to_string(timeout.count()) + " ms is negative (0 means the default)");
}

}  // namespace rcoll::detail
