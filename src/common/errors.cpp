// The public exceptions (include/rcoll/errors.hpp).
#include "rcoll/errors.hpp"

#include <string>

namespace rcoll {
namespace {

// "rank R, peer P: step: cause" (", peer P" only for a peer >= 0).
std::string describe(int rank, int peer, const std::string& step, const std::string& cause) {
  return "rank " + std::to_string(rank) + (peer >= 0 ? ", peer " + std::to_string(peer) : std::string()) + ": " +
         step + ": " + cause;
}

}  // namespace

IoError::IoError(int rank, int peer, std::string step, std::string cause)
    : Error(describe(rank, peer, step, cause)), rank_(rank), peer_(peer), step_(std::move(step)),
      cause_(std::move(cause)) {}

MessageError::MessageError(int rank, int peer, const std::string& step, const std::string& cause, std::size_t bytes,
                           std::size_t capacity)
    : Error(describe(rank, peer, step, cause)), rank_(rank), peer_(peer), bytes_(bytes), capacity_(capacity) {}

}  // namespace rcoll
