#include "common/fiber_stack.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "rcoll/errors.hpp"

namespace rcoll::fiber {
namespace {

std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// Freed mappings kept for reuse on this thread: as many as a thread
// typically has fibers alive at once (outstanding collectives), few enough
// that an idle thread holds little address space and no touched memory
// beyond what its fibers used.
struct Kept {
  std::byte* mapping = nullptr;
  std::size_t bytes = 0;
};
constexpr std::size_t pool_size = 8;

struct Pool {
  std::array<Kept, pool_size> kept{};
  ~Pool() {
    for (const Kept& k : kept)
      if (k.mapping != nullptr) ::munmap(k.mapping, k.bytes);
  }
};
thread_local Pool pool;

}  // namespace

FiberStack::FiberStack(std::size_t bytes) {
  const std::size_t page = page_bytes();
  const std::size_t usable = (bytes + page - 1) / page * page;
  mapping_bytes_ = usable + page;
  for (Kept& k : pool.kept) {
    if (k.mapping != nullptr && k.bytes == mapping_bytes_) {
      mapping_ = std::exchange(k.mapping, nullptr);
      break;
    }
  }
  if (mapping_ == nullptr) {
    void* p = ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                     -1, 0);
    if (p == MAP_FAILED)
      throw ResourceError("fiber stack: mmap of " + std::to_string(mapping_bytes_) + " bytes: " + std::strerror(errno));
    mapping_ = static_cast<std::byte*>(p);
    if (::mprotect(mapping_, page, PROT_NONE) != 0) {
      const int error = errno;
      ::munmap(mapping_, mapping_bytes_);
      throw ResourceError(std::string("fiber stack: mprotect of the guard page: ") + std::strerror(error));
    }
  }
  usable_ = mapping_ + page;
  usable_bytes_ = usable;
}

FiberStack::~FiberStack() { release(); }

FiberStack::FiberStack(FiberStack&& other) noexcept
    : mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_bytes_(std::exchange(other.mapping_bytes_, 0)),
      usable_(std::exchange(other.usable_, nullptr)),
      usable_bytes_(std::exchange(other.usable_bytes_, 0)) {}

FiberStack& FiberStack::operator=(FiberStack&& other) noexcept {
  if (this != &other) {
    release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
    usable_ = std::exchange(other.usable_, nullptr);
    usable_bytes_ = std::exchange(other.usable_bytes_, 0);
  }
  return *this;
}

void FiberStack::release() noexcept {
  if (mapping_ == nullptr) return;
  for (Kept& k : pool.kept) {
    if (k.mapping == nullptr) {
      k = {std::exchange(mapping_, nullptr), mapping_bytes_};
      return;
    }
  }
  ::munmap(std::exchange(mapping_, nullptr), mapping_bytes_);
}

}  // namespace rcoll::fiber
