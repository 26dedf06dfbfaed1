// CommImpl's calls of the MPI-style set: check the arguments (nothing is
// sent when they are wrong), resolve rcoll::in_place into the schedules'
// in-place form (collectives.hpp), describe the call, and run what the
// plan chose for its size.
//
// The size a plan is looked up by must be the same on every rank: the
// whole buffer of the call for the uniform calls and allgatherv /
// reduce_scatter_v (whose counts every rank has); 0 for alltoallv,
// gatherv and scatterv, whose sizes differ between ranks.
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm_impl.hpp"
#include "comm/validate.hpp"
#include "rcoll/comm.hpp"

namespace rcoll::comm {
namespace {

using collectives::Blocks;
using diagnostics::CallInfo;
using diagnostics::CallKind;

const std::byte* at(const void* base, std::size_t offset) { return static_cast<const std::byte*>(base) + offset; }
std::byte* at(void* base, std::size_t offset) { return static_cast<std::byte*>(base) + offset; }

std::size_t sum(std::span<const std::size_t> counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

// A rank's own count argument must be its entry of the counts.
void check_own_count(int rank, std::string_view name, std::size_t count, std::span<const std::size_t> counts,
                     std::size_t me) {
  if (count != counts[me])
    throw_invalid(rank, name,
                  "count " + std::to_string(count) + " differs from counts[" + std::to_string(me) + "] " +
                      std::to_string(counts[me]));
}

[[noreturn]] void refuse_in_place(int rank, std::string_view name) {
  throw_invalid(rank, name, "rcoll::in_place is the root's form only");
}

}  // namespace

PendingCallPtr CommImpl::reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op, int root,
                                Timeout timeout, Mode mode) {
  constexpr std::string_view name = "reduce";
  const std::size_t bytes = checked_bytes(rank(), name, count, type);
  check_op(rank(), name, op);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const bool root_here = rank() == root;
  if (send == in_place) {
    if (!root_here) refuse_in_place(rank(), name);
    send = recv;
  }
  check_buffer(rank(), name, "send", send, count);
  if (root_here) {
    check_buffer(rank(), name, "recv", recv, count);
    check_no_partial_overlap(rank(), name, send, recv, bytes);
  }
  const CallInfo call = CallInfo::collective_call(CallKind::reduce, next_sequence(), count, type, op, root);
  const auto& choice = plan_->tables().reduce.at(bytes);
  return run_collective(mode, call, choice, timeout, [=](const collectives::Context& ctx) {
    choice.algorithm->run(ctx, send, root_here ? recv : nullptr, count, type, op, root);
  });
}

PendingCallPtr CommImpl::allgather(const void* send, void* recv, std::size_t count, DataType type, Timeout timeout,
                                   Mode mode) {
  constexpr std::string_view name = "allgather";
  const std::size_t block = checked_bytes(rank(), name, count, type);
  const std::size_t total = checked_total(rank(), name, count, static_cast<std::size_t>(size()), type);
  check_timeout(rank(), name, timeout);
  check_buffer(rank(), name, "recv", recv, count * static_cast<std::size_t>(size()));
  if (send == in_place) {
    send = at(recv, block * static_cast<std::size_t>(rank()));
  } else {
    check_buffer(rank(), name, "send", send, count);
    check_disjoint(rank(), name, send, block, recv, total);
  }
  const Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  const CallInfo call = CallInfo::collective_call(CallKind::allgather, next_sequence(), count, type, ReduceOp::sum, -1);
  const auto& choice = plan_->tables().allgather.at(total);
  return run_collective(mode, call, choice, timeout,
                        [=](const collectives::Context& ctx) { choice.algorithm->run(ctx, send, recv, blocks); });
}

PendingCallPtr CommImpl::allgatherv(const void* send, std::size_t count, void* recv,
                                    std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                                    DataType type, Timeout timeout, Mode mode) {
  constexpr std::string_view name = "allgatherv";
  const std::size_t element = checked_bytes(rank(), name, 1, type);
  check_timeout(rank(), name, timeout);
  const std::size_t extent = check_blocks(rank(), name, "recv", counts, displs, size(), type, true);
  const auto me = static_cast<std::size_t>(rank());
  check_own_count(rank(), name, count, counts, me);
  check_buffer(rank(), name, "recv", recv, extent);
  if (send == in_place) {
    send = at(recv, displs[me] * element);
  } else {
    check_buffer(rank(), name, "send", send, count);
    check_disjoint(rank(), name, send, count * element, recv, extent * element);
  }
  const std::size_t total = checked_bytes(rank(), name, sum(counts), type);
  CallArrays arrays(mode);
  const Blocks blocks{0, arrays.keep(counts).data(), arrays.keep(displs).data(), element};
  const CallInfo call = CallInfo::collective_call(CallKind::allgatherv, next_sequence(), sum(counts), type,
                                                  ReduceOp::sum, -1, diagnostics::hash_counts(counts, displs));
  const auto& choice = plan_->tables().allgatherv.at(total);
  return run_collective(
      mode, call, choice, timeout,
      [=](const collectives::Context& ctx) { choice.algorithm->run(ctx, send, recv, blocks); }, std::move(arrays));
}

PendingCallPtr CommImpl::reduce_scatter(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                                        Timeout timeout, Mode mode) {
  constexpr std::string_view name = "reduce_scatter";
  const std::size_t block = checked_bytes(rank(), name, count, type);
  const std::size_t total = checked_total(rank(), name, count, static_cast<std::size_t>(size()), type);
  check_op(rank(), name, op);
  check_timeout(rank(), name, timeout);
  if (send == in_place) {
    check_buffer(rank(), name, "recv", recv, count * static_cast<std::size_t>(size()));
    send = recv;
  } else {
    check_buffer(rank(), name, "send", send, count * static_cast<std::size_t>(size()));
    check_buffer(rank(), name, "recv", recv, count);
    check_disjoint(rank(), name, send, total, recv, block);
  }
  const Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  const CallInfo call = CallInfo::collective_call(CallKind::reduce_scatter, next_sequence(), count, type, op, -1);
  const auto& choice = plan_->tables().reduce_scatter.at(total);
  return run_collective(mode, call, choice, timeout, [=](const collectives::Context& ctx) {
    choice.algorithm->run(ctx, send, recv, blocks, type, op);
  });
}

PendingCallPtr CommImpl::reduce_scatter_v(const void* send, void* recv, std::span<const std::size_t> counts,
                                          DataType type, ReduceOp op, Timeout timeout, Mode mode) {
  constexpr std::string_view name = "reduce_scatter_v";
  const std::size_t element = checked_bytes(rank(), name, 1, type);
  check_op(rank(), name, op);
  check_timeout(rank(), name, timeout);
  std::vector<std::size_t> displs(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
  const std::size_t extent = check_blocks(rank(), name, "send", counts, displs, size(), type, true);
  const std::size_t mine = counts[static_cast<std::size_t>(rank())];
  if (send == in_place) {
    check_buffer(rank(), name, "recv", recv, extent);
    send = recv;
  } else {
    check_buffer(rank(), name, "send", send, extent);
    check_buffer(rank(), name, "recv", recv, mine);
    check_disjoint(rank(), name, send, extent * element, recv, mine * element);
  }
  CallArrays arrays(mode);
  const Blocks blocks{0, arrays.keep(counts).data(), arrays.keep(displs).data(), element};
  const CallInfo call = CallInfo::collective_call(CallKind::reduce_scatter_v, next_sequence(), extent, type, op, -1,
                                                  diagnostics::hash_counts(counts, {}));
  const auto& choice = plan_->tables().reduce_scatter_v.at(extent * element);
  return run_collective(
      mode, call, choice, timeout,
      [=](const collectives::Context& ctx) { choice.algorithm->run(ctx, send, recv, blocks, type, op); },
      std::move(arrays));
}

PendingCallPtr CommImpl::alltoall(const void* send, void* recv, std::size_t count, DataType type, Timeout timeout,
                                  Mode mode) {
  constexpr std::string_view name = "alltoall";
  const std::size_t total = checked_total(rank(), name, count, static_cast<std::size_t>(size()), type);
  check_timeout(rank(), name, timeout);
  if (send == in_place) throw_invalid(rank(), name, "alltoall has no in-place form; pass two buffers");
  check_buffer(rank(), name, "send", send, count * static_cast<std::size_t>(size()));
  check_buffer(rank(), name, "recv", recv, count * static_cast<std::size_t>(size()));
  check_disjoint(rank(), name, send, total, recv, total);
  const Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  const CallInfo call = CallInfo::collective_call(CallKind::alltoall, next_sequence(), count, type, ReduceOp::sum, -1);
  const auto& choice = plan_->tables().alltoall.at(total);
  return run_collective(mode, call, choice, timeout,
                 [=](const collectives::Context& ctx) { choice.algorithm->run(ctx, send, blocks, recv, blocks); });
}

PendingCallPtr CommImpl::alltoallv(const void* send, std::span<const std::size_t> send_counts,
                                   std::span<const std::size_t> send_displs, void* recv,
                                   std::span<const std::size_t> recv_counts, std::span<const std::size_t> recv_displs,
                                   DataType type, Timeout timeout, Mode mode) {
  constexpr std::string_view name = "alltoallv";
  const std::size_t element = checked_bytes(rank(), name, 1, type);
  check_timeout(rank(), name, timeout);
  if (send == in_place) throw_invalid(rank(), name, "alltoallv has no in-place form; pass two buffers");
  const std::size_t send_extent = check_blocks(rank(), name, "send", send_counts, send_displs, size(), type, false);
  const std::size_t recv_extent = check_blocks(rank(), name, "recv", recv_counts, recv_displs, size(), type, true);
  check_buffer(rank(), name, "send", send, send_extent);
  check_buffer(rank(), name, "recv", recv, recv_extent);
  check_disjoint(rank(), name, send, send_extent * element, recv, recv_extent * element);
  CallArrays arrays(mode);
  const Blocks send_blocks{0, arrays.keep(send_counts).data(), arrays.keep(send_displs).data(), element};
  const Blocks recv_blocks{0, arrays.keep(recv_counts).data(), arrays.keep(recv_displs).data(), element};
  // Counts differ between ranks by design: nothing for RCOLL_CHECK to compare but the call.
  const CallInfo call = CallInfo::collective_call(CallKind::alltoallv, next_sequence(), 0, type, ReduceOp::sum, -1);
  const auto& choice = plan_->tables().alltoallv.at(0);
  return run_collective(
      mode, call, choice, timeout,
      [=](const collectives::Context& ctx) { choice.algorithm->run(ctx, send, send_blocks, recv, recv_blocks); },
      std::move(arrays));
}

PendingCallPtr CommImpl::gather(const void* send, void* recv, std::size_t count, DataType type, int root,
                                Timeout timeout, Mode mode) {
  constexpr std::string_view name = "gather";
  const std::size_t block = checked_bytes(rank(), name, count, type);
  const std::size_t total = checked_total(rank(), name, count, static_cast<std::size_t>(size()), type);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const bool root_here = rank() == root;
  if (send == in_place) {
    if (!root_here) refuse_in_place(rank(), name);
    check_buffer(rank(), name, "recv", recv, count * static_cast<std::size_t>(size()));
    send = at(recv, block * static_cast<std::size_t>(root));
  } else {
    check_buffer(rank(), name, "send", send, count);
    if (root_here) {
      check_buffer(rank(), name, "recv", recv, count * static_cast<std::size_t>(size()));
      check_disjoint(rank(), name, send, block, recv, total);
    }
  }
  const Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  const CallInfo call = CallInfo::collective_call(CallKind::gather, next_sequence(), count, type, ReduceOp::sum, root);
  const auto& choice = plan_->tables().gather.at(total);
  return run_collective(mode, call, choice, timeout, [=](const collectives::Context& ctx) {
    choice.algorithm->run(ctx, send, root_here ? recv : nullptr, blocks, root);
  });
}

PendingCallPtr CommImpl::gatherv(const void* send, std::size_t count, void* recv, std::span<const std::size_t> counts,
                                 std::span<const std::size_t> displs, DataType type, int root, Timeout timeout,
                                 Mode mode) {
  constexpr std::string_view name = "gatherv";
  checked_bytes(rank(), name, count, type);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const bool root_here = rank() == root;
  // Non-roots know only their own count (counts matter at the root, as in MPI).
  CallArrays arrays(mode);
  Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  if (root_here) {
    const std::size_t extent = check_blocks(rank(), name, "recv", counts, displs, size(), type, true);
    const auto me = static_cast<std::size_t>(root);
    check_own_count(rank(), name, count, counts, me);
    check_buffer(rank(), name, "recv", recv, extent);
    if (send == in_place) {
      send = at(recv, displs[me] * dtype_size(type));
    } else {
      check_buffer(rank(), name, "send", send, count);
      check_disjoint(rank(), name, send, count * dtype_size(type), recv, extent * dtype_size(type));
    }
    blocks = Blocks{0, arrays.keep(counts).data(), arrays.keep(displs).data(), dtype_size(type)};
  } else {
    if (send == in_place) refuse_in_place(rank(), name);
    check_buffer(rank(), name, "send", send, count);
  }
  const CallInfo call = CallInfo::collective_call(CallKind::gatherv, next_sequence(), 0, type, ReduceOp::sum, root);
  const auto& choice = plan_->tables().gatherv.at(0);
  return run_collective(
      mode, call, choice, timeout,
      [=](const collectives::Context& ctx) {
        choice.algorithm->run(ctx, send, root_here ? recv : nullptr, blocks, root);
      },
      std::move(arrays));
}

PendingCallPtr CommImpl::scatter(const void* send, void* recv, std::size_t count, DataType type, int root,
                                 Timeout timeout, Mode mode) {
  constexpr std::string_view name = "scatter";
  const std::size_t block = checked_bytes(rank(), name, count, type);
  const std::size_t total = checked_total(rank(), name, count, static_cast<std::size_t>(size()), type);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const bool root_here = rank() == root;
  if (root_here) {
    check_buffer(rank(), name, "send", send, count * static_cast<std::size_t>(size()));
    if (recv == in_place) {
      recv = const_cast<std::byte*>(at(send, block * static_cast<std::size_t>(root)));
    } else {
      check_buffer(rank(), name, "recv", recv, count);
      check_disjoint(rank(), name, send, total, recv, block);
    }
  } else {
    if (recv == in_place) refuse_in_place(rank(), name);
    check_buffer(rank(), name, "recv", recv, count);
  }
  const Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  const CallInfo call = CallInfo::collective_call(CallKind::scatter, next_sequence(), count, type, ReduceOp::sum, root);
  const auto& choice = plan_->tables().scatter.at(total);
  return run_collective(mode, call, choice, timeout, [=](const collectives::Context& ctx) {
    choice.algorithm->run(ctx, root_here ? send : nullptr, recv, blocks, root);
  });
}

PendingCallPtr CommImpl::scatterv(const void* send, std::span<const std::size_t> counts,
                                  std::span<const std::size_t> displs, void* recv, std::size_t count, DataType type,
                                  int root, Timeout timeout, Mode mode) {
  constexpr std::string_view name = "scatterv";
  checked_bytes(rank(), name, count, type);
  check_peer(rank(), size(), name, "root", root);
  check_timeout(rank(), name, timeout);
  const bool root_here = rank() == root;
  CallArrays arrays(mode);
  Blocks blocks{count, nullptr, nullptr, dtype_size(type)};
  if (root_here) {
    const std::size_t extent = check_blocks(rank(), name, "send", counts, displs, size(), type, false);
    const auto me = static_cast<std::size_t>(root);
    check_buffer(rank(), name, "send", send, extent);
    if (recv == in_place) {
      recv = const_cast<std::byte*>(at(send, displs[me] * dtype_size(type)));
    } else {
      check_own_count(rank(), name, count, counts, me);
      check_buffer(rank(), name, "recv", recv, count);
      check_disjoint(rank(), name, send, extent * dtype_size(type), recv, count * dtype_size(type));
    }
    blocks = Blocks{0, arrays.keep(counts).data(), arrays.keep(displs).data(), dtype_size(type)};
  } else {
    if (recv == in_place) refuse_in_place(rank(), name);
    check_buffer(rank(), name, "recv", recv, count);
  }
  const CallInfo call = CallInfo::collective_call(CallKind::scatterv, next_sequence(), 0, type, ReduceOp::sum, root);
  const auto& choice = plan_->tables().scatterv.at(0);
  return run_collective(mode, call, choice, timeout, [=](const collectives::Context& ctx) {
    choice.algorithm->run(ctx, root_here ? send : nullptr, recv, blocks, root);
  }, std::move(arrays));
}

}  // namespace rcoll::comm
