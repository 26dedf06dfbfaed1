// rcoll::store::TorchStoreClient (tcp_store_client.hpp): PyTorch's TCPStore
// protocol over one connection, every wait bounded by a deadline.
#include "store/tcp_store_client.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/socket_util.hpp"
#include "rcoll/errors.hpp"

namespace rcoll::store {
namespace {

// The query types and answers of torch 1.13's TCPStore that this client uses.
enum class Query : std::uint8_t { set = 0, compare_set = 1, get = 2, check = 4, wait = 5 };
constexpr std::uint8_t check_ready = 0, check_not_ready = 1;
constexpr std::uint8_t stop_waiting = 0;

// torch's own client puts this in front of every key.
constexpr char key_prefix[] = "/";
// In front of every value this client stores (see the header: never empty).
constexpr char value_marker = '+';

// Bound on try_get's round trips, which have no deadline of their own.
constexpr std::chrono::seconds try_get_round_trip{30};
// A longer answer is not one (rcoll's values are a few KiB).
constexpr std::uint64_t max_answer = std::uint64_t{256} << 20;

void append_u64(std::string& out, std::uint64_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);  // the host's byte order, as torch sends it
  out.append(bytes, sizeof value);
}

void append_string(std::string& out, const std::string& text) {
  append_u64(out, text.size());
  out += text;
}

std::string request_of(Query type) { return std::string(1, static_cast<char>(type)); }

// A request about one key: CHECK and WAIT take a list (of one), GET the key.
std::string key_request(Query type, const std::string& wire_key) {
  std::string request = request_of(type);
  if (type != Query::get) append_u64(request, 1);
  append_string(request, wire_key);
  return request;
}

std::string quoted(const std::string& key) { return "'" + key + "'"; }

}  // namespace

TorchStoreClient::TorchStoreClient(const std::string& address, int rank) : rank_(rank) {
  const net::HostPort where = net::parse_host_port(address);
  server_ = net::resolve_ipv4(where.host, where.port);
  address_ = net::to_string(server_);
}

std::string TorchStoreClient::who() const { return "rank " + std::to_string(rank_) + ": torch store at " + address_; }

void TorchStoreClient::io_error(const std::string& step, const std::string& cause) const {
  throw IoError(rank_, -1, "torch store at " + address_ + ": " + step, cause);
}

void TorchStoreClient::timed_out(const std::string& step, const std::string& what) const {
  throw TimeoutError(who() + ": " + step + ": " + what);
}

// ---- the public calls ----

void TorchStoreClient::set(const std::string& key, const std::string& value, Clock::time_point deadline) {
  const std::string mine = value_marker + value;
  std::lock_guard lock(mutex_);
  const std::string held = compare_set(key, "", mine, Deadline::until(deadline));
  if (held != mine) {
    stored(key, held);  // a value of someone else's is named as such
    throw InvalidArgument(who() + ": key " + quoted(key) + " is set already, to another value (keys are write-once)");
  }
  wake_waiters(key, mine, Deadline::until(deadline));
}

std::string TorchStoreClient::get(const std::string& key, Clock::time_point deadline) {
  std::lock_guard lock(mutex_);
  wait(key, Deadline::until(deadline));
  return stored(key, fetch(key, Deadline::until(deadline)));
}

std::optional<std::string> TorchStoreClient::try_get(const std::string& key) {
  std::lock_guard lock(mutex_);
  const Deadline deadline = Deadline::after(try_get_round_trip);
  if (!check(key, deadline)) return std::nullopt;
  return stored(key, fetch(key, deadline));
}

std::string TorchStoreClient::stored(const std::string& key, const std::string& value) const {
  if (value.empty() || value.front() != value_marker)
    throw InvalidArgument(who() + ": key " + quoted(key) + " holds a value that rcoll did not write");
  return value.substr(1);
}

// ---- the connection ----

template <class Read>
auto TorchStoreClient::round_trip(const std::string& request, const std::string& step, Deadline deadline, Read read) {
  try {
    if (!fd_) connect(step, deadline);
    send_all(request, step, deadline);
    return read();
  } catch (...) {
    fd_.reset();  // the answer may still come: never read it as the next request's
    throw;
  }
}

void TorchStoreClient::connect(const std::string& step, Deadline deadline) {
  net::ConnectFailure failure;
  fd_ = net::connect_with_retry(server_, deadline, failure);
  if (fd_) return;
  const std::string last = net::errno_text(failure.error);
  if (!failure.retryable) io_error(step, "cannot connect: " + last);
  io_error(step,
           "not reachable before the deadline (" + std::to_string(failure.attempts) + " attempts, last: " + last + ")");
}

void TorchStoreClient::send_all(const std::string& bytes, const std::string& step, Deadline deadline) {
  const int error = net::send_all(fd_.get(), bytes, deadline);
  if (error < 0) timed_out(step, "the store took no request before the deadline");
  if (error > 0) io_error(step, "send: " + net::errno_text(error));
}

void TorchStoreClient::receive(char* data, std::size_t size, const std::string& step, Deadline deadline) {
  for (std::size_t got = 0; got < size;) {
    const ssize_t n = ::recv(fd_.get(), data + got, size - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n == 0) {
      io_error(step, "the store closed the connection");
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      io_error(step, "recv: " + net::errno_text(errno));
    } else if (errno != EINTR && net::wait_fd(fd_.get(), POLLIN, deadline) == 0) {
      timed_out(step, "no answer from the store before the deadline");
    }
  }
}

std::uint8_t TorchStoreClient::receive_byte(const std::string& step, Deadline deadline) {
  char byte = 0;
  receive(&byte, 1, step, deadline);
  return static_cast<std::uint8_t>(byte);
}

std::string TorchStoreClient::receive_string(const std::string& step, Deadline deadline) {
  std::uint64_t size = 0;
  char bytes[sizeof size];
  receive(bytes, sizeof bytes, step, deadline);
  std::memcpy(&size, bytes, sizeof size);
  if (size > max_answer) io_error(step, "an answer of " + std::to_string(size) + " bytes is no answer");
  std::string text(size, '\0');
  receive(text.data(), text.size(), step, deadline);
  return text;
}

// ---- the requests ----

std::string TorchStoreClient::compare_set(const std::string& key, const std::string& expected,
                                          const std::string& desired, Deadline deadline) {
  std::string request = request_of(Query::compare_set);
  append_string(request, key_prefix + key);
  append_string(request, expected);
  append_string(request, desired);
  const std::string step = "set " + quoted(key);
  return round_trip(request, step, deadline, [&] { return receive_string(step, deadline); });
}

// torch's COMPARE_SET wakes no WAIT for the key it creates; a SET does. It
// writes the value the key holds already, so the first value stays.
void TorchStoreClient::wake_waiters(const std::string& key, const std::string& value, Deadline deadline) {
  std::string request = request_of(Query::set);
  append_string(request, key_prefix + key);
  append_string(request, value);
  round_trip(request, "set " + quoted(key), deadline, [] {});  // SET has no answer
}

bool TorchStoreClient::check(const std::string& key, Deadline deadline) {
  const std::string step = "check " + quoted(key);
  const std::uint8_t answer = round_trip(key_request(Query::check, key_prefix + key), step, deadline,
                                         [&] { return receive_byte(step, deadline); });
  if (answer != check_ready && answer != check_not_ready)
    io_error(step, "answer " + std::to_string(answer) + " is neither READY (0) nor NOT_READY (1)");
  return answer == check_ready;
}

void TorchStoreClient::wait(const std::string& key, Deadline deadline) {
  const std::string step = "get " + quoted(key);
  const std::uint8_t answer = round_trip(key_request(Query::wait, key_prefix + key), step, deadline, [&] {
    if (net::wait_fd(fd_.get(), POLLIN, deadline) == 0) timed_out(step, "the key was not set before the deadline");
    return receive_byte(step, deadline);
  });
  if (answer != stop_waiting) io_error(step, "answer " + std::to_string(answer) + " to WAIT is not STOP_WAITING (0)");
}

std::string TorchStoreClient::fetch(const std::string& key, Deadline deadline) {
  const std::string step = "get " + quoted(key);
  return round_trip(key_request(Query::get, key_prefix + key), step, deadline,
                    [&] { return receive_string(step, deadline); });
}

}  // namespace rcoll::store
