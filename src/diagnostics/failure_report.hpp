// How a failure on one rank reaches the others' error messages, through
// the job's store (store/store.hpp; keys in store/keys.hpp):
//
//   keys::abort       "<rank>\n<reason>"  Comm::abort(); the first abort wins
//   keys::fail(rank)  "<peer>\n<error>"   this rank's communicator failed
//                                         (peer -1: not caused by a peer)
//   keys::first_failure "<rank>\n<error>" the first of those; later ones
//                                         are refused and leave it
//
// A rank publishes keys::fail(rank) before it closes its connections, so a
// peer that sees the connection close can look up why; following the chain
// of "peer" fields leads to the rank that failed first, or to one that
// published nothing (it died, or exited without an rcoll error).
//
// Every store operation here is bounded and never throws: the lookups
// add to an error, they never replace it.
#pragma once

#include <chrono>
#include <optional>
#include <utility>
#include <string>

#include "store/store.hpp"

namespace rcoll::diagnostics {

// A store value "<rank>\n<text>" -> (rank, text); nullopt if malformed.
std::optional<std::pair<int, std::string>> split_rank_value(const std::string& value);

class FailureReport {
 public:
  FailureReport(store::Store& store, int rank, int size) noexcept : store_(store), rank_(rank), size_(size) {}

  // Publishes this rank's failure; `peer` is the rank the error named (-1: none).
  void publish_failure(int peer, const std::string& what) noexcept;
  // Publishes an abort of this rank (bounded by `bound`).
  void publish_abort(const std::string& reason, std::chrono::milliseconds bound) noexcept;
  // "rank 3 aborted: <reason>", if any rank aborted.
  std::optional<std::string> find_abort() noexcept;
  // What the others published about an error whose peer is `peer` (-1:
  // none), as a clause to append: "rank 3 aborted: ...", or
  // "first failure: <the earliest error along the chain from peer>", or ""
  // when nothing is known beyond the error itself.
  std::string explain(int peer) noexcept;
  // What `rank` published about its failure: (its peer, its error).
  std::optional<std::pair<int, std::string>> failure_of(int rank) noexcept;
  // The first rank whose communicator failed, and its error.
  std::optional<std::pair<int, std::string>> first_failure() noexcept;
  // Whether the store records that `rank` left the job (keys::departed).
  bool departed(int rank) noexcept;

 private:

  store::Store& store_;
  int rank_;
  int size_;
};

}  // namespace rcoll::diagnostics
