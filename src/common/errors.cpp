// The public exceptions (include/rcoll/errors.hpp).
#include "rcoll/errors.hpp"

#include <string>

namespace rcoll {

IoError::IoError(int rank, int peer, std::string step, std::string cause)
    : Error("rank " + std::to_string(rank) +
            (peer >= 0 ? ", peer " + std::to_string(peer) : std::string()) + ": " + step + ": " + cause),
      rank_(rank), peer_(peer), step_(std::move(step)), cause_(std::move(cause)) {}

}  // namespace rcoll
