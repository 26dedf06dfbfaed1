// One send or receive in flight. The caller and the transport share it; the
// transport marks it done (with the received length) or failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>

namespace rcoll::transport {

using Tag = std::uint64_t;

class Request {
 public:
  enum class Kind : std::uint8_t { send, recv };
  enum class State : std::uint8_t { pending, done, failed, cancelled };

  Request(Kind kind, int peer, Tag tag, std::size_t capacity)
      : kind_(kind), peer_(peer), tag_(tag), capacity_(capacity) {}
  ~Request() = default;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  Kind kind() const noexcept { return kind_; }
  int peer() const noexcept { return peer_; }
  Tag tag() const noexcept { return tag_; }
  // Send: bytes to send. Recv: the most bytes the buffer takes.
  std::size_t capacity() const noexcept { return capacity_; }
  State state() const noexcept { return state_; }
  bool pending() const noexcept { return state_ == State::pending; }
  // Bytes moved; for a receive, the length of the matched message.
  std::size_t bytes() const noexcept { return bytes_; }
  // Rethrows the transport's error (an IoError) if the request failed.
  void rethrow_if_failed() const {
    if (state_ == State::failed) std::rethrow_exception(error_);
  }

  // Called by transports only.
  void complete(std::size_t bytes) noexcept {
    bytes_ = bytes;
    state_ = State::done;
  }
  void fail(std::exception_ptr error) noexcept {
    if (state_ != State::pending) return;
    error_ = std::move(error);
    state_ = State::failed;
  }
  void mark_cancelled() noexcept { if (state_ == State::pending) state_ = State::cancelled; }

 private:
  friend class RequestPtr;

  Kind kind_;
  int peer_;
  Tag tag_;
  std::size_t capacity_;
  State state_ = State::pending;
  std::size_t bytes_ = 0;
  std::exception_ptr error_;
  std::uint32_t refs_ = 1;  // the RequestPtrs that hold it
};

// Shared ownership of a Request: the caller's handle and the transport's
// record of the operation. Like std::shared_ptr, but with a plain count
// instead of atomic ones: a request belongs to one communicator's transport,
// which one thread drives at a time (docs/THREADING.md), and the locked
// increments and decrements of shared_ptr were ~5 per message, each slow
// under emulation. So copies of one request must not be made or dropped
// on two threads at once; handing one to another thread after
// synchronising (a join, a mutex) is fine.
class RequestPtr {
 public:
  constexpr RequestPtr() noexcept = default;
  constexpr RequestPtr(std::nullptr_t) noexcept {}
  RequestPtr(const RequestPtr& other) noexcept : request_(other.request_) {
    if (request_ != nullptr) ++request_->refs_;
  }
  RequestPtr(RequestPtr&& other) noexcept : request_(std::exchange(other.request_, nullptr)) {}
  RequestPtr& operator=(const RequestPtr& other) noexcept {
    RequestPtr(other).swap(*this);
    return *this;
  }
  RequestPtr& operator=(RequestPtr&& other) noexcept {
    RequestPtr(std::move(other)).swap(*this);
    return *this;
  }
  ~RequestPtr() {
    if (request_ != nullptr && --request_->refs_ == 0) destroy(request_);
  }

  void reset() noexcept { RequestPtr().swap(*this); }
  void swap(RequestPtr& other) noexcept { std::swap(request_, other.request_); }
  Request* get() const noexcept { return request_; }
  Request& operator*() const noexcept { return *request_; }
  Request* operator->() const noexcept { return request_; }
  explicit operator bool() const noexcept { return request_ != nullptr; }
  friend bool operator==(const RequestPtr&, const RequestPtr&) noexcept = default;
  friend bool operator==(const RequestPtr& ptr, std::nullptr_t) noexcept { return ptr.request_ == nullptr; }

 private:
  friend RequestPtr make_request(Request::Kind kind, int peer, Tag tag, std::size_t capacity);
  explicit RequestPtr(Request* adopted) noexcept : request_(adopted) {}
  // The last reference went: destroys it and keeps its memory (request.cpp).
  static void destroy(Request* request) noexcept;

  Request* request_ = nullptr;
};

// A new pending request. Transports make one per isend/irecv, so the memory
// comes from a small per-thread free list rather than a malloc/free pair
// each time (a pair is expensive under the guest's emulation). A
// request may be released on any thread; its block then joins that
// thread's list.
RequestPtr make_request(Request::Kind kind, int peer, Tag tag, std::size_t capacity);

}  // namespace rcoll::transport
