// The TCP bootstrap rank service: one per job. Ranks connect, prove the job
// token by challenge-response (proofs.hpp; the token never travels) and JOIN
// with world size, rank and endpoint blob; once all `size` ranks have
// joined, each gets every rank's {address it connected from, blob}. The
// connections then stay open for BARRIER, PUT and GET. Wire format and
// refusal codes: docs/PROTOCOLS.md, "Bootstrap rank service".
//
// One thread serves every client with poll() over non-blocking sockets,
// per-client buffers and per-client deadlines: a slow, silent or hostile
// client costs one connection and never blocks the others; nothing a client
// sends can crash or hang the server (every frame and field is bounded).
// A connection that has not proven the token costs a nonce and one frame,
// gets a short hello_timeout, is evicted (oldest first) when too many wait,
// and is never logged on its own (a rate-limited summary counts them), so a
// flood of them neither displaces a rank nor floods the job's output.
//
// run() returns when
// - the job formed and every rank has disconnected again (completed), or
// - the join window (join_timeout, counted from run()) ended, or a rank's
//   own join deadline passed, with ranks missing: the joined ranks are told
//   which ranks never joined (join_timed_out), or
// - a joined rank disconnected before the job formed: the others are told
//   which rank was lost (rank_lost), or
// - stop() was called (stopped).
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/fd.hpp"

namespace rcoll::bootstrap {

class BootstrapServer {
 public:
  struct Config {
    std::string listen = "127.0.0.1:0";  // host:port; port 0 = any free port
    int size = 0;                        // world size, >= 1
    std::string job_token;               // every JOIN must prove it
    std::chrono::milliseconds join_timeout{60000};
    // A client must complete each frame within this time, and must read
    // its answers within it.
    std::chrono::milliseconds io_timeout{10000};
    // A new connection must send its JOIN within this time of connecting
    // (a genuine rank answers the CHALLENGE at once and reconnects if it
    // was too slow).
    std::chrono::milliseconds hello_timeout{2000};
    // The rank hosting the service in its own process (Comm::create), for
    // errors; -1: the standalone rcoll-bootstrapd.
    int host_rank = -1;
  };

  enum class Outcome { serving, completed, join_timed_out, rank_lost, stopped, failed };

  // Binds and listens at once (so address() is known before run()).
  // InvalidArgument for a bad config; IoError (rank host_rank) naming the
  // address if the socket cannot be bound; for a port in use it also names
  // who holds it when /proc tells (net::port_owner).
  explicit BootstrapServer(Config config);
  // Stops and joins the background thread, if any.
  ~BootstrapServer();
  BootstrapServer(const BootstrapServer&) = delete;
  BootstrapServer& operator=(const BootstrapServer&) = delete;

  // "host:port" actually bound.
  std::string address() const { return address_; }

  // Serves on the calling thread until the job ends (see above). Call once,
  // either directly or through start(). Throws IoError only if the server's
  // own machinery (poll, eventfd) fails.
  void run();
  // run() on an owned background thread; a failure there ends in Outcome::failed.
  void start();
  // Makes run() return soon. Thread-safe and async-signal-safe (an atomic
  // store and a write to an eventfd), so a signal handler may call it.
  void stop() noexcept;

  // Valid once run() returned (serving before).
  Outcome outcome() const;
  // join_timed_out: the ranks that never joined; rank_lost: the lost rank.
  std::vector<int> failed_ranks() const;
  // Human-readable reason for any outcome but completed.
  std::string failure() const;
  // Ranks joined so far (for tests and progress logs); thread-safe.
  int joined_ranks() const noexcept { return joined_.load(); }

 private:
  void finish(Outcome outcome, std::vector<int> ranks, std::string text);

  Config config_;
  UniqueFd listen_fd_;
  UniqueFd wake_fd_;  // eventfd: stop() writes, the loop polls
  std::string address_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<int> joined_{0};
  mutable std::mutex result_mutex_;
  Outcome outcome_ = Outcome::serving;
  std::vector<int> failed_ranks_;
  std::string failure_;
  std::thread thread_;
};

std::string to_string(BootstrapServer::Outcome outcome);

}  // namespace rcoll::bootstrap
