"""Server-side plots (matplotlib) as SVG text, served as images so no script can ride along.

Each function takes plain rows and returns an SVG document (str). Numbers are
always printed beside the plots on the pages; the plots are a reading aid.
Figures are built with matplotlib's object-oriented API (``Figure`` and its SVG
canvas), never pyplot: pyplot keeps global state (current figure, open-figure
list) that threads of a web process would share, and needs a GUI backend chosen.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

SHADES = ("#e8eef7", "#ffffff")


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height))
    FigureCanvasSVG(fig)
    return fig, fig.subplots()


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    return buf.getvalue()


def rank_range_svg(rows: Sequence) -> str:
    """Systems (best on top) against their 95% rank range; alternate clusters shaded; mu beside each bar."""
    n = max(len(rows), 1)
    fig, ax = _figure(6, 0.4 * n + 1)
    for i, r in enumerate(rows):
        y = n - 1 - i
        ax.axhspan(y - 0.5, y + 0.5, color=SHADES[(r.cluster - 1) % 2], zorder=0)
        ax.plot(
            [r.rank_lo, r.rank_hi], [y, y], color="#1f4e8c", linewidth=6, solid_capstyle="round", zorder=2
        )
        ax.text(n + 0.8, y, f"{r.mu:.3f}", va="center", fontsize=9)
    ax.set_yticks(range(n))
    ax.set_yticklabels([r.name for r in reversed(rows)])
    ax.set_xlim(0.5, n + 0.5)
    ax.set_xticks(range(1, n + 1))
    ax.set_xlabel("rank (95% range over bootstrap runs)")
    ax.set_ylim(-0.5, n - 0.5)
    ax.grid(axis="x", color="#cccccc", linewidth=0.5)
    return _svg(fig)


def _matrix_svg(
    values: list[list[float | None]], rows: list[str], cols: list[str], title: str, cmap: str, vmin, vmax
) -> str:
    arr = np.array([[math.nan if v is None else v for v in row] for row in values], dtype=float)
    fig, ax = _figure(1.0 * len(cols) + 2.5, 0.45 * len(rows) + 1.5)
    im = ax.imshow(arr, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=45, ha="right")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not math.isnan(arr[i, j]):
                ax.text(j, i, f"{arr[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_title(title)
    fig.colorbar(im, ax=ax)
    return _svg(fig)


def heatmap_svg(correlations: Sequence, field: str = "pearson") -> str:
    """Metric (rows) × reference set (columns) correlation with the human scores."""
    metrics = sorted({c.metric for c in correlations})
    sets = sorted({c.reference_set for c in correlations})
    value = {(c.metric, c.reference_set): getattr(c, field) for c in correlations}
    grid = [[value.get((m, s)) for s in sets] for m in metrics]
    return _matrix_svg(grid, metrics, sets, f"{field} with human", "RdBu", -1, 1)


def williams_svg(correlations: Sequence) -> str:
    """One-sided Williams p-values: row better than column (small = significant)."""
    labels = [f"{c.metric}/{c.reference_set}" for c in correlations]
    grid = [[c.williams.get(other) for other in labels] for c in correlations]
    return _matrix_svg(grid, labels, labels, "Williams p (row > column)", "Greens_r", 0, 0.1)


def scatter_svg(points: Sequence[Sequence], *, xlabel: str, ylabel: str) -> str:
    """Metric (x) vs human (y) per system, labelled."""
    fig, ax = _figure(5, 4)
    xs = [p[1] for p in points]
    ys = [p[2] for p in points]
    ax.scatter(xs, ys, color="#1f4e8c")
    for name, x, y in points:
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 3), fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(color="#dddddd", linewidth=0.5)
    return _svg(fig)


def curve_svg(rows: Sequence) -> str:
    """GLEU vs number of references, one line per system (Sakaguchi et al. 2016 Figure 5)."""
    by_system: dict[str, list[tuple[int, float]]] = {}
    for r in rows:
        by_system.setdefault(r.name, []).append((int(r.details.get("k", 0)), r.score))
    fig, ax = _figure(5.5, 4)
    for name, pts in sorted(by_system.items()):
        pts.sort()
        ax.plot([k for k, _ in pts], [s for _, s in pts], marker="o", label=name)
    ax.set_xlabel("references")
    ax.set_ylabel("GLEU")
    ax.legend(fontsize=7, loc="best")
    ax.grid(color="#dddddd", linewidth=0.5)
    return _svg(fig)


def edit_types_svg(rows: Sequence, *, top: int = 10) -> str:
    """Error-type distribution of each system's edits (ERRANT main types), stacked, the ``top`` most common."""
    totals: dict[str, int] = {}
    for r in rows:
        for t, n in r.details.get("edit_types", {}).items():
            totals[t] = totals.get(t, 0) + n
    types = sorted(totals, key=lambda t: (-totals[t], t))[:top]
    names = [r.name for r in rows]
    fig, ax = _figure(6.5, 0.45 * len(rows) + 1.5)
    left = [0] * len(rows)
    cmap = colormaps["tab10"]
    for k, t in enumerate(types):
        values = [r.details.get("edit_types", {}).get(t, 0) for r in rows]
        ax.barh(names, values, left=left, color=cmap(k % 10), label=t)
        left = [a + b for a, b in zip(left, values)]
    other = [sum(r.details.get("edit_types", {}).values()) - done for r, done in zip(rows, left)]
    if any(other):
        ax.barh(names, other, left=left, color="#bbbbbb", label="other")
    ax.set_xlabel("system edits (ERRANT)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
    return _svg(fig)


def edit_distance_svg(table: dict) -> str:
    """GLEU of each system per bin of source-reference edit distance (one reference set)."""
    bins = [b for b in table["bins"] if b["sentences"]]
    systems = sorted({n for b in bins for n in b["scores"]})
    fig, ax = _figure(5.5, 4)
    xs = list(range(len(bins)))
    for name in systems:
        ax.plot(xs, [b["scores"].get(name, math.nan) for b in bins], marker="o", label=name)
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{b['label']}\n({b['sentences']})" for b in bins], fontsize=8)
    ax.set_xlabel("token edit distance, source to references (sentences)")
    ax.set_ylabel("GLEU")
    ax.legend(fontsize=7, loc="best")
    ax.grid(color="#dddddd", linewidth=0.5)
    return _svg(fig)


def window_svg(lines: Sequence[tuple[str, Sequence[tuple[int, float | None]]]], *, k: int) -> str:
    """Window analysis (Kobayashi et al. 2024): Pearson within each window of k adjacent systems
    in human order, one line per metric; x is the human rank the window starts at."""
    fig, ax = _figure(5.5, 4)
    for label, pts in lines:
        ax.plot([s for s, _ in pts], [math.nan if r is None else r for _, r in pts], marker="o", label=label)
    ax.set_xlabel(f"first human rank of the window ({k} systems)")
    ax.set_ylabel("Pearson r in the window")
    ax.set_ylim(-1.05, 1.05)
    ax.legend(fontsize=7, loc="best")
    ax.grid(color="#dddddd", linewidth=0.5)
    return _svg(fig)
