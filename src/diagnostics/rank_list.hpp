// Rank lists in messages: "rank 5", "ranks 5 and 9", "ranks 1, 2 and 7",
// long runs as ranges ("ranks 0-63 and 65").
#pragma once

#include <span>
#include <string>

namespace rcoll::diagnostics {

// "5 and 9", "1, 2 and 7", "0-63 and 65" (input sorted, distinct).
std::string join_ranks(std::span<const int> ranks);
// "rank 5" / "ranks 5 and 9"; "no rank" when empty.
std::string name_ranks(std::span<const int> ranks);

}  // namespace rcoll::diagnostics
