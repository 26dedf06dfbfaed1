#include "diagnostics/call_info.hpp"

#include <spdlog/fmt/fmt.h>

namespace rcoll::diagnostics {

std::string_view to_string(CallKind kind) noexcept {
  switch (kind) {
    case CallKind::none: return "none";
    case CallKind::allreduce: return "allreduce";
    case CallKind::bcast: return "bcast";
    case CallKind::barrier: return "barrier";
    case CallKind::send: return "send";
    case CallKind::recv: return "recv";
    case CallKind::reduce: return "reduce";
    case CallKind::allgather: return "allgather";
    case CallKind::allgatherv: return "allgatherv";
    case CallKind::reduce_scatter: return "reduce_scatter";
    case CallKind::reduce_scatter_v: return "reduce_scatter_v";
    case CallKind::alltoall: return "alltoall";
    case CallKind::alltoallv: return "alltoallv";
    case CallKind::gather: return "gather";
    case CallKind::gatherv: return "gatherv";
    case CallKind::scatter: return "scatter";
    case CallKind::scatterv: return "scatterv";
    case CallKind::create_group: return "create_group";
  }
  return "unknown call";
}

std::uint64_t hash_counts(std::span<const std::size_t> counts, std::span<const std::size_t> displs) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  auto mix = [&h](std::size_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (std::size_t c : counts) mix(c);
  for (std::size_t d : displs) mix(d);
  return h == 0 ? 1 : h;
}

namespace {

// " (4096 x float32, sum)", " (16 x float32, root 0)", " (12 x int32, sum, root 2)".
std::string arguments(const CallInfo& call) {
  switch (call.kind) {
    case CallKind::send: return fmt::format(" to rank {} tag {}", call.peer, call.tag);
    case CallKind::recv: return fmt::format(" from rank {} tag {}", call.peer, call.tag);
    case CallKind::barrier:
    case CallKind::create_group:
    case CallKind::none: return {};
    default: break;
  }
  std::string text = fmt::format(" ({} x {}", call.count, to_string(call.type));
  if (call.has_op()) text += fmt::format(", {}", to_string(call.op));
  if (call.has_root()) text += fmt::format(", root {}", call.peer);
  return text + ")";
}

}  // namespace

std::string CallInfo::describe() const { return std::string(to_string(kind)) + arguments(*this); }

std::string CallInfo::label() const {
  if (!collective()) return describe();
  return fmt::format("{} #{}{}", to_string(kind), sequence, arguments(*this));
}

}  // namespace rcoll::diagnostics
