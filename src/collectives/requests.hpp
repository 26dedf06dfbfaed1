// Bookkeeping for the requests a schedule has in flight. Both classes cancel
// whatever is still pending when they go out of scope, so that after an
// exception (timeout, failed peer) the transport never writes into a scratch
// buffer that has been freed or keeps reading a buffer the caller got back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "collectives/collectives.hpp"

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
  void add(transport::RequestPtr request);
  // Waits for every request added so far (ctx.deadline), then forgets them.
  void wait_all(const LazyText& step);

 private:
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

// A sequence of receives consumed in order, of which at most `depth` are
// posted ahead of the consumer. A posted receive lets the transport place
// the data directly; the bound keeps the transport's match lists short and
// lets items share scratch slots (item i may reuse the slot of item i - depth).
class RecvWindow {
 public:
  // Posts the first `depth` (>= 1) items.
  RecvWindow(const Context& ctx, std::vector<RecvItem> items, std::size_t depth);
  ~RecvWindow();
  RecvWindow(const RecvWindow&) = delete;
  RecvWindow& operator=(const RecvWindow&) = delete;

  std::size_t size() const noexcept { return items_.size(); }
  // Waits until item `index` has arrived. Items are waited in order.
  // Throws IoError naming the peer when the message is shorter than the
  // item: the two ends cut the data differently.
  const RecvItem& wait(std::size_t index, const LazyText& step);
  // The caller is done with the oldest waited item's buffer: post the next receive.
  void release();

 private:
  void post_until(std::size_t end);

  const Context& ctx_;
  std::vector<RecvItem> items_;
  std::vector<transport::RequestPtr> requests_;  // index = item; null until posted
  std::size_t depth_;
  std::size_t posted_ = 0;
  std::size_t released_ = 0;
};

}  // namespace rcoll::collectives
