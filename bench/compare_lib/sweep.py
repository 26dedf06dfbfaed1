"""The message sizes of the comparison and the iteration rule per size.

Sizes are float32 element counts times 4 bytes, so every size is a whole
number of elements: powers of two (2^k elements), the odd sizes 3*2^k and
2^k+1 elements, from 8 B (2 elements) to 64 MiB. The iteration rule is the
same for every library: it depends only on the size, and each band of sizes
is one job per library so that jobs stay short and alternate often.

What a size means follows nccl-tests (as rcoll-bench and bench/peers/): the
vector for allreduce, bcast and reduce; a rank's receive buffer for
allgather, the root's for gather; a rank's send buffer for reduce_scatter
and alltoall, the root's for scatter. The blocked ops split it into one
block per rank in whole float32 elements: op_sizes rounds every size down
to a multiple of ranks elements, drops those left empty and repeats, and
only those sizes are run, so every program reports exactly the sizes asked.
"""

from .results import BLOCKED_OPS

ELEMENT = 4  # float32
MIN_BYTES = 8
MAX_BYTES = 64 << 20

# (largest size in the band, timed iterations, warm-up iterations).
BANDS = (
    ("small", 64 << 10, 20, 3),
    ("medium", 4 << 20, 10, 2),
    ("large", MAX_BYTES, 4, 1),
)
QUICK_ITERS, QUICK_WARMUP = 5, 1


def full_sizes(min_bytes=MIN_BYTES, max_bytes=MAX_BYTES):
    """Sorted byte sizes in [min_bytes, max_bytes]: 2^k, 3*2^k, 2^k+1 elements."""
    counts = set()
    k = 0
    while (1 << k) * ELEMENT <= max_bytes:
        counts.update({1 << k, 3 << k, (1 << k) + 1})
        k += 1
    return sorted(c * ELEMENT for c in counts if min_bytes <= c * ELEMENT <= max_bytes)


def op_sizes(op, ranks, sizes):
    """The sizes `op` runs with `ranks` ranks: each rounded down to whole
    float32 elements (per rank for the blocked ops), without empty sizes or
    repeats, sorted."""
    unit = ELEMENT * (ranks if op in BLOCKED_OPS else 1)
    return sorted({s // unit * unit for s in sizes if s >= unit})


def quick_sizes():
    """A short sweep for smoke tests: one of each kind, small to 1 MiB."""
    return [8, 20, 4096, 12288, 65540, 1 << 20]


def bands(sizes, quick=False):
    """Splits sizes into [(band name, sizes, iters, warmup)] by BANDS."""
    out, lower = [], 0
    for name, upper, iters, warmup in BANDS:
        chosen = [s for s in sizes if lower < s <= upper]
        lower = upper
        if not chosen:
            continue
        if quick:
            iters, warmup = QUICK_ITERS, QUICK_WARMUP
        out.append((name, chosen, iters, warmup))
    return out


def band_of(nbytes):
    """The name of the band (one job per library) that times `nbytes`."""
    for name, upper, _, _ in BANDS:
        if nbytes <= upper:
            return name
    return BANDS[-1][0]


def describe_bands(sizes, quick=False):
    """'small (<= 64 KiB): 40 iterations + 5 warm-up; ...' for the sizes run."""
    lower, parts = 0, []
    for name, upper, iters, warmup in BANDS:
        if any(lower < s <= upper for s in sizes):
            if quick:
                iters, warmup = QUICK_ITERS, QUICK_WARMUP
            parts.append(f"{name} (≤ {format_bytes(upper)}): {iters} iterations + {warmup} warm-up")
        lower = upper
    return "; ".join(parts)


def format_bytes(n):
    """In the largest unit that divides n (8 B, 4 KiB, 3 MiB, 1536 KiB), or
    that leaves only a few bytes over or short (1 MiB+4; 1 MiB-4, a size
    the blocked ops rounded down to whole elements per rank), else in bytes
    (1536 B)."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        whole, rest = divmod(n, 1 << shift)
        if whole and rest == 0:
            return f"{whole} {unit}"
        if whole and rest < 64:
            return f"{whole} {unit}+{rest}"
        if (1 << shift) - rest < 64:
            return f"{whole + 1} {unit}-{(1 << shift) - rest}"
    return f"{n} B"
