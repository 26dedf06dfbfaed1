// Recursive halving reduce-scatter: log2(p) steps over the largest power
// of two p <= n (halving_step in schedule.hpp). In each step a rank sends
// the half of its current blocks its partner keeps and reduces the half it
// keeps with the partner's, so the data moved halves every step:
// lg p alpha + (p - 1)/p S (beta + gamma), for short and medium vectors.
//
// The n - p extra ranks fold first: rank p + i sends its whole vector to
// rank i, which reduces it into its own, and takes part in the halving for
// both (its "virtual block" is the blocks i and p + i, two runs of bytes,
// sent as two messages). At the end rank i sends block p + i back.
//
// Partial sums go to scratch laid out like the vector (in place: the
// caller's buffer, which is the result buffer); the received halves to a
// second scratch; the caller's send buffer is only read out of place. The
// last step reduces this rank's block straight into recv (in place it is
// moved to the start of the buffer at the end). Each combine puts the lower
// rank's data on the left. Works for any consecutive Blocks (reduce's
// reduce_scatter_gather uses it with unequal chunks).
#include <algorithm>
#include <array>

#include "collectives/algorithms.hpp"
#include "collectives/reduce.hpp"
#include "collectives/reduce_scatter_blocks.hpp"
#include "collectives/requests.hpp"
#include "collectives/scratch.hpp"
#include "collectives/step_label.hpp"

namespace rcoll::collectives {
namespace {

constexpr std::uint32_t fold_step = 0;
constexpr std::uint32_t unfold_step = 1;
constexpr std::uint32_t first_halving_step = 2;  // step k: 2 + 2k and 3 + 2k, one per byte run

// The two byte runs of a range of virtual blocks: blocks v and pof2 + v.
std::array<Range, 2> virtual_runs(const Blocks& blocks, Range v, int pof2, int size) {
  const int first = static_cast<int>(v.offset), last = static_cast<int>(v.end());
  return {block_run(blocks, first, last), block_run(blocks, pof2 + first, std::min(pof2 + last, size))};
}

struct Halving {
  const Context& ctx;
  const Blocks& blocks;
  DataType type;
  ReduceOp op;
  int pof2;
  std::size_t element_size;
};

// Step k: sends the partner's runs of `current`, receives this rank's into
// `incoming` (packed), and reduces them into `work` (the first run of the
// last step, this rank's own block, into `own` instead).
void halving_step_exchange(const Halving& h, int k, int steps, const std::byte* current, std::byte* work,
                           std::byte* incoming, std::byte* own) {
  const Context& ctx = h.ctx;
  const int rank = ctx.rank();
  const HalvingStep step = halving_step(rank, h.pof2, k);
  const auto keep = virtual_runs(h.blocks, step.keep, h.pof2, ctx.size());
  const auto give = virtual_runs(h.blocks, step.give, h.pof2, ctx.size());
  RequestList requests(ctx);
  std::size_t packed = 0;
  for (std::size_t j = 0; j < 2; ++j) {
    const auto tag = first_halving_step + 2 * static_cast<std::uint32_t>(k) + static_cast<std::uint32_t>(j);
    if (keep[j].count > 0)
      requests.add(ctx.transport.irecv(step.partner, ctx.tag(tag), incoming + packed, keep[j].count));
    if (give[j].count > 0) requests.send(step.partner, tag, current + give[j].offset, give[j].count);
    packed += keep[j].count;
  }
  requests.wait_all(step_label(ctx, "reduce_scatter recursive_halving step {}/{} with rank {}", k + 1, steps,
                               step.partner));
  packed = 0;
  for (std::size_t j = 0; j < 2; ++j) {
    const Range run = keep[j];
    std::byte* dst = k + 1 == steps && j == 0 ? own : work + run.offset;
    const std::byte* mine = current + run.offset;
    const std::byte* theirs = incoming + packed;
    const std::size_t n = run.count / h.element_size;
    if (rank < step.partner) reduce(dst, mine, theirs, n, h.type, h.op);
    else reduce(dst, theirs, mine, n, h.type, h.op);
    packed += run.count;
  }
}

void send_to(const Context& ctx, int peer, std::uint32_t step, const void* buf, std::size_t bytes, LazyText label) {
  if (bytes == 0) return;
  RequestList request(ctx);
  request.send(peer, step, buf, bytes);
  request.wait_all(label);
}

void receive_from(const Context& ctx, int peer, std::uint32_t step, void* buf, std::size_t bytes, LazyText label) {
  if (bytes == 0) return;
  RequestList request(ctx);
  request.add(ctx.transport.irecv(peer, ctx.tag(step), buf, bytes));
  request.wait_all(label);
}

}  // namespace

void reduce_scatter_recursive_halving(const Context& ctx, const void* send, void* recv, const Blocks& blocks,
                                      DataType type, ReduceOp op) {
  const int n = ctx.size();
  const int rank = ctx.rank();
  const std::size_t total = total_bytes(blocks, n);
  if (n == 1 || total == 0) return move_own_block(send, recv, blocks, rank);
  const bool in_place = send == recv;
  const auto* input = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const DoublingPlan plan = doubling_plan(rank, n);
  if (plan.folded) {
    send_to(ctx, plan.fold_partner, fold_step, input, total,
            step_label(ctx, "reduce_scatter recursive_halving fold into rank {}", plan.fold_partner));
    receive_from(ctx, plan.fold_partner, unfold_step, out, blocks.bytes(rank),
                 step_label(ctx, "reduce_scatter recursive_halving unfold from rank {}", plan.fold_partner));
    return;
  }
  const Halving h{ctx, blocks, type, op, plan.pof2, dtype_size(type)};
  const bool folds = plan.fold_partner >= 0;
  // The runs kept in step 0 are the most any step receives.
  const auto first_keep = virtual_runs(blocks, halving_step(rank, plan.pof2, 0).keep, plan.pof2, n);
  Scratch incoming(folds ? total : first_keep[0].count + first_keep[1].count);
  Scratch partials(in_place ? 0 : total);
  std::byte* work = in_place ? out : partials.get();
  const std::byte* current = input;  // this rank's data: its input, then its partial sums in `work`
  if (folds) {
    receive_from(ctx, plan.fold_partner, fold_step, incoming.get(), total,
                 step_label(ctx, "reduce_scatter recursive_halving fold from rank {}", plan.fold_partner));
    reduce(work, current, incoming.get(), total / h.element_size, type, op);
    current = work;
  }
  std::byte* own = in_place ? work + blocks.offset(rank) : out;
  for (int k = 0; k < plan.steps; ++k) {
    halving_step_exchange(h, k, plan.steps, current, work, incoming.get(), own);
    current = work;
  }
  if (folds)
    send_to(ctx, plan.fold_partner, unfold_step, work + blocks.offset(plan.fold_partner),
            blocks.bytes(plan.fold_partner), step_label(ctx, "reduce_scatter recursive_halving unfold to rank {}", plan.fold_partner));
  if (in_place) move_own_block(recv, recv, blocks, rank);
}

}  // namespace rcoll::collectives
