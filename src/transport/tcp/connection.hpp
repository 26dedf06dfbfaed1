// The byte stream towards one peer: the socket once its handshake is done,
// the frames queued to go out on it, and the stream of frames coming in.
//
// Frames may be queued before the socket exists; they go out in order once
// attach() hands it over. flush() writes what the socket takes, keeps
// EPOLLOUT armed exactly while frames wait, and sizes the kernel send buffer
// for the frame being written (send_buffer.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/fd.hpp"
#include "transport/tcp/poller.hpp"
#include "transport/tcp/rx_stream.hpp"
#include "transport/tcp/send_buffer.hpp"
#include "transport/tcp/send_queue.hpp"

namespace rcoll::transport::tcp {

class Connection {
 public:
  // `self`, `rank`: this process's rank and the peer's, for the log.
  Connection(int self, int rank, Poller& poller, SendBuffer send_buffer);
  // Closes an open socket gracefully: its queued bytes reach the peer
  // (bounded wait, see close_gracefully).
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // True between attach() and close().
  bool open() const noexcept { return fd_.valid(); }
  // "a.b.c.d:port" of the other side, for messages.
  const std::string& where() const noexcept { return where_; }
  void set_where(std::string where) { where_ = std::move(where); }

  // --- going out
  void push(const FrameHeader& header, const void* payload, std::size_t bytes, FrameOwner owner = {}) {
    tx_.push(header, payload, bytes, std::move(owner));
  }
  // A frame without payload (RTS, CTS, CREDIT, a withdrawn DATA).
  void push_control(FrameType type, Tag tag, std::size_t length, std::uint64_t id, std::uint8_t flags = 0);
  bool idle() const noexcept { return tx_.empty(); }
  // Stops referencing a cancelled send's buffer (SendQueue::withdraw).
  std::size_t withdraw(const Request& request) { return tx_.withdraw(request); }
  // Writes what the socket takes (nothing before attach()).
  SendQueue::FlushResult flush();

  // --- coming in
  RxStream::PumpResult pump(FrameSink& sink) { return rx_.pump(fd_.get(), sink); }
  RxStream::State rx_state() const noexcept { return rx_.state(); }
  // The rest of the payload being read goes nowhere (its receive was cancelled).
  void discard_rest() noexcept { rx_.discard_rest(); }

  // Takes over a connected, handshaken socket.
  void attach(UniqueFd fd);
  // Closes the socket and drops every queued frame; returns the pending
  // requests those frames carried.
  std::vector<RequestPtr> close();

 private:
  void size_send_buffer(std::size_t bytes);
  void watch_writes(bool want_write);

  int self_;
  int rank_;
  Poller& poller_;
  std::string where_ = "address unknown";
  UniqueFd fd_;
  bool want_write_ = false;
  SendBuffer send_buffer_;
  std::size_t send_buffer_now_ = 0;  // the size last set; 0: the kernel's autotuning
  SendQueue tx_;
  RxStream rx_;
};

}  // namespace rcoll::transport::tcp
