// Fuzz target: the bootstrap service fed byte streams from several clients
// at once. It drives what ServerLoop does per client, without its listening
// socket and poll(): each client is a socketpair whose far end the fuzzer
// writes; the near end is a real ServerSession (input buffering, framing,
// I/O deadlines), and every complete frame goes to a real ServerJob (proof
// check, joins, barriers, the key-value store, wait deadlines). Time is a
// fake clock the input advances, so deadlines fire without sleeping.
//
// Input: a world size (1-4), then operations until the bytes run out:
//   write(client, n bytes) | advance the clock | client hangs up.
// The job token is "fuzz-token" and every session's challenge is all zero
// (the real server draws a fresh one), so a seed can hold JOINs with a
// right proof (make_corpus.cpp).
// Invariants: nothing crashes or leaks; at most `size` ranks join; every
// byte the server sends a client is a well-formed server-to-client frame
// whose payload its decoder accepts, the first one a CHALLENGE; a session
// whose input was refused is closed.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bootstrap/messages.hpp"
#include "bootstrap/server_job.hpp"
#include "bootstrap/server_session.hpp"
#include "fuzz_support.hpp"

namespace {

namespace wire = rcoll::bootstrap::wire;
using rcoll::bootstrap::ServerJob;
using rcoll::bootstrap::ServerSession;
using Clock = std::chrono::steady_clock;

constexpr std::size_t max_clients = 6;
constexpr ServerSession::Timeouts timeouts{std::chrono::milliseconds(2000), std::chrono::milliseconds(500)};

// Checks one answer frame the way a client would decode it.
void check_answer(const wire::Frame& frame) {
  using T = wire::MessageType;
  switch (static_cast<T>(frame.type)) {
    case T::members: (void)wire::decode_members(frame.payload); return;
    case T::error: (void)wire::decode_error(frame.payload); return;
    case T::barrier_done:
    case T::put_done: (void)wire::decode_done(frame.payload); return;
    case T::value: (void)wire::decode_value(frame.payload); return;
    case T::challenge: (void)wire::decode_challenge(frame.payload); return;
    case T::accepted: (void)wire::decode_accepted(frame.payload); return;
    default: FUZZ_CHECK(!"the server sent a client-to-server message type");
  }
}

struct Client {
  rcoll::fuzz::SocketPair sockets;
  std::unique_ptr<ServerSession> session;
  std::string answers;  // received, not yet decoded
  bool challenged = false;  // the CHALLENGE, which must come first, was read
};

class Harness {
 public:
  Harness(int size, Clock::time_point start)
      : size_(size), now_(start), job_(size, "fuzz-token", start + std::chrono::seconds(10)) {}

  ~Harness() {
    for (auto& client : clients_)
      if (client.session) job_.on_disconnect(*client.session, "fuzz input ended");
  }

  void write(std::size_t index, std::string_view bytes) {
    Client& client = at(index);
    if (!client.session) return;
    client.sockets.feed(bytes);
    serve(client);
  }

  void hang_up(std::size_t index) {
    Client& client = at(index);
    if (!client.session) return;
    client.sockets.hang_up();
    serve(client);
  }

  void advance(std::chrono::milliseconds by) {
    now_ += by;
    job_.expire(now_);
    for (auto& client : clients_) {
      if (!client.session) continue;
      ServerSession& session = *client.session;
      auto deadline = session.io_deadline();
      if (!deadline || now_ < *deadline) continue;
      FUZZ_CHECK(session.check_io_deadline(now_));
    }
  }

  // What ServerLoop does after every wakeup: reap, flush, reap; then the
  // clients read their answers.
  void settle() {
    reap();
    for (auto& client : clients_)
      if (client.session && client.session->wants_write()) client.session->flush(now_);
    reap();
    FUZZ_CHECK(job_.joined() >= 0 && job_.joined() <= size_);
    for (auto& client : clients_) read_answers(client);
  }

 private:
  Client& at(std::size_t index) {
    index %= max_clients;
    if (clients_.size() <= index) clients_.resize(index + 1);
    Client& client = clients_[index];
    if (!client.session && !client.sockets.far.valid()) {  // a new connection
      client.sockets = rcoll::fuzz::SocketPair::make();
      client.answers.clear();
      client.challenged = false;
      client.session = std::make_unique<ServerSession>(std::move(client.sockets.near), now_, timeouts,
                                                       rcoll::auth::Nonce{});
      client.session->send(wire::encode(wire::ChallengeMessage{client.session->challenge()}));
    }
    return client;
  }

  void serve(Client& client) {
    ServerSession& session = *client.session;
    session.read_available(now_);
    for (;;) {
      wire::Decoded decoded = session.next_frame(now_);
      if (decoded.status == wire::Decoded::Status::need_more) break;
      if (decoded.status == wire::Decoded::Status::error) {
        job_.refuse(session, decoded.error, decoded.detail);
        FUZZ_CHECK(session.closing());
        break;
      }
      job_.on_frame(session, decoded.frame, now_);
    }
  }

  void reap() {
    for (auto& client : clients_) {
      if (!client.session || !client.session->finished()) continue;
      ServerSession& session = *client.session;
      job_.on_disconnect(session, session.dead() ? session.why_dead() : "was closed by the server");
      client.session.reset();
    }
  }

  void read_answers(Client& client) {
    if (!client.sockets.far.valid()) return;
    client.answers += client.sockets.drain();
    for (;;) {
      wire::Decoded decoded = wire::decode_frame(client.answers, wire::max_answer_payload);
      FUZZ_CHECK(decoded.status != wire::Decoded::Status::error);
      if (decoded.status == wire::Decoded::Status::need_more) break;
      FUZZ_CHECK(client.challenged || decoded.frame.type == static_cast<std::uint16_t>(wire::MessageType::challenge));
      client.challenged = true;
      check_answer(decoded.frame);
      client.answers.erase(0, decoded.consumed);
    }
  }

  int size_;
  Clock::time_point now_;
  ServerJob job_;
  std::vector<Client> clients_;  // after job_: destroyed first, as the loop does
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  rcoll::fuzz::init_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rcoll::fuzz::Input input(data, size);
  Harness harness(1 + input.u8() % 4, Clock::now());
  while (!input.empty()) {
    std::uint8_t op = input.u8();
    std::size_t client = op >> 4;
    switch (op & 15) {
      case 0: harness.hang_up(client); break;
      case 1: harness.advance(std::chrono::milliseconds(input.u16())); break;
      default: harness.write(client, input.bytes(input.u16())); break;
    }
    harness.settle();
  }
  return 0;
}
