// Hang diagnosis: which ranks have not entered a collective that timed out.
//
// The side channel is the job's store (store/store.hpp), which works when
// the transport does not. A rank whose wait inside collective #seq lasts
// longer than a threshold publishes keys::diag(seq, rank) = its call's
// description, once (CallWatch calls publish()). Fast collectives publish
// nothing, so the fast path pays nothing and the store grows only with slow
// operations (one small key per rank and slow call).
//
// When the collective times out, explain() publishes this rank's key too,
// waits a little (bounded) for the keys of the others, and turns what it
// found into one sentence: "ranks 5 and 9 have not joined; all others wait
// on them". A rank that already moved on to #seq+1 (a bcast root whose sends
// completed) is told apart by its key for #seq+1, and a rank that entered
// the same sequence number with different arguments is named with its call.
//
// Every store operation here is bounded and its errors are swallowed:
// the diagnosis adds to an error, it never causes one.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics/call_info.hpp"
#include "store/store.hpp"

namespace rcoll::diagnostics {

class HangDiagnosis {
 public:
  struct Finding {
    std::string text;             // "ranks 5 and 9 have not joined; all others wait on them"
    std::vector<int> not_joined;  // sorted
  };

  HangDiagnosis(store::Store& store, int rank, int size) noexcept : store_(store), rank_(rank), size_(size) {}

  // The wait after which a rank inside a collective publishes its key: a
  // quarter of the call's timeout, at least 1 ms.
  static std::chrono::milliseconds slow_after(std::chrono::milliseconds timeout);

  // Publishes this rank's key for `call` (once per sequence number).
  void publish(const CallInfo& call) noexcept;
  // At a timeout of `call`: waits up to `grace` for the other ranks' keys.
  Finding explain(const CallInfo& call, std::chrono::milliseconds grace) noexcept;

 private:
  Finding summarize(const CallInfo& call, const std::vector<std::optional<std::string>>& joined);

  store::Store& store_;
  int rank_;
  int size_;
  std::optional<std::uint64_t> published_;
};

}  // namespace rcoll::diagnostics
