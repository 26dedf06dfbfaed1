#include "comm/message_fit.hpp"

#include <string>

#include "rcoll/errors.hpp"
#include "transport/truncation.hpp"
#include "transport/wait.hpp"

namespace rcoll::comm {

void wait_for_message(transport::Transport& transport, const transport::RequestPtr& request, Deadline deadline,
                      const LazyText& label) {
  try {
    transport::wait(transport, request, deadline, label);
  } catch (const transport::TruncationError& e) {
    // Sends the refusal of the message on its way now: the sender's send
    // waits for it, and this rank may make no further call for a while.
    // (TCP writes its CTS with discard at once anyway; RDMA's truncated
    // CTS waits in the control queue until the next progress.)
    transport.progress();
    throw MessageError(e.rank(), e.peer(), label.str(), e.cause() + " (the message was discarded)", e.length(),
                       e.capacity());
  }
}

std::size_t whole_elements(int rank, const diagnostics::CallInfo& call, std::size_t received, std::size_t capacity) {
  const std::size_t size = dtype_size(call.type);
  if (received % size != 0)
    throw MessageError(rank, call.peer, call.label(),
                       "received " + std::to_string(received) + " bytes, not a whole number of " +
                           std::string(to_string(call.type)) + " elements (the bytes are in the buffer)",
                       received, capacity);
  return received / size;
}

}  // namespace rcoll::comm
