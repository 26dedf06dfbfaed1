#include "transport/request.hpp"

#include <new>

namespace rcoll::transport {
namespace {

// Blocks of sizeof(Request), kept up to `kept` per thread.
struct FreeList {
  static constexpr std::size_t kept = 64;
  std::size_t count = 0;
  void* blocks[kept];
};

// Owns the thread's list and frees its blocks at thread exit. A
// thread_local with a destructor costs a TLS-init call on every access, so
// it is touched once per thread (make_list); the per-message path reaches
// the list through the plain pointers below. No initial-exec model here or
// anywhere in the library: it must load with dlopen (Python, plugins),
// which a module with static-TLS variables cannot, and the general model's
// __tls_get_addr call costs nanoseconds against a message's microseconds.
struct ListOwner {
  FreeList list;
  ~ListOwner();
};
thread_local ListOwner owner;
constinit thread_local FreeList* free_list = nullptr;
// Set once the owner is gone: a request released later (by another
// thread_local's destructor) goes straight back to operator delete.
constinit thread_local bool list_retired = false;

ListOwner::~ListOwner() {
  list_retired = true;
  free_list = nullptr;
  for (std::size_t i = 0; i < list.count; ++i) ::operator delete(list.blocks[i]);
}

FreeList* make_list() noexcept {
  if (!list_retired) free_list = &owner.list;
  return free_list;
}

}  // namespace

RequestPtr make_request(Request::Kind kind, int peer, Tag tag, std::size_t capacity) {
  FreeList* list = free_list;
  void* block = list != nullptr && list->count > 0 ? list->blocks[--list->count] : ::operator new(sizeof(Request));
  return RequestPtr(new (block) Request(kind, peer, tag, capacity));
}

void RequestPtr::destroy(Request* request) noexcept {
  request->~Request();
  FreeList* list = free_list != nullptr ? free_list : make_list();
  if (list != nullptr && list->count < FreeList::kept) {
    list->blocks[list->count++] = request;
    return;
  }
  ::operator delete(request);
}

}  // namespace rcoll::transport
