// The point-to-point rule of docs/ERRORS.md: a message that does not fit
// its receive (longer than the buffer, or not a whole number of elements)
// fails that receive with a MessageError, and the communicator stays
// usable. Only a receive's own message can do that: the transport consumed
// it and the connection is intact. Inside a collective the same truncation
// stays an IoError (the ranks no longer agree on the data).
#pragma once

#include <cstddef>

#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "diagnostics/call_info.hpp"
#include "transport/transport.hpp"

namespace rcoll::comm {

// transport::wait for one receive; a message longer than its buffer raises
// MessageError (rank, peer, `label`, the sizes) instead of the transport's
// TruncationError.
void wait_for_message(transport::Transport& transport, const transport::RequestPtr& request, Deadline deadline,
                      const LazyText& label);

// The number of elements in a message of `received` bytes for receive
// `call` of `capacity` bytes on `rank`; MessageError when `received` is not
// a whole number of call.type's elements.
std::size_t whole_elements(int rank, const diagnostics::CallInfo& call, std::size_t received, std::size_t capacity);

}  // namespace rcoll::comm
