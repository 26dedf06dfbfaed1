// Communicators on ranks as threads of the test process, joined through an
// in-memory rendezvous: the fixture of the comm-level tests.
#pragma once

#include <functional>
#include <string>

#include <rcoll/comm.hpp>
#include <rcoll/options.hpp>

namespace rcoll::test {

// Runs `body` on `size` ranks, each with a Comm over `backend` ("tcp",
// "rdma", or "inproc" for the in-process fabric). Every rank starts from
// `base` with its rank, size, the in-memory bootstrap and the transport kind set;
// `adjust` (if given) may change a rank's options after that.
void run_comm_ranks(const std::string& backend, int size, const Options& base,
                    const std::function<void(Comm&)>& body, const std::function<void(Options&)>& adjust = {});

}  // namespace rcoll::test
