// The message layer towards one rank: matching, the eager and rendezvous
// protocols, and the connection once its handshake is done.
//
// Protocol choice per send (docs/PROTOCOLS.md): at most `eager_limit` bytes
// always go EAGER; up to `credit.eager` bytes go EAGER too while they fit
// the sender's credit; the rest go by rendezvous (RTS, CTS, DATA). Credit
// bounds what a receiver must store: each side of a connection starts with
// `credit.window` bytes of credit towards the other, spends a message's
// length on each credited EAGER frame (one above eager_limit) and gets it
// back in CREDIT frames once the receiver has delivered or dropped the
// payload. A receiver refuses (protocol error) credited frames beyond the
// window, so its unexpected credited payloads never exceed it.
//
// Requests may be posted before the connection exists; sends queue and go out
// in order once attach() hands over the connection. Matching per tag is in
// posting order on both sides, because frames leave and arrive in order.
// A peer that fails (EOF, socket error, protocol violation) fails every
// pending request with an IoError and stays failed.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/fd.hpp"
#include "transport/request.hpp"
#include "transport/buffer_pool.hpp"
#include "transport/tcp/poller.hpp"
#include "transport/tcp/rx_stream.hpp"
#include "transport/tcp/send_buffer.hpp"
#include "transport/tcp/send_queue.hpp"

namespace rcoll::transport::tcp {

// The credit a Peer grants and spends (see above).
struct CreditLimits {
  std::size_t window = 0;  // 0: no credited EAGER frames
  std::size_t eager = 0;   // largest credited EAGER message; at most window
};

class Peer final : private FrameSink {
 public:
  enum class State : std::uint8_t { unconnected, ready, failed };

  // `self`: this process's rank; `rank`: the peer's (equal for loopback to
  // self). Both ends of a connection must use the same `eager_limit` and
  // `credit.window`. `send_buffer`: how the socket's kernel send buffer is
  // sized per frame (send_buffer.hpp; default: autotuning).
  Peer(int self, int rank, std::size_t eager_limit, Poller& poller, CreditLimits credit = {},
       SendBuffer send_buffer = {});
  ~Peer() override;
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  int rank() const noexcept { return rank_; }
  State state() const noexcept { return state_; }
  // "a.b.c.d:port" of the other side, for error messages.
  void set_where(std::string where) { where_ = std::move(where); }

  // The request must be pending. post_send: the peer must not have failed.
  // post_recv on a failed peer still matches complete messages that arrived
  // before the failure, and fails the request otherwise.
  void post_send(const RequestPtr& request, const void* buf, std::size_t bytes);
  void post_recv(const RequestPtr& request, void* buf, std::size_t capacity);
  // After this the peer never touches the request's buffer again.
  void cancel(Request& request);
  // Fails `request` with this peer's failure.
  void fail_request(Request& request) const;

  // Takes over a connected, handshaken socket and sends what is queued.
  void attach(UniqueFd fd);
  // Handles epoll events on the connection; true if anything moved.
  bool on_events(std::uint32_t events);
  // Fails every pending request with `cause` and closes the connection.
  void fail(const std::string& cause);

 private:
  struct PostedRecv {
    RequestPtr request;
    std::byte* buf = nullptr;
    std::size_t capacity = 0;
  };
  // A message that arrived before its receive was posted. EAGER payloads are
  // stored here (copied once on match); an RTS is only remembered, its data
  // stays with the sender until a receive clears it.
  struct Unexpected {
    FrameType type;
    Tag tag;
    std::size_t length;
    std::uint64_t id;
    BufferPool::Block payload;
    bool complete = false;     // all EAGER payload bytes arrived
    PostedRecv claimant;       // a receive that matched it while its payload was arriving
    std::size_t credited = 0;  // credit to give back when it is released
  };
  struct RdvSend {
    RequestPtr request;
    const std::byte* buf;
    std::size_t bytes;
  };
  struct RdvRecv {
    RequestPtr request;
    std::byte* buf;
    std::size_t length;
  };
  // The message whose payload the stream is reading.
  struct Inbound {
    RequestPtr request;
    std::size_t length = 0;
    std::list<Unexpected>::iterator unexpected;
    bool to_unexpected = false;
    std::size_t credited = 0;  // credit to give back once read (if not to_unexpected)
  };

  std::byte* on_frame(const FrameHeader& header) override;
  void on_payload_done() override;
  std::byte* on_eager(const FrameHeader& header);
  void on_rts(const FrameHeader& header);
  void on_cts(const FrameHeader& header);
  std::byte* on_data(const FrameHeader& header);
  void on_credit(const FrameHeader& header);
  std::size_t take_credit(std::uint64_t bytes, const char* what);
  void give_back(std::size_t bytes);

  bool take_posted(Tag tag, PostedRecv& out);
  void accept_rts(Tag tag, std::size_t length, std::uint64_t id, const PostedRecv& recv);
  void send_rts(const RequestPtr& request, const std::byte* buf, std::size_t bytes);
  void deliver_copy(const std::byte* data, std::size_t length, const PostedRecv& recv);
  void release(std::list<Unexpected>::iterator it);
  void send_to_self(const RequestPtr& request, const void* buf, std::size_t bytes);
  void push_frame(FrameType type, Tag tag, std::size_t length, std::uint64_t id, std::uint8_t flags = 0);
  bool flush();
  void size_send_buffer(std::size_t bytes);
  void fail_truncated(Request& request, std::size_t length, std::size_t capacity) const;
  std::vector<RequestPtr> take_pending();

  int self_;
  int rank_;
  std::size_t eager_limit_;
  CreditLimits limits_;
  Poller& poller_;
  State state_ = State::unconnected;
  std::string where_ = "address unknown";
  std::string cause_;
  UniqueFd fd_;
  bool want_write_ = false;
  SendBuffer send_buffer_;
  std::size_t send_buffer_now_ = 0;  // the size last set; 0: the kernel's autotuning

  BufferPool pool_;
  SendQueue tx_;
  RxStream rx_;
  Inbound inbound_;
  std::list<PostedRecv> posted_;
  std::list<Unexpected> unexpected_;
  std::unordered_map<std::uint64_t, RdvSend> rdv_sends_;  // RTS sent, waiting for CTS
  std::unordered_map<std::uint64_t, RdvRecv> rdv_recvs_;  // CTS sent, waiting for DATA
  std::uint64_t next_id_ = 1;
  // Sending side: credit left to spend.
  std::size_t credit_;
  // Receiving side: credited bytes received and not yet handed back
  // (at most limits_.window), and of those, the ones ready to hand back.
  std::size_t credit_held_ = 0;
  std::size_t credit_owed_ = 0;
};

std::string_view to_string(Peer::State state) noexcept;

}  // namespace rcoll::transport::tcp
