"""Draws torch_bench.py's CSV as an SVG: bus bandwidth against size, rcoll
(solid) and gloo (dashed) for each call. No plotting library needed.

    python3 bench/torch/plot_svg.py results.csv out.svg "title"
"""

import csv
import math
import sys

W, H, LEFT, BOTTOM, TOP, RIGHT = 640, 400, 60, 50, 30, 150
COLORS = {"allreduce": "#1f77b4", "allgather": "#2ca02c", "reduce_scatter": "#d62728"}


def main(source, target, title):
    rows = [r for r in csv.DictReader(open(source)) if r["call"] in COLORS]
    sizes = sorted({int(r["bytes"]) for r in rows})
    top = max(float(r[k]) for r in rows for k in ("rcoll_busbw_gbs", "gloo_busbw_gbs") if r[k] != "nan") * 1.1

    def x(size):
        span = math.log2(sizes[-1]) - math.log2(sizes[0]) or 1
        return LEFT + (math.log2(size) - math.log2(sizes[0])) / span * (W - LEFT - RIGHT)

    def y(gbs):
        return H - BOTTOM - gbs / top * (H - BOTTOM - TOP)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" '
           f'font-size="11"><rect width="100%" height="100%" fill="white"/>',
           f'<text x="{LEFT}" y="18" font-size="13">{title}</text>',
           f'<line x1="{LEFT}" y1="{H - BOTTOM}" x2="{W - RIGHT}" y2="{H - BOTTOM}" stroke="black"/>',
           f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{H - BOTTOM}" stroke="black"/>',
           f'<text x="{(W - RIGHT + LEFT) / 2 - 40}" y="{H - 12}">message size</text>',
           f'<text x="12" y="{TOP - 10}">busbw GB/s</text>']
    for size in sizes:
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        out.append(f'<text x="{x(size) - 15:.0f}" y="{H - BOTTOM + 16}">{label}</text>')
    for i in range(5):
        gbs = top * i / 4
        out.append(f'<text x="{LEFT - 40}" y="{y(gbs) + 4:.0f}">{gbs:.2f}</text>')
    legend = TOP
    for call, color in COLORS.items():
        for backend, dash in (("rcoll", ""), ("gloo", ' stroke-dasharray="5,4"')):
            points = [(x(int(r["bytes"])), y(float(r[f"{backend}_busbw_gbs"]))) for r in rows
                      if r["call"] == call and r[f"{backend}_busbw_gbs"] != "nan"]
            if not points:
                continue
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
            out.append(f'<line x1="{W - RIGHT + 10}" y1="{legend}" x2="{W - RIGHT + 35}" y2="{legend}" '
                       f'stroke="{color}" stroke-width="2"{dash}/>')
            out.append(f'<text x="{W - RIGHT + 40}" y="{legend + 4}">{call} {backend}</text>')
            legend += 16
    out.append("</svg>")
    open(target, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
