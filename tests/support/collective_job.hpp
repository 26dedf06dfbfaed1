// What the collectives suites share: the transports and world sizes they
// run on, a Job (ranks as threads on one transport world, one tag space per
// call), and the inputs and serial reference of the reductions. Inputs are
// small integers, so every result is exact in every dtype and is compared
// bitwise.
//
// "rdma" runs where a device exists (`ctest -L rdma`: the Soft-RoCE guest,
// filter *rdma*), else skips, with a reduced matrix (the guest is emulated,
// 10-50x slower): see world_sizes().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/collectives.hpp"
#include "support/transport_fixture.hpp"

namespace rcoll::test {

// The backends this suite runs on; every name must be one that
// test::make_transport_world() knows.
inline std::vector<std::string> transport_kinds() { return {"inproc", "tcp", "rdma"}; }

// Emulated Soft-RoCE is slow: fewer world sizes and cases (see the top).
// Ranks as threads of the in-process fabric also run 12 and 16.
inline bool reduced(const std::string& kind) { return is_rdma_backend(kind); }
inline std::vector<int> world_sizes(const std::string& kind) {
  if (reduced(kind)) return {1, 2, 3, 4, 5, 8};
  if (kind == "inproc") return {1, 2, 3, 4, 5, 6, 7, 8, 12, 16};
  return {1, 2, 3, 4, 5, 6, 7, 8};
}

// Every (kind, world size) this suite runs, and with each algorithm.
using WorldParam = std::pair<std::string, int>;
inline std::vector<WorldParam> worlds() {
  std::vector<WorldParam> params;
  for (const std::string& kind : transport_kinds())
    for (int size : world_sizes(kind)) params.emplace_back(kind, size);
  return params;
}
// Every algorithm of the catalog: one registered there is tested here.
template <typename Algorithm>
auto worlds_and(std::span<const Algorithm> algorithms) {
  std::vector<std::tuple<std::string, int, decltype(Algorithm::id)>> params;
  for (const auto& [kind, size] : worlds())
    for (const Algorithm& algo : algorithms) params.emplace_back(kind, size, algo.id);
  return params;
}

// Runs collectives on all ranks of one transport world; call i gets tag space i.
class Job {
 public:
  Job(const std::string& kind, int size)
      : world_(make_transport_world(kind, size)), size_(size), reduced_(reduced(kind)) {}
  int size() const { return size_; }

  // The context of call number `call` (the same on every rank) on `rank`;
  // segments default to 64 bytes (256 on the slow transports). Odd calls
  // post one receive ahead, even ones eight, so every test runs both ends
  // of a pipeline's depth.
  collectives::Context context(int rank, std::uint64_t call, const std::string& label,
                               std::size_t segment_bytes = 0,
                               std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
    if (segment_bytes == 0) segment_bytes = reduced_ ? 256 : 64;
    if (timeout.count() == 0) timeout = reduced_ ? std::chrono::seconds(60) : std::chrono::seconds(20);
    return collectives::Context{*world_.ranks[static_cast<std::size_t>(rank)],
                                (call + 1) << collectives::Context::step_bits, Deadline::after(timeout), segment_bytes,
                                call % 2 == 1 ? 1u : 8u, label};
  }
  // Messages above this go by rendezvous on this transport.
  std::size_t eager_limit() const { return capabilities().eager_limit; }
  const transport::Capabilities& capabilities() const { return world_.ranks.front()->capabilities(); }

 private:
  TransportWorld world_;
  int size_;
  bool reduced_;
};

inline const DataType kTypes[] = {DataType::int8,    DataType::uint8,    DataType::int32,   DataType::uint32,
                                  DataType::int64,   DataType::uint64,   DataType::float16, DataType::bfloat16,
                                  DataType::float32, DataType::float64};
inline const ReduceOp kOps[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max};

// Runs case i (0 .. cases - 1) as call i on every rank of `job` at once;
// run(rank, i) returns "" or what went wrong on that rank. Fails the test
// with the first ten errors, each after describe(i).
void run_cases(const Job& job, std::size_t cases, const std::function<std::string(int rank, std::size_t i)>& run,
               const std::function<std::string(std::size_t i)>& describe);

// "<transport>_n<size>_<algorithm>": the names of (transport, size, algorithm id) cases.
template <typename Param>
std::string world_algo_name(const ::testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param) + "_n" + std::to_string(std::get<1>(info.param)) + "_" +
         to_string(std::get<2>(info.param));
}

// Input element i of `rank` for `op`: sums stay within [-32, 64], products
// are +-1, +-2 or +-4 (at most two 2s among 8 consecutive ranks), min/max
// within [-50, 100]: exact in int8 and in both 16-bit float formats.
std::int64_t input_value(int rank, std::size_t i, DataType type, ReduceOp op);
// Writes v as element i of a buffer of `type`.
void store(DataType type, void* base, std::size_t i, std::int64_t v);
// `count` input elements of `rank` (input_value).
std::vector<std::byte> make_input(int rank, std::size_t count, DataType type, ReduceOp op);
// The serial reference: op over ranks 0 .. size - 1 of make_input, in
// exact integer arithmetic, then one conversion.
std::vector<std::byte> reference(int size, std::size_t count, DataType type, ReduceOp op);

}  // namespace rcoll::test
