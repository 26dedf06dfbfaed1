// The exceptions rcoll throws. Every error names the rank that raised it;
// transport errors also name the peer, the step and the cause.
//
//   Error                 base class; catch this to catch everything from rcoll
//   ├── InvalidArgument   bad call; nothing was sent, the communicator is intact
//   │   └── MismatchError the ranks called different collectives (RCOLL_CHECK=1);
//   │                     every rank raises it, the communicator is intact
//   ├── MessageError      a point-to-point message did not fit its receive (longer
//   │                     than the buffer, or not a whole number of elements); only
//   │                     that receive failed, the communicator is intact
//   ├── TimeoutError      a wait passed its deadline; the communicator is unusable
//   ├── IoError           a peer or the network failed; the communicator is unusable
//   └── ResourceError     memory ran out inside a call (std::bad_alloc never leaves rcoll)
//
// The rule: TimeoutError and IoError always leave the communicator unusable;
// every other Error leaves it usable.
//
// docs/ERRORS.md tells what each means and what to do.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace rcoll {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// Raised on every rank when RCOLL_CHECK found that the ranks' calls of one
// collective differ (kind, count, dtype, op, root or algorithm). Nothing of
// the collective was sent and every rank raised it, so the communicator
// stays usable.
class MismatchError : public InvalidArgument {
 public:
  // `ranks`: the ranks whose call differs from the most common one.
  MismatchError(const std::string& what, std::vector<int> ranks)
      : InvalidArgument(what), ranks_(std::move(ranks)) {}
  const std::vector<int>& ranks() const noexcept { return ranks_; }

 private:
  std::vector<int> ranks_;
};

// Raised by recv when the matched message does not fit the receive: it is
// longer than the buffer (it was discarded, the buffer is untouched), or
// its length is not a whole number of the receive's elements (its bytes
// are in the buffer). The sender's send completed normally. The message
// was consumed, and the next receive with that source and tag matches the
// next message; the communicator stays usable. A collective whose pieces
// do not fit raises IoError instead: its ranks no longer agree on the data.
class MessageError : public Error {
 public:
  // rank: who raised it; peer: the sender; step: the call ("recv from rank
  // 1 tag 5"); cause: what did not fit. `bytes`: the message's length;
  // `capacity`: the receive buffer's size in bytes.
  MessageError(int rank, int peer, const std::string& step, const std::string& cause, std::size_t bytes,
               std::size_t capacity);
  int rank() const noexcept { return rank_; }
  int peer() const noexcept { return peer_; }
  std::size_t bytes() const noexcept { return bytes_; }
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  int rank_;
  int peer_;
  std::size_t bytes_;
  std::size_t capacity_;
};

class TimeoutError : public Error {
 public:
  // `waiting_for` lists the peer ranks that had not answered when time ran
  // out; `not_joined` (collectives, from the hang diagnosis) the ranks that
  // had not entered the collective at all; either may be empty (unknown).
  TimeoutError(const std::string& what, std::vector<int> waiting_for = {}, std::vector<int> not_joined = {})
      : Error(what), waiting_for_(std::move(waiting_for)), not_joined_(std::move(not_joined)) {}
  const std::vector<int>& waiting_for() const noexcept { return waiting_for_; }
  const std::vector<int>& not_joined() const noexcept { return not_joined_; }

 private:
  std::vector<int> waiting_for_;
  std::vector<int> not_joined_;
};

class IoError : public Error {
 public:
  // rank: who raised it; peer: the other side (-1 if none); step: what was
  // being done ("tcp connect", "allreduce ring reduce-scatter step 2");
  // cause: errno text, completion status or protocol violation.
  IoError(int rank, int peer, std::string step, std::string cause);
  int rank() const noexcept { return rank_; }
  int peer() const noexcept { return peer_; }
  const std::string& step() const noexcept { return step_; }
  const std::string& cause() const noexcept { return cause_; }

 private:
  int rank_;
  int peer_;
  std::string step_;
  std::string cause_;
};

// Memory ran out inside a call: every std::bad_alloc the library meets in
// a call of the communicator becomes this, naming the rank, the call and
// its size. Raised while the call communicated (a schedule's scratch, the
// transport's buffers), the communicator is unusable, as after an IoError;
// raised before anything was sent, it is intact (docs/ERRORS.md).
class ResourceError : public Error {
 public:
  using Error::Error;
};

}  // namespace rcoll
