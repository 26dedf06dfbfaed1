// Waiting on requests: spin on progress() briefly, then block in
// wait_for_activity(), until done or the deadline passes.
#pragma once

#include <span>
#include <string_view>

#include "common/deadline.hpp"
#include "common/lazy_text.hpp"
#include "transport/transport.hpp"

namespace rcoll::transport {

// Waits until no request is pending. On the first failed request: cancels
// the others and rethrows its IoError. At the deadline: cancels every pending
// request and throws TimeoutError naming `step` and the peers still pending.
// `step` is read only for an error.
void wait_all(Transport& transport, std::span<const RequestPtr> requests, Deadline deadline, const LazyText& step);

inline void wait(Transport& transport, const RequestPtr& request, Deadline deadline, const LazyText& step) {
  wait_all(transport, std::span<const RequestPtr>(&request, 1), deadline, step);
}

}  // namespace rcoll::transport
