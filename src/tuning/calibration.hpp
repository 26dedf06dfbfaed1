// The communicator's link model: measured at creation by ranks 0 and 1
// (link_measurement.hpp) and shared through the job's store
// (store::keys::calibration),
// so that every rank plans from the very same doubles.
#pragma once

#include <string>

#include "common/deadline.hpp"
#include "store/store.hpp"
#include "transport/transport.hpp"
#include "tuning/link_cost.hpp"

namespace rcoll::tuning {

struct LinkModel {
  LinkCost link;
  bool measured = false;  // false: the fallback estimates (fallback_link_cost)
  double seconds = 0;     // this rank's time in calibrate_link (0 when not measured)
  std::string source() const { return measured ? "measured" : "fallback estimate"; }
};

// Every rank of a job calls this once, after the transport has its peers'
// endpoints and before any other message. With `measure` and more than one
// rank: ranks 0 and 1 measure over `transport` on `tag` (a tag nothing else
// uses), rank 0 publishes the result, every rank returns the very same
// doubles. Otherwise every rank returns the fallback, without any
// communication. `measure` must be the same on every rank (the
// communicator checks that at join). Errors: TimeoutError at `deadline`;
// IoError when the measurement failed (on the other ranks: naming rank 0's
// cause).
LinkModel calibrate_link(bool measure, transport::Transport& transport, transport::Tag tag,
                         store::Store& job_store, Deadline deadline);

}  // namespace rcoll::tuning
