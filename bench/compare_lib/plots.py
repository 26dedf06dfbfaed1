"""PNG plots with matplotlib (Agg): busbw vs size and latency vs size, one
line per library, log axes, one panel per rank count; one file per op and
metric."""

import os

from .libs import LIBRARIES

MARKERS = {"rcoll": "o", "rcoll-rdma": "D", "rcoll-base": "x", "openmpi": "s", "mpich": "^", "gloo": "v"}


def available():
    """None when matplotlib can draw, else the reason."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as e:
        return f"matplotlib is missing ({e}): install python3-matplotlib"
    return None


def draw(grouped, order, out_dir):
    """Writes compare_<op>_<busbw|latency>.png; returns the file names."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    names = []
    for op in sorted({op for op, _ in grouped}):
        ranks_list = sorted(r for o, r in grouped if o == op)
        for metric, key, unit in (("busbw", "busbw_GBps", "busbw (GB/s)"), ("latency", "time_us", "time (µs)")):
            fig, axes = plt.subplots(1, len(ranks_list), figsize=(3.6 * len(ranks_list), 3.0), squeeze=False)
            for ax, ranks in zip(axes[0], ranks_list):
                libs = grouped[(op, ranks)]
                for lib in [lib for lib in order if lib in libs]:
                    points = sorted(libs[lib].items())
                    ax.plot([b for b, _ in points], [c[key] for _, c in points], marker=MARKERS.get(lib, "."),
                            markersize=2.5, linewidth=1, label=LIBRARIES[lib].label)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_title(f"{op}, {ranks} ranks", fontsize=9)
                ax.set_xlabel("message size (bytes)", fontsize=8)
                ax.set_ylabel(unit, fontsize=8)
                ax.tick_params(labelsize=7)
                ax.grid(True, which="major", linewidth=0.3)
            axes[0][0].legend(fontsize=7)
            fig.tight_layout()
            name = f"compare_{op}_{metric}.png"
            fig.savefig(os.path.join(out_dir, name), dpi=80)
            plt.close(fig)
            names.append(name)
    return names
