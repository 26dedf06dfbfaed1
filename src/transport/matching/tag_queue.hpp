// Values waiting to be matched by tag: take(tag) removes the oldest value of
// that tag, so each tag is served in the order its values were pushed and
// different tags never wait for each other.
//
// One flat vector searched from the front: the queues of a peer stay short
// (collectives bound how far ahead they post), and once the vector has grown
// it costs no allocation per message, unlike a map of queues per tag or a
// list. Values are mostly taken oldest first, so the oldest leaves by moving
// the front index `head_`, not by shifting the rest (a flood of unexpected
// messages is served in O(1) each); the dead prefix is reclaimed when the
// vector is full and at least half dead, so that costs O(1) per push too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "transport/request.hpp"

namespace rcoll::transport {

template <typename T>
class TagQueue {
 public:
  bool empty() const noexcept { return head_ == entries_.size(); }
  std::size_t size() const noexcept { return entries_.size() - head_; }

  void push(Tag tag, T value) {
    if (entries_.size() == entries_.capacity() && head_ >= entries_.size() / 2 && head_ > 0) compact();
    entries_.push_back(Entry{tag, std::move(value)});
  }

  // Moves the oldest value of `tag` to `out` and removes it; false if none.
  bool take(Tag tag, T& out) {
    return take_first([tag](const Entry& entry) { return entry.tag == tag; }, out);
  }
  // The same for the oldest value that `pred` accepts.
  template <typename Pred>
  bool take_if(Pred pred, T& out) {
    return take_first([&pred](const Entry& entry) { return pred(entry.value); }, out);
  }

  bool contains(Tag tag) const noexcept {
    return std::any_of(live(), entries_.end(), [tag](const Entry& entry) { return entry.tag == tag; });
  }
  template <typename Pred>
  bool any_of(Pred pred) const {
    return std::any_of(live(), entries_.end(), [&pred](const Entry& entry) { return pred(entry.value); });
  }

  // Removes every value that `pred` accepts; the others keep their order.
  template <typename Pred>
  void erase_if(Pred pred) {
    auto dead = std::remove_if(live(), entries_.end(), [&pred](const Entry& entry) { return pred(entry.value); });
    entries_.erase(dead, entries_.end());
    if (empty()) reset();
  }
  // Hands every value to `fn`, oldest first, and empties the queue.
  template <typename Fn>
  void drain(Fn fn) {
    for (auto it = live(); it != entries_.end(); ++it) fn(it->value);
    reset();
  }

 private:
  struct Entry {
    Tag tag;
    T value;
  };

  typename std::vector<Entry>::iterator live() noexcept { return entries_.begin() + static_cast<std::ptrdiff_t>(head_); }
  typename std::vector<Entry>::const_iterator live() const noexcept {
    return entries_.begin() + static_cast<std::ptrdiff_t>(head_);
  }

  // The value leaves before its entry goes, so nothing is released here
  // (inproc matches on the sender's thread, which must not drop a
  // receiver's RequestPtr): dead entries hold moved-from values.
  template <typename Match>
  bool take_first(Match match, T& out) {
    for (auto it = live(); it != entries_.end(); ++it) {
      if (!match(*it)) continue;
      out = std::move(it->value);
      if (it == live())
        ++head_;
      else
        entries_.erase(it);
      if (empty()) reset();
      return true;
    }
    return false;
  }

  void compact() {
    entries_.erase(entries_.begin(), live());
    head_ = 0;
  }
  void reset() noexcept {
    entries_.clear();
    head_ = 0;
  }

  std::vector<Entry> entries_;  // [head_, end) are the queue, oldest first
  std::size_t head_ = 0;
};

}  // namespace rcoll::transport
