#include "common/aligned_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace rcoll::bench {
namespace {

constexpr std::size_t kPage = 4096;

}  // namespace

AlignedBuffer::AlignedBuffer(std::size_t bytes) : size_(bytes) {
  const std::size_t rounded = std::max(kPage, (bytes + kPage - 1) / kPage * kPage);
  data_.reset(static_cast<std::byte*>(std::aligned_alloc(kPage, rounded)));
  if (!data_) throw std::bad_alloc();
}

void AlignedBuffer::Free::operator()(std::byte* p) const noexcept { std::free(p); }

}  // namespace rcoll::bench
