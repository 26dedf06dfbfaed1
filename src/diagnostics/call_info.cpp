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
  }
  return "unknown call";
}

namespace {

std::string arguments(const CallInfo& call) {
  switch (call.kind) {
    case CallKind::allreduce: return fmt::format(" ({} x {}, {})", call.count, to_string(call.type), to_string(call.op));
    case CallKind::bcast: return fmt::format(" ({} x {}, root {})", call.count, to_string(call.type), call.peer);
    case CallKind::send: return fmt::format(" to rank {} tag {}", call.peer, call.tag);
    case CallKind::recv: return fmt::format(" from rank {} tag {}", call.peer, call.tag);
    case CallKind::barrier:
    case CallKind::none: break;
  }
  return {};
}

}  // namespace

std::string CallInfo::describe() const { return std::string(to_string(kind)) + arguments(*this); }

std::string CallInfo::label() const {
  if (!collective()) return describe();
  return fmt::format("{} #{}{}", to_string(kind), sequence, arguments(*this));
}

}  // namespace rcoll::diagnostics
