// Bookkeeping for the requests a schedule has in flight. Both classes cancel
// whatever is still pending when they go out of scope, so that after an
// exception (timeout, failed peer) the transport never writes into a scratch
// buffer that has been freed or keeps reading a buffer the caller got back.
//
// Neither makes a list of a call's segments: their count grows with the
// call's size (SIZE_MAX / 2 bytes in 512 KiB pieces is 2^43 of them), and
// such a list exhausted memory before the first byte moved. A RecvWindow
// holds its depth of receives; a RequestList holds the sends still pending
// (RequestList::send_bounded: at most its bound).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "collectives/collectives.hpp"
#include "transport/wait.hpp"

namespace rcoll::collectives {

// Sends (or any requests) that are waited for together.
class RequestList {
 public:
  explicit RequestList(const Context& ctx) : ctx_(ctx) {}
  ~RequestList();
  RequestList(const RequestList&) = delete;
  RequestList& operator=(const RequestList&) = delete;

  // isend(peer, ctx.tag(step), ...), kept until wait_all().
  void send(int peer, std::uint32_t step, const void* buf, std::size_t bytes);
  // The same after waiting, oldest first, until fewer than `bound` (>= 1)
  // sends are pending. Only for a rank whose receivers never wait on its
  // own receives (a tree's edges point one way): a cycle of ranks each
  // waiting for its sends to drain would wait forever.
  void send_bounded(int peer, std::uint32_t step, const void* buf, std::size_t bytes, std::size_t bound,
                    const LazyText& label);
  void add(transport::RequestPtr request);
  // Waits for every request added so far (ctx.deadline), then forgets them.
  void wait_all(const LazyText& step);

 private:
  // Forgets the requests that are done (nothing worth keeping), in order.
  void compact();

  const Context& ctx_;
  static constexpr std::size_t first_capacity = 8;
  std::vector<transport::RequestPtr> requests_;
  std::size_t compact_at_ = 64;
};

// One receive of a pipeline.
struct RecvItem {
  int peer = -1;
  std::uint32_t step = 0;  // tag step: ctx.tag(step)
  std::byte* buf = nullptr;
  std::size_t bytes = 0;
};

// The receives of a pipeline in the order they are consumed, made one at a
// time: a window asks for the next only when it posts it, so no list of
// every segment exists. next() is called once per item, in order.
class RecvSource {
 public:
  virtual RecvItem next() = 0;

 protected:
  ~RecvSource() = default;
};

// A sequence of `count` receives consumed in order, of which at most
// `depth` are posted ahead of the consumer. A posted receive lets the
// transport place the data directly; the bound keeps the transport's match
// lists short and lets items share scratch slots (item i may reuse the slot
// of item i - depth). Holds `depth` entries whatever `count` is.
class RecvWindow {
 public:
  // Posts the first `depth` (>= 1) items. `source` outlives the window.
  // `hook` (may be null, outlives the window) is told of progress while
  // wait() blocks: the pipeline's PacedSends, so that its sends keep
  // flowing while this rank waits for a receive.
  RecvWindow(const Context& ctx, std::size_t count, RecvSource& source, std::size_t depth,
             transport::ProgressHook* hook = nullptr);
  ~RecvWindow();
  RecvWindow(const RecvWindow&) = delete;
  RecvWindow& operator=(const RecvWindow&) = delete;

  std::size_t size() const noexcept { return count_; }
  // Waits until item `index` has arrived; returns it. Items are waited in
  // order, each once. Throws IoError naming the peer when the message is
  // shorter than the item: the two ends cut the data differently.
  RecvItem wait(std::size_t index, const LazyText& step);
  // The caller is done with the oldest waited item's buffer: post the next receive.
  void release();

 private:
  struct Slot {
    RecvItem item;
    transport::RequestPtr request;
  };
  void post_until(std::size_t end);
  Slot& slot(std::size_t index) noexcept { return slots_[index % slots_.size()]; }

  const Context& ctx_;
  std::size_t count_;
  RecvSource& source_;
  transport::ProgressHook* hook_;
  std::vector<Slot> slots_;  // item i in slots_[i % depth] from its post until depth items later
  std::size_t depth_;
  std::size_t posted_ = 0;
  std::size_t released_ = 0;
};

// For tests: the most entries one RecvWindow or RequestList on this thread
// has held at once since the last reset (posted receive slots; sends kept,
// pending or not yet forgotten). Bounded by the pipeline depth, not the
// segment count.
struct BookkeepingPeak {
  std::size_t receive_slots = 0;
  std::size_t send_entries = 0;
};
BookkeepingPeak& bookkeeping_peak() noexcept;

}  // namespace rcoll::collectives
