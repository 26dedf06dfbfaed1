#include "transport/rdma/mr_cache.hpp"

#include <algorithm>

#include "common/log.hpp"

namespace rcoll::transport::rdma {
namespace {

constexpr int remote_access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

bool covers(int granted, int needed) { return (granted & needed) == needed; }

}  // namespace

MrCache::Lease& MrCache::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    reset();
    cache_ = other.cache_;
    entry_ = std::exchange(other.entry_, nullptr);
  }
  return *this;
}

std::uint32_t MrCache::Lease::lkey() const noexcept { return entry_->mr->lkey; }
std::uint32_t MrCache::Lease::rkey() const noexcept { return entry_->mr->rkey; }

void MrCache::Lease::reset() noexcept {
  if (entry_ != nullptr) cache_->release(std::exchange(entry_, nullptr));
}

MrCache::MrCache(ibv_pd* pd, Limits limits, Where where) : pd_(pd), limits_(limits), where_(where) {
  if (limits_.enabled && !identity_.available())
    log::debug("rdma: page frames are not visible (no CAP_SYS_ADMIN): user buffers are registered per transfer");
}

MrCache::~MrCache() {
  // Leases are held by operations, which their transport destroys first.
  pins_.clear();
  index_.clear();
  entries_.clear();
}

MrCache::Lease MrCache::acquire(const void* addr, std::size_t bytes, int access) {
  Entry* entry = find_pinned(addr, bytes, access);
  Key key{reinterpret_cast<std::uintptr_t>(addr), bytes, access};
  if (entry == nullptr) entry = find_cached(key);
  if (entry == nullptr) entry = register_new(key);
  ++entry->users;
  entries_.splice(entries_.begin(), entries_, entry->self);
  return Lease(this, entry);
}

MrCache::Entry* MrCache::find_pinned(const void* addr, std::size_t bytes, int access) {
  auto begin = reinterpret_cast<std::uintptr_t>(addr);
  for (Entry* e : pins_) {
    auto [pin_begin, pin_bytes, pin_access] = e->key;
    if (begin >= pin_begin && begin + bytes <= pin_begin + pin_bytes && covers(pin_access, access)) return e;
  }
  return nullptr;
}

// A cached entry is reused only while its range maps the frames it pinned.
// An entry in use by another operation needs no check: that operation's
// buffer is, by contract, allocated and unchanged until it completes.
MrCache::Entry* MrCache::find_cached(const Key& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  Entry* entry = it->second;
  if (entry->users > 0) {
    ++stats_.hits;
    return entry;
  }
  auto now = identity_.frames(reinterpret_cast<const void*>(std::get<0>(key)), std::get<1>(key));
  if (now && *now == entry->frames) {
    ++stats_.hits;
    return entry;
  }
  ++stats_.stale;
  log::debug("rdma: cached registration of {} bytes at {:#x} is stale (the memory was remapped); registering anew",
             std::get<1>(key), std::get<0>(key));
  erase(entry);
  return nullptr;
}

MrCache::Entry* MrCache::register_new(const Key& key) {
  auto [addr, bytes, access] = key;
  MrPtr mr = register_memory(pd_, reinterpret_cast<const void*>(addr), bytes, access, where_);
  ++stats_.registrations;
  entries_.emplace_front();
  Entry& entry = entries_.front();
  entry.self = entries_.begin();
  entry.key = key;
  entry.mr = std::move(mr);
  bool keep = limits_.enabled && (access & remote_access) == 0 && bytes <= limits_.max_bytes;
  if (keep) {
    // After registration the pages are pinned and present.
    if (auto frames = identity_.frames(reinterpret_cast<const void*>(addr), bytes)) {
      entry.frames = std::move(*frames);
      entry.indexed = true;
      index_[key] = &entry;
      cached_bytes_ += bytes;
    }
  }
  return &entry;
}

void MrCache::release(Entry* entry) noexcept {
  if (--entry->users > 0) return;
  if (!entry->indexed && !entry->pinned) erase(entry);
  else evict_over_limits();
}

void MrCache::erase(Entry* entry) noexcept {
  if (entry->indexed) {
    index_.erase(entry->key);
    cached_bytes_ -= std::get<1>(entry->key);
  }
  entries_.erase(entry->self);
}

void MrCache::evict_over_limits() noexcept {
  auto over = [&] { return index_.size() > limits_.max_entries || cached_bytes_ > limits_.max_bytes; };
  for (auto it = entries_.end(); over() && it != entries_.begin();) {
    --it;
    if (!it->indexed || it->users > 0) continue;
    Entry* victim = &*it;
    ++it;  // erase invalidates only the victim
    erase(victim);
  }
}

std::uint64_t MrCache::pin(void* addr, std::size_t bytes) {
  Key key{reinterpret_cast<std::uintptr_t>(addr), bytes, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE};
  MrPtr mr = register_memory(pd_, addr, bytes, std::get<2>(key), where_);
  ++stats_.registrations;
  entries_.emplace_front();
  Entry& entry = entries_.front();
  entry.self = entries_.begin();
  entry.key = key;
  entry.mr = std::move(mr);
  entry.pinned = true;
  entry.pin_id = next_pin_id_++;
  pins_.push_back(&entry);
  return entry.pin_id;
}

void MrCache::unpin(std::uint64_t id) noexcept {
  auto it = std::find_if(pins_.begin(), pins_.end(), [&](Entry* e) { return e->pin_id == id; });
  if (it == pins_.end()) return;
  Entry* entry = *it;
  pins_.erase(it);
  entry->pinned = false;  // released now, or by its last user
  if (entry->users == 0) erase(entry);
}

}  // namespace rcoll::transport::rdma
