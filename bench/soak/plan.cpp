#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rcoll::soak {
namespace {

constexpr DataType all_types[] = {DataType::int8,    DataType::uint8,    DataType::int32,   DataType::uint32,
                                  DataType::int64,   DataType::uint64,   DataType::float16, DataType::bfloat16,
                                  DataType::float32, DataType::float64};
constexpr ReduceOp all_ops[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max};

}  // namespace

std::string to_string(OpKind kind) {
  switch (kind) {
    case OpKind::allreduce: return "allreduce";
    case OpKind::bcast: return "bcast";
    case OpKind::barrier: return "barrier";
    case OpKind::sendrecv: return "sendrecv";
  }
  return "?";
}

std::string Operation::describe() const {
  std::string text = to_string(kind) + " #" + std::to_string(index) + " (comm " + std::to_string(comm);
  if (kind == OpKind::barrier) return text + ")";
  text += ", " + std::to_string(count) + " x " + std::string(rcoll::to_string(type));
  if (kind == OpKind::allreduce)
    text += ", " + std::string(rcoll::to_string(op)) + (in_place ? ", in place" : ", out of place");
  if (kind == OpKind::bcast) text += ", root " + std::to_string(root);
  if (kind == OpKind::sendrecv) text += ", tag " + std::to_string(tag) + ", spare " + std::to_string(spare);
  return text + ")";
}

Pairing pairing_of(const Operation& op, int world, int rank) {
  std::vector<int> order(static_cast<std::size_t>(world));
  std::iota(order.begin(), order.end(), 0);
  Stream stream(derive(op.seed, 0xba1));
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[stream.below(i)]);
  const auto at = static_cast<std::size_t>(std::find(order.begin(), order.end(), rank) - order.begin());
  const std::size_t mate = at ^ 1;
  if (mate >= order.size()) return {};
  return {order[mate], at % 2 == 0};
}

Planner::Planner(std::uint64_t seed, PlanLimits limits) : stream_(derive(seed, 0x91a4)), limits_(limits) {}

OpKind Planner::draw_kind() {
  const std::uint64_t roll = stream_.below(100);
  if (roll < 50) return OpKind::allreduce;
  if (roll < 75) return OpKind::bcast;
  if (roll < 90) return OpKind::sendrecv;
  return OpKind::barrier;
}

// 8 %: no elements, 8 %: one, else log-uniform bytes up to max_bytes,
// odd half of the time.
std::size_t Planner::draw_count(DataType type) {
  const std::size_t element = dtype_size(type);
  const std::size_t max_count = limits_.max_bytes / element;
  const std::uint64_t roll = stream_.below(100);
  if (roll < 8 || max_count == 0) return 0;
  if (roll < 16) return 1;
  const double unit = static_cast<double>(stream_.next() >> 11) * 0x1.0p-53;
  const double bytes = std::exp(unit * std::log(static_cast<double>(limits_.max_bytes)));
  std::size_t count = std::clamp<std::size_t>(static_cast<std::size_t>(bytes) / element, 1, max_count);
  if (stream_.percent(50)) count |= 1;
  return std::min(count, max_count);
}

Operation Planner::start(OpKind kind, int comm) {
  Operation op;
  op.index = index_++;
  op.kind = kind;
  op.comm = comm;
  op.seed = stream_.next();
  op.type = all_types[stream_.below(std::size(all_types))];
  op.op = all_ops[stream_.below(std::size(all_ops))];
  op.in_place = stream_.percent(50);
  op.root = static_cast<int>(stream_.below(static_cast<std::uint64_t>(limits_.world)));
  op.tag = static_cast<int>(stream_.below(1u << 20));
  op.spare = stream_.below(4);
  return op;
}

Operation Planner::next() {
  const OpKind kind = draw_kind();
  Operation op = start(kind, static_cast<int>(stream_.below(static_cast<std::uint64_t>(limits_.comms))));
  op.count = kind == OpKind::barrier ? 0 : draw_count(op.type);
  return op;
}

Operation Planner::sized(OpKind kind, int comm, std::size_t bytes, bool in_place) {
  Operation op = start(kind, comm);
  op.in_place = in_place;
  op.count = bytes / dtype_size(op.type);
  return op;
}

std::uint64_t payload_bytes(const Operation& op, int world) {
  switch (op.kind) {
    case OpKind::allreduce:
    case OpKind::bcast: return op.bytes();
    case OpKind::sendrecv: return 2 * static_cast<std::uint64_t>(world / 2) * op.bytes();
    case OpKind::barrier: return 0;
  }
  return 0;
}

}  // namespace rcoll::soak
