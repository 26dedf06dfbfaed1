// A client of PyTorch's TCPStore as an rcoll::Store (include/rcoll/store.hpp).
// torchrun's agent serves such a store at MASTER_ADDR:MASTER_PORT, and
// Comm::from_env bootstraps through it under torchrun (comm/environment.hpp).
//
// The wire protocol is torch 1.13's (torch/csrc/distributed/c10d/TCPStore.cpp;
// the query types used here kept their numbers in later versions). A request
// is one byte, its query type, then its arguments; a string (key or value)
// is its length as a u64 in the host's byte order, then its bytes; a list of
// keys is a u64 count, then the keys. Answers come in the order of the
// requests, one per request:
//   SET (0) key, value: no answer; wakes the WAITs for the key.
//   COMPARE_SET (1) key, expected, desired: the key's value afterwards, a
//                   string. A missing key with an empty `expected` is set,
//                   but the WAITs for it are not woken.
//   GET (2) key: its value, a string (the server drops a connection that
//                   asks for a missing key, so GET follows WAIT or CHECK).
//   CHECK (4) keys: one byte, 0 when every key exists, else 1.
//   WAIT (5) keys: one byte 0 once every key exists, nothing before; torch
//                   1.13 cannot cancel a wait.
//
// How the rcoll::Store contract maps onto it:
// - Keys get "/" in front, as torch's own client adds, so that Python's
//   TCPStore sees rcoll's key "k" as "k".
// - Values are stored with one byte '+' in front: set() is a COMPARE_SET
//   with an empty expected value (write-once, first wins; the answer is the
//   value that stays), which would overwrite a key holding an empty value.
//   When the answer is this client's value, a SET of the same value
//   follows, to wake the key's waiters.
// - get() is a WAIT, then a GET; try_get() a CHECK, then a GET.
// - Every wait is bounded: a non-blocking socket polled until the call's
//   deadline (try_get: 30 s for its round trips). A call that stops in the
//   middle of a request (its deadline passed, the connection broke) closes
//   the connection, so that no late answer is taken for the next request's:
//   the next call connects again (and the server forgets a closed
//   connection's waits). The connection is made by the first call, retrying
//   while nobody listens, until that call's deadline.
//
// Errors name the rank (-1: unknown), the store's address and the key:
// TimeoutError when get's key was not set before the deadline; IoError when
// the store cannot be reached before the deadline, closes the connection or
// answers nonsense; InvalidArgument for a set of another value (the first
// stays), a malformed address, or a value this client did not write.
// Thread-safe: calls run one at a time.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "common/deadline.hpp"
#include "common/fd.hpp"
#include "rcoll/store.hpp"

namespace rcoll::store {

class TorchStoreClient final : public rcoll::Store {
 public:
  // `address`: "host:port" of the TCPStore server; InvalidArgument when it
  // is malformed or the host does not resolve. Does not connect yet.
  TorchStoreClient(const std::string& address, int rank);

  void set(const std::string& key, const std::string& value, Clock::time_point deadline) override;
  std::string get(const std::string& key, Clock::time_point deadline) override;
  std::optional<std::string> try_get(const std::string& key) override;

  // "a.b.c.d:port", as the errors name it.
  const std::string& address() const noexcept { return address_; }

 private:
  // The requests; each connects first when there is no connection.
  std::string compare_set(const std::string& key, const std::string& expected, const std::string& desired,
                          Deadline deadline);
  void wake_waiters(const std::string& key, const std::string& value, Deadline deadline);
  bool check(const std::string& key, Deadline deadline);
  void wait(const std::string& key, Deadline deadline);
  std::string fetch(const std::string& key, Deadline deadline);

  // Runs one request: connects when needed, sends `request`, then reads
  // its answer with `read`; closes the connection when anything throws.
  template <class Read>
  auto round_trip(const std::string& request, const std::string& step, Deadline deadline, Read read);
  void connect(const std::string& step, Deadline deadline);
  void send_all(const std::string& bytes, const std::string& step, Deadline deadline);
  void receive(char* data, std::size_t size, const std::string& step, Deadline deadline);
  std::uint8_t receive_byte(const std::string& step, Deadline deadline);
  std::string receive_string(const std::string& step, Deadline deadline);

  std::string stored(const std::string& key, const std::string& value) const;  // without the marker
  std::string who() const;                                                     // "rank R: torch store at A"
  [[noreturn]] void io_error(const std::string& step, const std::string& cause) const;
  [[noreturn]] void timed_out(const std::string& step, const std::string& what) const;

  sockaddr_in server_{};
  std::string address_;
  int rank_;
  std::mutex mutex_;
  UniqueFd fd_;
};

}  // namespace rcoll::store
