// What wait.cpp and operation.cpp share: the current operation, the
// suspended ones, and progress over every transport they wait on. Internal
// to src/transport.
#pragma once

#include <cstdint>

#include "transport/transport.hpp"

namespace rcoll::transport {
class Operation;
}

namespace rcoll::transport::driving {

// The operation running on this thread (null outside every operation).
Operation* current() noexcept;
// True if the current operation was cancelled.
bool cancelled(const Operation& operation) noexcept;
// Suspends the current operation, which waits on `transport`, until the
// driver resumes it.
void suspend(Operation& operation, Transport& transport);

// True while this thread has suspended operations.
bool any_suspended() noexcept;
// Resumes each suspended operation once (those that finish leave the list).
void resume_suspended();
// progress() on `transport` and on every other transport a suspended
// operation waits on; counts the calls that moved (generation()).
bool progress(Transport& transport);
// How many progress() calls on this thread have moved so far.
std::uint64_t generation() noexcept;
// True if a suspended operation waits on a transport other than `transport`.
bool waits_elsewhere(const Transport& transport) noexcept;

}  // namespace rcoll::transport::driving
