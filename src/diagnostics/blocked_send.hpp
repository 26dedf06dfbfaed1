// Why a point-to-point send timed out. A send longer than the transport's
// eager limit waits until its receiver posts a matching receive (as
// MPI_Send may), so ranks that all send before they receive wait on each
// other for ever: a circular wait, which goes unnoticed while the messages
// are small and hangs once they pass the limit.
//
// At the timeout of a send, explain() publishes keys::blocked_send(rank)
// ("<dest>\n<call>") and follows the others' keys from the receiver on,
// waiting a little (bounded) for each: the ranks of a circular wait time out
// at about the same time and find each other's keys. The sentence says that
// the receiver has not posted a matching receive (for a send above the
// eager limit), that it is itself blocked in a send, or that the ranks form
// a circle, and what to do about it.
//
// Every store operation here is bounded and its errors are swallowed: the
// diagnosis adds to an error, it never causes one.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/deadline.hpp"
#include "diagnostics/call_info.hpp"
#include "store/store.hpp"

namespace rcoll::diagnostics {

class BlockedSend {
 public:
  BlockedSend(store::Store& store, int rank, int size) noexcept : store_(store), rank_(rank), size_(size) {}

  // What the transport says about sends: its name and eager limit.
  struct Transport {
    std::string_view name;
    std::size_t eager_limit;
  };

  // At the timeout of send `call` of `bytes` bytes: the clause to append to
  // the TimeoutError, e.g. "rank 1 has not posted a matching receive (tag
  // 5): a send of 1048576 bytes, above the tcp eager limit of 262144 bytes,
  // waits for its receive; ranks 0 -> 1 -> 2 -> 0 are each blocked in a send
  // to the next: a circular wait; ...". Waits up to `grace` in all.
  std::string explain(const CallInfo& call, std::size_t bytes, Transport transport,
                      std::chrono::milliseconds grace) noexcept;

 private:
  void publish(const CallInfo& call) noexcept;
  // keys::blocked_send(rank) as (dest, call), polled until `deadline`.
  std::optional<std::pair<int, std::string>> wait_for(int rank, Deadline deadline) noexcept;
  // The clause about the chain of blocked senders from call.peer on.
  std::string chain(const CallInfo& call, Deadline deadline) noexcept;

  store::Store& store_;
  int rank_;
  int size_;
};

}  // namespace rcoll::diagnostics
