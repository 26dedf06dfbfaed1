#include "transport/inproc/inproc_transport.hpp"

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "rcoll/errors.hpp"
#include "transport/matching/match_queue.hpp"

namespace rcoll::transport {

// Each rank's mailbox is guarded by its own mutex. Senders copy into a posted
// receive (or queue an unexpected copy) under the receiver's lock; only the
// receiver's thread touches its Request objects, when it drains `finished`.
namespace {

using Payload = std::vector<std::byte>;

// A receive a sender matched and copied into, for its owner to complete.
struct Finished {
  PostedReceive receive;
  int source;
  std::size_t bytes;  // the message's length; more than the capacity: truncated, nothing copied
};

struct Mailbox {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<MatchQueue<Payload>> from;  // index = the sending rank
  std::vector<Finished> finished;
  bool woken = false;  // wake(): the owner's wait ends
};

}  // namespace

struct InprocFabric::Shared {
  explicit Shared(int size) : mailboxes(static_cast<std::size_t>(size)) {
    for (Mailbox& box : mailboxes) box.from.resize(static_cast<std::size_t>(size));
  }
  std::vector<Mailbox> mailboxes;
};

namespace {

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
      deliver_or_keep(box, tag, static_cast<const std::byte*>(buf), bytes);
    }
    box.arrived.notify_all();
    request->complete(bytes);
    return request;
  }

  RequestPtr irecv(int peer, Tag tag, void* buf, std::size_t capacity) override {
    auto request = make_request(Request::Kind::recv, peer, tag, capacity);
    PostedReceive receive{request, static_cast<std::byte*>(buf), capacity};
    Mailbox& box = mailbox(rank_);
    check(peer);
    std::lock_guard lock(box.mutex);
    MatchQueue<Payload>& matching = box.from[static_cast<std::size_t>(peer)];
    Payload payload;
    if (matching.take_unexpected(tag, payload))
      deliver(receive, payload.data(), payload.size(), ReceiveSide{"inproc", rank_, peer});
    else
      matching.post(std::move(receive));
    return request;
  }

  void cancel(Request& request) override {
    Mailbox& box = mailbox(rank_);
    std::lock_guard lock(box.mutex);
    // A receive's peer was checked when it was posted.
    if (request.kind() == Request::Kind::recv) box.from[static_cast<std::size_t>(request.peer())].withdraw(request);
    std::erase_if(box.finished, [&](const Finished& f) { return f.receive.request.get() == &request; });
    request.mark_cancelled();
  }

  bool progress() override {
    Mailbox& box = mailbox(rank_);
    {
      std::lock_guard lock(box.mutex);
      completing_.swap(box.finished);
    }
    for (Finished& f : completing_) complete(f);
    const bool moved = !completing_.empty();
    completing_.clear();
    return moved;
  }

  void wait_for_activity(std::chrono::microseconds max) override {
    Mailbox& box = mailbox(rank_);
    std::unique_lock lock(box.mutex);
    box.arrived.wait_for(lock, max, [&] { return !box.finished.empty() || box.woken; });
    box.woken = false;
  }

  void wake() override {
    Mailbox& box = mailbox(rank_);
    {
      std::lock_guard lock(box.mutex);
      box.woken = true;
    }
    box.arrived.notify_all();
  }

 private:
  void check(int r) const {
    if (r < 0 || r >= size())
      throw InvalidArgument("rank " + std::to_string(rank_) + ": peer " + std::to_string(r) + " out of range");
  }
  Mailbox& mailbox(int r) {
    check(r);
    return shared_->mailboxes[static_cast<std::size_t>(r)];
  }

  // Called with the receiver's lock held: copies into the oldest matching
  // posted receive, if any, and hands it to the receiver for completion;
  // else keeps a copy.
  void deliver_or_keep(Mailbox& box, Tag tag, const std::byte* data, std::size_t bytes) {
    MatchQueue<Payload>& matching = box.from[static_cast<std::size_t>(rank_)];
    PostedReceive receive;
    if (!matching.take_posted(tag, receive)) return matching.keep(tag, Payload(data, data + bytes));
    if (receive.fits(bytes) && bytes > 0) std::memcpy(receive.buf, data, bytes);
    box.finished.push_back(Finished{std::move(receive), rank_, bytes});
  }

  void complete(const Finished& f) {
    Request& request = *f.receive.request;
    if (f.receive.fits(f.bytes))
      request.complete(f.bytes);
    else
      request.fail(truncation_error(ReceiveSide{"inproc", rank_, f.source}, f.bytes, f.receive.capacity));
  }

  std::shared_ptr<InprocFabric::Shared> shared_;
  int rank_;
  Capabilities caps_;
  std::vector<Finished> completing_;  // swapped with the mailbox's, so neither allocates per message
};

}  // namespace

InprocFabric::InprocFabric(int size) : shared_(std::make_shared<Shared>(size)) {}
InprocFabric::~InprocFabric() = default;

std::unique_ptr<Transport> InprocFabric::endpoint(int rank) {
  return std::make_unique<InprocTransport>(shared_, rank);
}

}  // namespace rcoll::transport
