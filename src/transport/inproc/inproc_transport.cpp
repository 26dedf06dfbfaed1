#include "transport/inproc/inproc_transport.hpp"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>

#include "rcoll/errors.hpp"

namespace rcoll::transport {

// Each rank's mailbox is guarded by its own mutex. Senders copy into a posted
// receive (or queue an unexpected copy) under the receiver's lock; only the
// receiver's thread touches its Request objects, when it drains `finished`.
namespace {

struct Posted {
  int source;
  Tag tag;
  void* buf;
  std::size_t capacity;
  RequestPtr request;
  std::size_t bytes = 0;
  bool truncated = false;
};

struct Unexpected {
  int source;
  Tag tag;
  std::vector<std::byte> payload;
};

struct Mailbox {
  std::mutex mutex;
  std::condition_variable arrived;
  std::list<Posted> posted;       // receives not yet matched, in posting order
  std::deque<Unexpected> unexpected;  // messages not yet matched, in arrival order
  std::list<Posted> finished;     // matched, to be completed by the owner
};

}  // namespace

struct InprocFabric::Shared {
  explicit Shared(int size) : mailboxes(static_cast<std::size_t>(size)) {}
  std::vector<Mailbox> mailboxes;
};

namespace {

IoError truncation(int rank, int peer, Tag tag, std::size_t bytes, std::size_t capacity) {
  return IoError(rank, peer, "inproc recv tag " + std::to_string(tag),
                 "message of " + std::to_string(bytes) + " bytes exceeds receive buffer of " +
                     std::to_string(capacity) + " bytes");
}

class InprocTransport final : public Transport {
 public:
  InprocTransport(std::shared_ptr<InprocFabric::Shared> shared, int rank)
      : shared_(std::move(shared)), rank_(rank) {
    caps_.zero_copy_send = true;
    caps_.zero_copy_recv = true;
    caps_.eager_limit = SIZE_MAX;
    caps_.preferred_segment = 1 << 20;
  }

  std::string_view name() const override { return "inproc"; }
  const Capabilities& capabilities() const override { return caps_; }
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(shared_->mailboxes.size()); }
  std::string local_endpoint() const override { return {}; }
  void set_peer_endpoints(std::vector<PeerEndpoint>) override {}

  RequestPtr isend(int peer, Tag tag, const void* buf, std::size_t bytes) override {
    auto request = make_request(Request::Kind::send, peer, tag, bytes);
    Mailbox& box = mailbox(peer);
    {
      std::lock_guard lock(box.mutex);
      if (!deliver_to_posted(box, tag, buf, bytes))
        box.unexpected.push_back({rank_, tag, copy_of(buf, bytes)});
    }
    box.arrived.notify_all();
    request->complete(bytes);
    return request;
  }

  RequestPtr irecv(int peer, Tag tag, void* buf, std::size_t capacity) override {
    auto request = make_request(Request::Kind::recv, peer, tag, capacity);
    Mailbox& box = mailbox(rank_);
    std::lock_guard lock(box.mutex);
    for (auto it = box.unexpected.begin(); it != box.unexpected.end(); ++it) {
      if (it->source != peer || it->tag != tag) continue;
      if (it->payload.size() > capacity) {
        request->fail(std::make_exception_ptr(truncation(rank_, peer, tag, it->payload.size(), capacity)));
      } else {
        if (!it->payload.empty()) std::memcpy(buf, it->payload.data(), it->payload.size());
        request->complete(it->payload.size());
      }
      box.unexpected.erase(it);
      return request;
    }
    box.posted.push_back({peer, tag, buf, capacity, request});
    return request;
  }

  void cancel(Request& request) override {
    Mailbox& box = mailbox(rank_);
    std::lock_guard lock(box.mutex);
    auto same = [&](const Posted& p) { return p.request.get() == &request; };
    box.posted.remove_if(same);
    box.finished.remove_if(same);
    request.mark_cancelled();
  }

  bool progress() override {
    Mailbox& box = mailbox(rank_);
    std::list<Posted> done;
    {
      std::lock_guard lock(box.mutex);
      done.swap(box.finished);
    }
    for (auto& p : done) {
      if (p.truncated)
        p.request->fail(std::make_exception_ptr(truncation(rank_, p.source, p.tag, p.bytes, p.capacity)));
      else
        p.request->complete(p.bytes);
    }
    return !done.empty();
  }

  void wait_for_activity(std::chrono::microseconds max) override {
    Mailbox& box = mailbox(rank_);
    std::unique_lock lock(box.mutex);
    box.arrived.wait_for(lock, max, [&] { return !box.finished.empty(); });
  }

 private:
  Mailbox& mailbox(int r) {
    if (r < 0 || r >= size())
      throw InvalidArgument("rank " + std::to_string(rank_) + ": peer " + std::to_string(r) + " out of range");
    return shared_->mailboxes[static_cast<std::size_t>(r)];
  }

  // Called with the receiver's lock held: copies into the first matching
  // posted receive, if any, and hands it to the receiver for completion.
  bool deliver_to_posted(Mailbox& box, Tag tag, const void* buf, std::size_t bytes) {
    for (auto it = box.posted.begin(); it != box.posted.end(); ++it) {
      if (it->source != rank_ || it->tag != tag) continue;
      it->bytes = bytes;
      it->truncated = bytes > it->capacity;
      if (!it->truncated && bytes > 0) std::memcpy(it->buf, buf, bytes);
      box.finished.splice(box.finished.end(), box.posted, it);
      return true;
    }
    return false;
  }

  static std::vector<std::byte> copy_of(const void* buf, std::size_t bytes) {
    auto first = static_cast<const std::byte*>(buf);
    return bytes ? std::vector<std::byte>(first, first + bytes) : std::vector<std::byte>();
  }

  std::shared_ptr<InprocFabric::Shared> shared_;
  int rank_;
  Capabilities caps_;
};

}  // namespace

InprocFabric::InprocFabric(int size) : shared_(std::make_shared<Shared>(size)) {}
InprocFabric::~InprocFabric() = default;

std::unique_ptr<Transport> InprocFabric::endpoint(int rank) {
  return std::make_unique<InprocTransport>(shared_, rank);
}

}  // namespace rcoll::transport
