// Values waiting to be matched by tag: take(tag) removes the oldest value of
// that tag, so each tag is served in the order its values were pushed and
// different tags never wait for each other.
//
// One flat vector searched from the front: the queues of a peer stay short
// (collectives bound how far ahead they post), and once the vector has grown
// it costs no allocation per message, unlike a map of queues per tag.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "transport/request.hpp"

namespace rcoll::transport {

template <typename T>
class TagQueue {
 public:
  bool empty() const noexcept { return entries_.empty(); }
  std::size_t size() const noexcept { return entries_.size(); }

  void push(Tag tag, T value) { entries_.push_back(Entry{tag, std::move(value)}); }

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
    for (const Entry& entry : entries_)
      if (entry.tag == tag) return true;
    return false;
  }
  template <typename Pred>
  bool any_of(Pred pred) const {
    for (const Entry& entry : entries_)
      if (pred(entry.value)) return true;
    return false;
  }

  // Removes every value that `pred` accepts; the others keep their order.
  template <typename Pred>
  void erase_if(Pred pred) {
    std::erase_if(entries_, [&pred](const Entry& entry) { return pred(entry.value); });
  }
  // Hands every value to `fn`, oldest first, and empties the queue.
  template <typename Fn>
  void drain(Fn fn) {
    for (Entry& entry : entries_) fn(entry.value);
    entries_.clear();
  }

 private:
  struct Entry {
    Tag tag;
    T value;
  };

  // The value leaves before its entry is erased, so the erase releases
  // nothing (inproc matches on the sender's thread, which must not drop a
  // receiver's RequestPtr).
  template <typename Match>
  bool take_first(Match match, T& out) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (!match(*it)) continue;
      out = std::move(it->value);
      entries_.erase(it);
      return true;
    }
    return false;
  }

  std::vector<Entry> entries_;
};

}  // namespace rcoll::transport
