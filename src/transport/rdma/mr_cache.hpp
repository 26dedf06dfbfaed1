// Memory registrations for user buffers (rendezvous sources and targets).
//
// acquire() serves, in this order:
//  1. a long-lived registration the application made (register_buffer())
//     that contains the range;
//  2. a cached registration of exactly this range and access, if the range
//     still maps the page frames it pinned (PageIdentity) -- a buffer freed
//     and reallocated at the same address is never served a stale one;
//  3. a new registration of exactly this range, kept in the cache (bounded
//     count and bytes, least recently used evicted first, never one in use)
//     when its page frames can be checked later, else released after use.
// Registrations that grant remote write are never kept after use: remote
// access is granted only to the buffer of the operation in flight.
//
// Not thread-safe (one transport, one thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <tuple>
#include <vector>

#include "transport/rdma/page_identity.hpp"
#include "transport/rdma/rdma_transport.hpp"
#include "transport/rdma/verbs.hpp"

namespace rcoll::transport::rdma {

class MrCache {
  struct Entry;

 public:
  struct Limits {
    bool enabled = true;
    std::size_t max_entries = 256;
    std::size_t max_bytes = std::size_t(1) << 30;
  };
  struct Stats {
    std::uint64_t registrations = 0;
    std::uint64_t hits = 0;
    std::uint64_t stale = 0;
  };

  // Holds a registration in use; move-only; must not outlive the cache.
  class Lease {
   public:
    Lease() = default;
    Lease(MrCache* cache, Entry* entry) : cache_(cache), entry_(entry) {}
    ~Lease() { reset(); }
    Lease(Lease&& other) noexcept : cache_(other.cache_), entry_(std::exchange(other.entry_, nullptr)) {}
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    explicit operator bool() const noexcept { return entry_ != nullptr; }
    std::uint32_t lkey() const noexcept;
    std::uint32_t rkey() const noexcept;
    void reset() noexcept;

   private:
    MrCache* cache_ = nullptr;
    Entry* entry_ = nullptr;
  };

  MrCache(ibv_pd* pd, Limits limits, Where where);
  ~MrCache();
  MrCache(const MrCache&) = delete;
  MrCache& operator=(const MrCache&) = delete;

  // Throws IoError if the device refuses the registration.
  Lease acquire(const void* addr, std::size_t bytes, int access);

  // Application registrations (register_buffer): local write + remote write.
  std::uint64_t pin(void* addr, std::size_t bytes);
  void unpin(std::uint64_t id) noexcept;

  const Stats& stats() const noexcept { return stats_; }
  bool validated() const noexcept { return identity_.available(); }
  std::size_t cached_entries() const noexcept { return index_.size(); }

 private:
  using Key = std::tuple<std::uintptr_t, std::size_t, int>;  // address, bytes, access
  struct Entry {
    Key key;
    MrPtr mr;
    PageFrames frames;
    unsigned users = 0;
    bool indexed = false;  // in index_ (a cached registration)
    bool pinned = false;   // an application registration
    std::uint64_t pin_id = 0;
    std::list<Entry>::iterator self;  // its position in entries_
  };

  Entry* find_pinned(const void* addr, std::size_t bytes, int access);
  Entry* find_cached(const Key& key);
  Entry* register_new(const Key& key);
  void release(Entry* entry) noexcept;
  void erase(Entry* entry) noexcept;
  void evict_over_limits() noexcept;

  ibv_pd* pd_;
  Limits limits_;
  Where where_;
  PageIdentity identity_;
  Stats stats_;
  std::list<Entry> entries_;  // front = most recently used
  std::map<Key, Entry*> index_;
  std::vector<Entry*> pins_;  // application registrations
  std::size_t cached_bytes_ = 0;
  std::uint64_t next_pin_id_ = 1;
};

}  // namespace rcoll::transport::rdma

namespace rcoll::transport::rdma {
// What a BufferRegistration refers to: the transport's cache.
struct BufferRegistration::Owner {
  Owner(ibv_pd* pd, MrCache::Limits limits, Where where) : cache(pd, limits, where) {}
  MrCache cache;
};
}  // namespace rcoll::transport::rdma
