#pragma once

namespace rcoll::test {

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0 and
// released). For tests that must name a port before the server starts.
int free_tcp_port();

}  // namespace rcoll::test
