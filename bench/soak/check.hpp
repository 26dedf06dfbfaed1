// Runs one planned operation on a communicator and checks everything this
// rank can see of its result against the serial reference:
//   allreduce  the result bitwise; out of place also: the send buffer is
//              unchanged
//   bcast      every byte equals the root's
//   sendrecv   the received count and bytes; the spare capacity beyond the
//              message is untouched
//   every buffer carries a guard zone after its end that must stay intact
//              (no write beyond the user's buffer)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rcoll/comm.hpp>

#include "plan.hpp"

namespace rcoll::soak {

// What went wrong, for the report (the first few per rank).
struct Mismatch {
  std::string operation;  // Operation::describe()
  std::string what;       // "result byte 4100: got 0x3c, expected 0x00"
};

class Checker {
 public:
  // Keeps at most `keep` mismatch descriptions. corrupt_every > 0 (a
  // self-test of the checker): flip one result byte of every
  // corrupt_every-th operation before it is checked.
  explicit Checker(std::uint64_t corrupt_every = 0, std::size_t keep = 8) : corrupt_every_(corrupt_every), keep_(keep) {}

  // Runs `op` on `comm` (this rank's part) and checks it; returns false on
  // a mismatch. rcoll errors propagate.
  bool run(Comm& comm, const Operation& op);

  std::uint64_t mismatches() const noexcept { return mismatches_; }
  const std::vector<Mismatch>& details() const noexcept { return details_; }

 private:
  bool run_allreduce(Comm& comm, const Operation& op);
  bool run_bcast(Comm& comm, const Operation& op);
  bool run_sendrecv(Comm& comm, const Operation& op);
  void record(const Operation& op, std::string what);
  // The self-test: damages `data` when `op` is one of the chosen ones.
  void maybe_corrupt(const Operation& op, std::byte* data, std::size_t bytes) const;

  std::uint64_t corrupt_every_;
  std::size_t keep_;
  std::uint64_t mismatches_ = 0;
  std::vector<Mismatch> details_;
};

}  // namespace rcoll::soak
