#include "transport/request.hpp"

#include <new>
#include <vector>

namespace rcoll::transport {
namespace {

// Blocks of one size (that of the control block make_request allocates),
// kept up to `kept` per thread. The vector's capacity is reserved up front,
// so giving a block back never allocates or throws.
struct FreeList {
  static constexpr std::size_t kept = 64;
  std::size_t block_bytes = 0;
  std::vector<void*> blocks;

  FreeList();
  ~FreeList();
};

// Trivially destructible, so still readable while the thread's other
// thread_local objects are destroyed: a request released then (or after
// the list is gone) goes back to operator delete. initial-exec: the
// library is linked, not dlopen'ed, and these are read per message.
[[gnu::tls_model("initial-exec")]] thread_local bool list_alive = false;
[[gnu::tls_model("initial-exec")]] thread_local FreeList free_list;

FreeList::FreeList() {
  blocks.reserve(kept);
  list_alive = true;
}

FreeList::~FreeList() {
  list_alive = false;
  for (void* block : blocks) ::operator delete(block);
}

template <typename T>
struct PooledAllocator {
  using value_type = T;
  PooledAllocator() = default;
  template <typename U>
  PooledAllocator(const PooledAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n == 1) {
      FreeList& list = free_list;  // made on the thread's first request
      if (list.block_bytes == sizeof(T) && !list.blocks.empty()) {
        void* block = list.blocks.back();
        list.blocks.pop_back();
        return static_cast<T*>(block);
      }
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }

  void deallocate(T* block, std::size_t n) noexcept {
    if (n == 1 && list_alive) {
      FreeList& list = free_list;
      if (list.block_bytes == 0) list.block_bytes = sizeof(T);
      if (list.block_bytes == sizeof(T) && list.blocks.size() < FreeList::kept) {
        list.blocks.push_back(block);
        return;
      }
    }
    ::operator delete(block);
  }

  template <typename U>
  bool operator==(const PooledAllocator<U>&) const noexcept { return true; }
};

}  // namespace

RequestPtr make_request(Request::Kind kind, int peer, Tag tag, std::size_t capacity) {
  return std::allocate_shared<Request>(PooledAllocator<Request>{}, kind, peer, tag, capacity);
}

}  // namespace rcoll::transport
