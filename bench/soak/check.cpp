#include "check.hpp"

#include <cstdio>
#include <cstring>
#include <optional>

#include "values.hpp"

namespace rcoll::soak {
namespace {

constexpr std::size_t guard_bytes = 64;
constexpr std::byte guard_value{0xc3};
constexpr std::byte untouched_value{0x5a};  // receive buffers before the call

// A message buffer of `bytes` plus a guard zone, every byte preset to `fill`.
class Buffer {
 public:
  Buffer(std::size_t bytes, std::byte fill) : bytes_(bytes), storage_(bytes + guard_bytes, fill) {
    std::memset(storage_.data() + bytes, static_cast<int>(guard_value), guard_bytes);
  }
  std::byte* data() noexcept { return storage_.data(); }
  std::size_t size() const noexcept { return bytes_; }
  // Index of the first guard byte that changed, if any.
  std::optional<std::size_t> guard_damage() const {
    for (std::size_t i = 0; i < guard_bytes; ++i)
      if (storage_[bytes_ + i] != guard_value) return i;
    return std::nullopt;
  }

 private:
  std::size_t bytes_;
  std::vector<std::byte> storage_;
};

std::string hex(std::byte b) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02x", static_cast<unsigned>(b));
  return text;
}

// The first byte where `got` differs from `want`, described; empty if none.
std::string first_difference(const std::string& name, const std::byte* got, const std::byte* want, std::size_t bytes) {
  if (bytes == 0 || std::memcmp(got, want, bytes) == 0) return {};
  std::size_t i = 0;
  while (got[i] == want[i]) ++i;
  std::size_t wrong = 0;
  for (std::size_t j = i; j < bytes; ++j) wrong += got[j] != want[j];
  return name + " byte " + std::to_string(i) + ": got " + hex(got[i]) + ", expected " + hex(want[i]) + " (" +
         std::to_string(wrong) + " of " + std::to_string(bytes) + " bytes differ)";
}

std::string guard_text(const std::string& name, const Buffer& buffer) {
  auto damage = buffer.guard_damage();
  return damage ? name + " guard zone overwritten at byte " + std::to_string(buffer.size() + *damage) : std::string();
}

std::uint64_t sendrecv_seed(const Operation& op, int sender) { return derive(op.seed, 0x5e4d, static_cast<std::uint64_t>(sender)); }

}  // namespace

void Checker::record(const Operation& op, std::string what) {
  if (details_.size() < keep_) details_.push_back({op.describe(), std::move(what)});
}

void Checker::maybe_corrupt(const Operation& op, std::byte* data, std::size_t bytes) const {
  if (corrupt_every_ > 0 && bytes > 0 && op.index % corrupt_every_ == corrupt_every_ - 1)
    data[op.seed % bytes] ^= std::byte{0x10};
}

bool Checker::run(Comm& comm, const Operation& op) {
  bool ok = true;
  switch (op.kind) {
    case OpKind::allreduce: ok = run_allreduce(comm, op); break;
    case OpKind::bcast: ok = run_bcast(comm, op); break;
    case OpKind::sendrecv: ok = run_sendrecv(comm, op); break;
    case OpKind::barrier: comm.barrier(); break;
  }
  if (!ok) ++mismatches_;
  return ok;
}

bool Checker::run_allreduce(Comm& comm, const Operation& op) {
  const ReduceSpec spec{op.type, op.op, comm.size(), op.seed};
  const std::size_t bytes = op.bytes();
  Buffer input(bytes, std::byte{0});
  fill_input(spec, comm.rank(), input.data(), op.count);
  std::vector<std::byte> expected(bytes);
  fill_reference(spec, expected.data(), op.count);
  std::vector<std::string> problems;
  if (op.in_place) {
    comm.allreduce(input.data(), op.count, op.type, op.op);
    maybe_corrupt(op, input.data(), bytes);
    problems.push_back(first_difference("result", input.data(), expected.data(), bytes));
    problems.push_back(guard_text("in-place buffer", input));
  } else {
    Buffer output(bytes, untouched_value);
    std::vector<std::byte> original(input.data(), input.data() + bytes);
    comm.allreduce(input.data(), output.data(), op.count, op.type, op.op);
    maybe_corrupt(op, output.data(), bytes);
    problems.push_back(first_difference("result", output.data(), expected.data(), bytes));
    problems.push_back(first_difference("send buffer (must stay unchanged)", input.data(), original.data(), bytes));
    problems.push_back(guard_text("recv buffer", output));
    problems.push_back(guard_text("send buffer", input));
  }
  bool ok = true;
  for (auto& problem : problems)
    if (!problem.empty()) {
      record(op, std::move(problem));
      ok = false;
    }
  return ok;
}

bool Checker::run_bcast(Comm& comm, const Operation& op) {
  const std::size_t bytes = op.bytes();
  std::vector<std::byte> expected(bytes);
  fill_bytes(op.seed, expected.data(), bytes);
  Buffer buffer(bytes, untouched_value);
  if (comm.rank() == op.root && bytes > 0) std::memcpy(buffer.data(), expected.data(), bytes);
  comm.bcast(buffer.data(), op.count, op.type, op.root);
  maybe_corrupt(op, buffer.data(), bytes);
  bool ok = true;
  for (auto problem : {first_difference("bcast data", buffer.data(), expected.data(), bytes), guard_text("bcast buffer", buffer)})
    if (!problem.empty()) {
      record(op, std::move(problem));
      ok = false;
    }
  return ok;
}

bool Checker::run_sendrecv(Comm& comm, const Operation& op) {
  const Pairing pair = pairing_of(op, comm.size(), comm.rank());
  if (pair.partner < 0) return true;
  const std::size_t element = dtype_size(op.type);
  const std::size_t bytes = op.bytes();
  Buffer outgoing(bytes, std::byte{0});
  fill_bytes(sendrecv_seed(op, comm.rank()), outgoing.data(), bytes);
  std::vector<std::byte> expected(bytes + op.spare * element, untouched_value);
  fill_bytes(sendrecv_seed(op, pair.partner), expected.data(), bytes);
  Buffer incoming(bytes + op.spare * element, untouched_value);
  std::size_t received = 0;
  auto receive = [&] { received = comm.recv(incoming.data(), op.count + op.spare, op.type, pair.partner, op.tag); };
  if (pair.sends_first) {
    comm.send(outgoing.data(), op.count, op.type, pair.partner, op.tag);
    receive();
  } else {
    receive();
    comm.send(outgoing.data(), op.count, op.type, pair.partner, op.tag);
  }
  maybe_corrupt(op, incoming.data(), bytes);
  bool ok = true;
  if (received != op.count) {
    record(op, "received " + std::to_string(received) + " elements from rank " + std::to_string(pair.partner) +
                   ", expected " + std::to_string(op.count));
    ok = false;
  }
  for (auto problem : {first_difference("received data (and spare capacity)", incoming.data(), expected.data(),
                                        expected.size()),
                       guard_text("recv buffer", incoming), guard_text("send buffer", outgoing)})
    if (!problem.empty()) {
      record(op, std::move(problem));
      ok = false;
    }
  return ok;
}

}  // namespace rcoll::soak
