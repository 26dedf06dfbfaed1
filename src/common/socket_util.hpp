// Small, generic helpers for IPv4 TCP sockets, shared by the bootstrap
// service and the TCP transport. No protocol knowledge lives here.
//
// Errors: functions that throw use rcoll::IoError with rank -1 and peer -1
// (they do not know who is calling; callers that do may catch and rethrow
// with their rank), step naming the operation and address, cause = errno
// text. Malformed user input ("host:port" text, unknown host names) throws
// rcoll::InvalidArgument. Every socket created here is CLOEXEC.
#pragma once

#include <netinet/in.h>
#include <poll.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/deadline.hpp"
#include "common/fd.hpp"

namespace rcoll::net {

struct HostPort {
  std::string host;  // name or dotted IPv4; empty means "any" for listening
  std::uint16_t port = 0;
};

// Parses "host:port" (the last ':' separates; port 0..65535, decimal).
// InvalidArgument naming the text if it is malformed.
HostPort parse_host_port(std::string_view text);

// Resolves `host` to one IPv4 address via getaddrinfo (AF_INET only).
// Empty host, "*" and "0.0.0.0" give INADDR_ANY. InvalidArgument with the
// resolver's reason if the name does not resolve.
sockaddr_in resolve_ipv4(const std::string& host, std::uint16_t port);

// "a.b.c.d:port" / "a.b.c.d" for an IPv4 socket address.
std::string to_string(const sockaddr_in& address);
std::string ip_string(const sockaddr_in& address);

// The address the peer of a connected socket connects from ("a.b.c.d"), or
// "?" if getpeername fails (the peer already vanished).
std::string peer_ip(int fd);
// "a.b.c.d:port" of the peer, or "?" on failure (for log lines).
std::string peer_address(int fd);
// "a.b.c.d:port" this socket is bound to (the real port after binding port 0).
// IoError if getsockname fails.
std::string local_address(int fd);

// O_NONBLOCK on; IoError on failure.
void set_nonblocking(int fd);
// TCP_NODELAY on (small request/answer frames must not wait for Nagle);
// IoError on failure.
void set_nodelay(int fd);

// A non-blocking listening TCP socket bound to host:port with SO_REUSEADDR
// (port 0: the kernel picks one; read it back with local_address()).
// IoError naming "host:port" and errno text (e.g. "Address already in use").
UniqueFd listen_on(const std::string& host, std::uint16_t port, int backlog = 128);

// Starts a non-blocking connect to `address`. The returned socket is
// non-blocking with TCP_NODELAY. `error` receives 0 when the connection is
// established or in progress (wait for POLLOUT, then read socket_error()),
// or the errno of an immediate failure (e.g. ECONNREFUSED on loopback), in
// which case the returned UniqueFd is empty. IoError if socket() itself fails.
UniqueFd connect_nonblocking(const sockaddr_in& address, int& error);

// The pending error of a socket (SO_ERROR), 0 if none; after a non-blocking
// connect became writable, 0 means connected.
int socket_error(int fd);

// Why connect_with_retry gave up: the errno of its last attempt (ETIMEDOUT
// when the deadline passed inside one), how many attempts it made, and
// whether that errno means "nobody listens there yet" (then the deadline
// passed while it retried) or a failure not worth retrying.
struct ConnectFailure {
  int error = 0;
  int attempts = 0;
  bool retryable = false;
};

// Connects to `address` before `deadline`, retrying the errors that mean
// "not up yet" (refused, reset, unreachable, timed out) with a backoff from
// 10 ms to 250 ms: a client may start before its server listens. Returns
// the connected socket (non-blocking, TCP_NODELAY), or an empty one with
// `failure` filled in. IoError if socket() itself fails.
UniqueFd connect_with_retry(const sockaddr_in& address, Deadline deadline, ConnectFailure& failure);

// Sends all of `bytes` on non-blocking socket `fd` (MSG_NOSIGNAL), waiting
// for room until `deadline`; retries EINTR. Returns 0 when all was sent,
// -1 when the deadline passed first, else the errno of the failed send.
int send_all(int fd, std::string_view bytes, Deadline deadline);

// poll() on one fd for `events` until it is ready or `deadline` passes;
// retries EINTR. Returns the revents (0 on timeout). IoError if poll fails.
short wait_fd(int fd, short events, Deadline deadline);

// errno text, e.g. "Connection refused (errno 111)".
std::string errno_text(int error);

}  // namespace rcoll::net
