// The lines of the overlap measurement (overlap.hpp), alike for every
// library: a header naming the library and the poll interval, then per
// size "bytes comm_us compute_us overlap_us hidden_pct".
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "common/overlap.hpp"

namespace rcoll::bench {

void print_overlap_header(std::FILE* out, const std::string& library, int ranks, int poll_every_us);
void print_overlap_row(std::FILE* out, std::size_t bytes, const OverlapResult& result);

}  // namespace rcoll::bench
