// Every key rcoll writes to or reads from the job's store (store.hpp), in
// one place, as comm/tags.hpp is for the transport's tags: two users of one
// key, or one key spelled two ways, show up here. Keys are write-once; a
// key that names a rank or a call exists once per rank or call. A new key
// is added here, with who writes it and who reads it.
#pragma once

#include <cstdint>
#include <string>

namespace rcoll::store::keys {

// The link model (α, β) ranks 0 and 1 measured, or why the measurement
// failed: written by rank 0, read by every other rank (tuning/calibration).
inline constexpr char calibration[] = "calibration";

// "<rank>\n<reason>" of Comm::abort(); the first abort wins: written by an
// aborting rank, read by every rank explaining an error
// (diagnostics/failure_report).
inline constexpr char abort[] = "abort";

// "<peer>\n<error>" of a rank whose communicator failed: written by `rank`,
// read by the ranks explaining their own error (diagnostics/failure_report,
// diagnostics/hang_diagnosis).
inline std::string fail(int rank) { return "fail/" + std::to_string(rank); }

// "<rank>\n<error>" of the first rank whose communicator failed; later
// ones are refused and leave it: written next to keys::fail(rank), read by
// the blocked waits of every other rank (diagnostics/failure_watch), so
// that one key answers "has the job failed?".
inline constexpr char first_failure[] = "fail/first";

// The call `rank` waits in when collective #sequence is slow: written by
// `rank`, read by the ranks whose call #sequence timed out
// (diagnostics/hang_diagnosis).
inline std::string diag(std::uint64_t sequence, int rank) {
  return "diag/" + std::to_string(sequence) + "/" + std::to_string(rank);
}

// "<dest>\n<call>" of a rank whose send to `dest` timed out ("send to rank
// 2 tag 5"): written by `rank` at that timeout (once: the timeout breaks its
// communicator), read by the ranks whose own send timed out, to tell a
// circular wait (diagnostics/blocked_send).
inline std::string blocked_send(int rank) { return "blocked-send/" + std::to_string(rank); }

// The RDMA queue-pair address (ConnInfo as hex) of `from`'s QP to `to`:
// written by `from`, read by `to` (transport/rdma/bootstrap_connector).
inline std::string rdma(int from, int to) { return "rdma/" + std::to_string(from) + "/" + std::to_string(to); }
// "1" once `from`'s QP to `to` can receive: written by `from`, read by `to`
// (transport/rdma/bootstrap_connector).
inline std::string rdma_ready(int from, int to) { return rdma(from, to) + "/ready"; }

// Why `rank` left the job (a crash or a normal exit): written only by the
// bootstrap service, when the rank's connection closes after the job formed
// (and by the in-memory rendezvous and the store bootstrap when a rank's
// Bootstrap is destroyed: a rank that dies records nothing there);
// read by the RDMA connector while it waits for that rank's keys. The
// bootstrap refuses a set of any key under the prefix, so the record can be
// neither forged nor pre-empted. Absent while the rank is in the job, and
// in stores that do not track departures. A rank that left may still have
// published keys before it went: a reader waiting for one looks again.
inline constexpr char departed_prefix[] = "departed/";
inline std::string departed(int rank) { return std::string(departed_prefix) + std::to_string(rank); }

// A rank's endpoint (its rank card) in a communicator built on a caller's
// store: written by that rank as it joins, read by every rank
// (bootstrap/store_bootstrap.hpp).
inline std::string member(int rank) { return "member/" + std::to_string(rank); }

// That the rank entered bootstrap barrier number `index` (0, 1, ... per
// communicator), on a caller's store: written by the rank, read by all.
inline std::string barrier_prefix(std::uint64_t index) { return "barrier/" + std::to_string(index) + "/"; }

// Where a sub-communicator's keys live (each of the above, in its ranks and
// call numbers): written and read by its ranks (comm/split.cpp, through a
// store::PrefixStore). Its communicator id is unique among those sharing a
// rank; the ranks of different colors of one split share the id, never a
// rank, and the color tells their parts apart.
inline std::string sub_communicator(std::uint64_t id, int color) {
  return "comm/" + std::to_string(id) + "/" + std::to_string(color) + "/";
}

}  // namespace rcoll::store::keys
