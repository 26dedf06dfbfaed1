#include "common/check_data.hpp"

#include <algorithm>
#include <cstdint>

namespace rcoll::peers {
namespace {

// Largest integer float32 holds exactly (and sums of it, below 2^24).
constexpr std::int64_t kFloatExact = std::int64_t{1} << 24;
// rcoll-bench's pattern period (7 * 11).
constexpr std::size_t kPeriod = 77;

}  // namespace

std::int64_t CheckData::sum_value(int rank, int size, std::size_t j) {
  const std::int64_t bound = std::clamp<std::int64_t>(kFloatExact / size, 1, 7);
  return (static_cast<std::int64_t>(rank + 1) * static_cast<std::int64_t>(j % 7 + 1)) % bound + 1;
}

std::int64_t CheckData::bcast_value(int root, std::size_t j) {
  return static_cast<std::int64_t>((j % kPeriod * 3 + static_cast<std::size_t>(root) * 7) % 97) + 1;
}

std::int64_t CheckData::block_value(int owner, int dest, std::size_t i) {
  const std::size_t mixed =
      i % kPeriod * 3 + static_cast<std::size_t>(owner) * 7 + static_cast<std::size_t>(dest + 1) * 13;
  return static_cast<std::int64_t>(mixed % 127) + 1;
}

CheckData::CheckData(const PeerOptions& options, int rank, int size)
    : op_(options.op), rank_(rank), size_(size), root_(options.root) {
  for (std::size_t j = 0; j < sums_.size(); ++j) {
    std::int64_t total = 0;
    for (int q = 0; q < size; ++q) total += sum_value(q, size, j);
    sums_[j] = static_cast<float>(total);
  }
}

float CheckData::input(std::size_t j, std::size_t block) const {
  switch (op_) {
    case PeerOp::allreduce: case PeerOp::reduce: case PeerOp::reduce_scatter:
      return static_cast<float>(sum_value(rank_, size_, j));
    case PeerOp::bcast: return rank_ == root_ ? static_cast<float>(bcast_value(root_, j)) : 0.0f;
    case PeerOp::allgather: return static_cast<float>(block_value(rank_, -1, j));
    case PeerOp::gather: return static_cast<float>(block_value(rank_, root_, j));
    case PeerOp::scatter: case PeerOp::alltoall:
      return static_cast<float>(block_value(rank_, static_cast<int>(j / block), j % block));
  }
  return 0.0f;
}

float CheckData::expected(std::size_t k, std::size_t block) const {
  const auto r = static_cast<std::size_t>(rank_);
  switch (op_) {
    case PeerOp::allreduce: case PeerOp::reduce: return sums_[k % 7];
    case PeerOp::reduce_scatter: return sums_[(r * block + k) % 7];
    case PeerOp::bcast: return static_cast<float>(bcast_value(root_, k));
    case PeerOp::allgather: return static_cast<float>(block_value(static_cast<int>(k / block), -1, k % block));
    case PeerOp::gather: return static_cast<float>(block_value(static_cast<int>(k / block), root_, k % block));
    case PeerOp::scatter: return static_cast<float>(block_value(root_, rank_, k));
    case PeerOp::alltoall: return static_cast<float>(block_value(static_cast<int>(k / block), rank_, k % block));
  }
  return 0.0f;
}

void CheckData::fill_input(float* buf, const PeerLayout& layout) const {
  const std::size_t count = layout.send_count ? layout.send_count : layout.recv_count;
  for (std::size_t j = 0; j < count; ++j) buf[j] = input(j, layout.block);
}

void CheckData::fill_sentinel(float* buf, std::size_t count) { std::fill(buf, buf + count, 0.0f); }

std::size_t CheckData::count_errors(const float* buf, const PeerLayout& layout) const {
  if (result_on_root_only(op_) && rank_ != root_) return 0;
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < layout.recv_count; ++k) wrong += buf[k] == expected(k, layout.block) ? 0 : 1;
  return wrong;
}

std::size_t CheckData::count_changed_input(const float* buf, const PeerLayout& layout) const {
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < layout.send_count; ++j) wrong += buf[j] == input(j, layout.block) ? 0 : 1;
  return wrong;
}

}  // namespace rcoll::peers
