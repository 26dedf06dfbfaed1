// RCOLL_CHECK: before a collective, the ranks compare what they were called
// with. Every rank sends its call's fingerprint (kind, count, dtype, op,
// root, algorithm, sequence number: 32 bytes) to rank 0 on a tag space of
// its own (comm/tags.hpp); rank 0 sends the table of all fingerprints back, and
// every rank compares the same table. When they differ, every rank throws
// the same MismatchError, e.g.
//
//   rank 1: allreduce #7: rank 2 called bcast (16 x float32, root 0) while
//   ranks 0, 1 and 3 called allreduce (16 x float32, sum)
//
// The most common call is taken as the intended one (ties: the one of the
// lowest rank). Nothing of the collective itself was sent, so the
// communicator stays usable. Cost: two message latencies through rank 0 and
// O(size) messages at rank 0 per collective.
#pragma once

#include <cstdint>

#include "diagnostics/call_info.hpp"
#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "transport/transport.hpp"

namespace rcoll::diagnostics {

// `algorithm`: the algorithm this rank will run (its enum value). Ranks
// configured differently are refused when they join; the algorithm is
// compared here too, so that any other divergence of the plans shows. `tag` and `tag + 1`: the
// exchange's tags, unique to this call (the caller's tag space). Throws MismatchError, or the
// transport's TimeoutError/IoError when the exchange itself fails.
void check_call(transport::Transport& transport, const CallInfo& call, std::uint8_t algorithm, transport::Tag tag,
                Deadline deadline, const LazyText& label);

}  // namespace rcoll::diagnostics
