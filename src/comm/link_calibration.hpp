// The communicator's link model: measured at creation (ranks 0 and 1,
// collectives/calibration.hpp) and shared through the job's store
// (store::keys::calibration), so that every rank builds the same
// ChoiceTable and makes the same algorithm choices (different choices
// would mismatch collectives).
#pragma once

#include <string>

#include "collectives/cost_model.hpp"
#include "common/deadline.hpp"
#include "rcoll/options.hpp"
#include "store/store.hpp"
#include "transport/transport.hpp"

namespace rcoll::comm {

struct LinkModel {
  collectives::LinkCost link;
  bool measured = false;  // false: the fallback estimates (fallback_link_cost)
  double seconds = 0;     // this rank's time in calibrate_link (0 when not measured)
  std::string source() const { return measured ? "measured" : "fallback estimate"; }
};

// Every rank of the communicator calls this once, after the transport has
// its peers' endpoints and before any other message. With
// options.calibrate and more than one rank: ranks 0 and 1 measure over
// `transport`, rank 0 publishes the result, every rank returns the very
// same doubles. Otherwise every rank returns the fallback, without any
// communication. options.calibrate must be the same on every rank (like
// the algorithm options). Errors: TimeoutError at `deadline`; IoError when
// the measurement failed (on the other ranks: naming rank 0's cause).
LinkModel calibrate_link(const Options& options, transport::Transport& transport, store::Store& job_store,
                         Deadline deadline);

}  // namespace rcoll::comm
