// The --check convention of the peer benchmarks (bench/peers/common/
// check_data.hpp) against a serial model of each op's MPI semantics: on
// every world size, root and size, correct results count 0 errors, one
// wrong element counts 1, a block from the wrong rank counts, and a
// changed input element counts. Built and run by test_compare.py (no MPI
// or Gloo needed). Exit status 0, or 1 with the failures on stderr.
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "common/check_data.hpp"
#include "common/peer_layout.hpp"

namespace {

using rcoll::peers::CheckData;
using rcoll::peers::PeerLayout;
using rcoll::peers::PeerOp;
using Buffers = std::vector<std::vector<float>>;

// What MPI leaves in every rank's receive buffer (reduce and gather: off
// the root, untouched). bcast's input is the receive buffer itself.
void model(PeerOp op, const PeerLayout& l, int n, int root, const Buffers& send, Buffers& recv) {
  const std::size_t b = l.block;
  const auto un = static_cast<std::size_t>(n);
  const auto ur = static_cast<std::size_t>(root);
  for (std::size_t r = 0; r < un; ++r) {
    auto& out = recv[r];
    switch (op) {
      case PeerOp::allreduce: case PeerOp::reduce:
        if (op == PeerOp::reduce && r != ur) break;
        for (std::size_t k = 0; k < l.count; ++k) {
          out[k] = 0;
          for (std::size_t q = 0; q < un; ++q) out[k] += send[q][k];
        }
        break;
      case PeerOp::bcast: if (r != ur) out = recv[ur]; break;
      case PeerOp::allgather: case PeerOp::gather:
        if (op == PeerOp::gather && r != ur) break;
        for (std::size_t k = 0; k < l.count; ++k) out[k] = send[k / b][k % b];
        break;
      case PeerOp::reduce_scatter:
        for (std::size_t i = 0; i < b; ++i) {
          out[i] = 0;
          for (std::size_t q = 0; q < un; ++q) out[i] += send[q][r * b + i];
        }
        break;
      case PeerOp::scatter: for (std::size_t i = 0; i < b; ++i) out[i] = send[ur][r * b + i]; break;
      case PeerOp::alltoall: for (std::size_t k = 0; k < l.count; ++k) out[k] = send[k / b][r * b + k % b]; break;
    }
  }
}

struct World {
  PeerOp op;
  int n;
  int root;
  PeerLayout layout;
  std::vector<CheckData> checks;
  Buffers send, recv;

  World(PeerOp o, int ranks, int r, std::size_t bytes) : op(o), n(ranks), root(r) {
    rcoll::peers::PeerOptions options;
    options.op = op;
    options.root = root;
    layout = rcoll::peers::peer_layout(op, bytes, n, false);
    for (int q = 0; q < n; ++q) {
      checks.emplace_back(options, q, n);
      send.emplace_back(layout.send_count);
      recv.emplace_back(layout.recv_count, 0.0f);
      checks.back().fill_input(layout.send_count ? send.back().data() : recv.back().data(), layout);
    }
    model(op, layout, n, root, send, recv);
  }

  std::size_t errors() const {
    std::size_t total = 0;
    for (int q = 0; q < n; ++q) {
      const auto uq = static_cast<std::size_t>(q);
      total += checks[uq].count_errors(recv[uq].data(), layout);
      total += checks[uq].count_changed_input(send[uq].data(), layout);
    }
    return total;
  }

  // The rank whose result --check reads for sure (the root where only it has one).
  std::size_t checked_rank() const {
    return static_cast<std::size_t>(rcoll::peers::result_on_root_only(op) ? root : n - 1);
  }
};

int failures = 0;

void expect(bool ok, const World& w, std::size_t bytes, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "FAIL %s n=%d root=%d bytes=%zu: %s\n", rcoll::peers::to_string(w.op), w.n, w.root, bytes,
               what.c_str());
}

void check_one(PeerOp op, int n, int root, std::size_t bytes) {
  World w(op, n, root, bytes);
  if (w.layout.block == 0) return;
  expect(w.errors() == 0, w, bytes, "correct results count " + std::to_string(w.errors()) + " errors");
  const std::size_t r = w.checked_rank();
  auto& out = w.recv[r];
  const float kept = out.back();
  out.back() += 1.0f;
  expect(w.errors() == 1, w, bytes, "one wrong element counts " + std::to_string(w.errors()));
  out.back() = kept;
  // Another rank's block in place of the first (or, with one block, its neighbour element).
  const std::size_t b = w.layout.block;
  if (w.layout.recv_count >= 2 * b && b > 0) {
    std::vector<float> first(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(b));
    std::copy(out.begin() + static_cast<std::ptrdiff_t>(b), out.begin() + static_cast<std::ptrdiff_t>(2 * b),
              out.begin());
    expect(w.errors() > 0, w, bytes, "a block from the wrong rank goes unnoticed");
    std::copy(first.begin(), first.end(), out.begin());
  }
  if (w.layout.send_count > 0) {
    w.send[0][0] += 1.0f;
    expect(w.errors() >= 1, w, bytes, "a changed input element goes unnoticed");
  }
}

}  // namespace

// A few values of rcoll-bench's formulas (bench/rcoll-bench/patterns.cpp),
// worked out by hand: the peers' values must stay the same as rcoll's.
void check_pinned_values() {
  const struct { long long got, want; const char* what; } pinned[] = {
      {CheckData::block_value(2, -1, 80), 24, "block_value(2, -1, 80)"},
      {CheckData::block_value(0, 3, 5), 68, "block_value(0, 3, 5)"},
      {CheckData::bcast_value(1, 100), 77, "bcast_value(1, 100)"},
      {CheckData::sum_value(2, 4, 12), (3 * 6) % 7 + 1, "sum_value(2, 4, 12)"},
  };
  for (const auto& p : pinned) {
    if (p.got == p.want) continue;
    ++failures;
    std::fprintf(stderr, "FAIL %s = %lld, rcoll-bench's is %lld\n", p.what, p.got, p.want);
  }
}

int main() {
  check_pinned_values();
  const PeerOp ops[] = {PeerOp::allreduce, PeerOp::bcast, PeerOp::reduce, PeerOp::allgather,
                        PeerOp::reduce_scatter, PeerOp::alltoall, PeerOp::gather, PeerOp::scatter};
  int cases = 0;
  for (PeerOp op : ops)
    for (int n = 1; n <= 5; ++n)
      for (int root : {0, n - 1})
        for (std::size_t bytes : {4, 8, 20, 44, 400, 1236, 4100}) {
          check_one(op, n, root, bytes);
          ++cases;
        }
  std::printf("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}
