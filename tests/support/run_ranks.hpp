// Runs `size` ranks as threads of the test process and rethrows the first
// exception any of them raised, after all have finished.
#pragma once

#include <functional>

namespace rcoll::test {

void run_ranks(int size, const std::function<void(int rank)>& body);

}  // namespace rcoll::test
