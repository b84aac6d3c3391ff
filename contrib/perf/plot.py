#!/usr/bin/env python3
"""Plot backfill cycle time against queue length as a small SVG (stdlib only).

    contrib/perf/plot.py POINTS.tsv OUT.svg [TITLE]

POINTS.tsv: one line per measurement, "scheduler<TAB>queued jobs<TAB>cycle
seconds" (lines starting with # are ignored).  The y axis is logarithmic:
the schedulers differ by two orders of magnitude.
"""
import math
import sys

COLOURS = ["#c0392b", "#2471a3", "#239b56", "#7d3c98", "#b9770e"]
W, H, L, R, T, B = 820, 400, 70, 270, 40, 50


def read_points(path):
    series = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, x, y = line.split("\t")[:3]
            series.setdefault(name, []).append((float(x), float(y)))
    for pts in series.values():
        pts.sort()
    return series


def decades(lo, hi):
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return a, max(b, a + 1)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    series = read_points(sys.argv[1])
    title = sys.argv[3] if len(sys.argv) > 3 else "Backfill cycle time vs queue length"
    xs = [x for p in series.values() for x, _ in p]
    ys = [y for p in series.values() for _, y in p if y > 0]
    xmax = max(xs) * 1.05
    ya, yb = decades(min(ys), max(ys))

    def px(x):
        return L + (W - L - R) * x / xmax

    def py(y):
        return T + (H - T - B) * (1 - (math.log10(y) - ya) / (yb - ya))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14">%s</text>' % (L, title)]
    for d in range(ya, yb + 1):
        y = py(10 ** d)
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, y, W - R, y))
        label = ("%g s" % (10 ** d)) if d >= 0 else ("%g ms" % (10 ** (d + 3)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (L - 6, y + 4, label))
    step = 10 ** math.floor(math.log10(xmax / 2))
    x = 0.0
    while x <= xmax:
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (px(x), T, px(x), H - B))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (px(x), H - B + 16, x))
        x += step
    out.append('<text x="%d" y="%d" text-anchor="middle">queued jobs</text>' % ((L + W - R) / 2, H - 12))
    out.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">'
               'cycle time (log)</text>' % ((T + H - B) / 2, (T + H - B) / 2))
    for i, (name, pts) in enumerate(sorted(series.items())):
        c = COLOURS[i % len(COLOURS)]
        path = " ".join("%.1f,%.1f" % (px(x), py(y)) for x, y in pts if y > 0)
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (c, path))
        for x, y in pts:
            if y > 0:
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px(x), py(y), c))
        ly = T + 10 + 18 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (W - R + 10, ly, W - R + 30, ly, c))
        out.append('<text x="%d" y="%d">%s</text>' % (W - R + 36, ly + 4, name))
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
