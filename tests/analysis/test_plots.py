"""Plots are drawn with matplotlib's Figure API: no pyplot state in the web process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

DRAW_EVERY_PLOT = """
import sys
from types import SimpleNamespace as R
from ranking.analysis import plots
rows = [R(name="A", score=0.5, details={"k": 1, "edit_types": {"R:VERB": 3}}),
        R(name="B", score=0.4, details={"k": 2, "edit_types": {"M:DET": 1}})]
corr = [R(metric="gleu", reference_set="r1", pearson=0.9, williams={})]
svgs = [
    plots.rank_range_svg([R(name="A", cluster=1, rank_lo=1, rank_hi=2, mu=1.5)]),
    plots.heatmap_svg(corr),
    plots.williams_svg(corr),
    plots.scatter_svg([("A", 0.1, 0.2)], xlabel="x", ylabel="y"),
    plots.curve_svg(rows),
    plots.edit_types_svg(rows),
    plots.edit_distance_svg({"bins": [{"label": "0", "sentences": 1, "scores": {"A": 0.5}}]}),
]
assert all(s.startswith("<?xml") and "<svg" in s for s in svgs)
print(len(svgs), sorted(m for m in sys.modules if m.startswith("matplotlib.pyplot")))
"""


def test_every_plot_draws_an_svg_without_loading_pyplot():
    done = subprocess.run(
        [sys.executable, "-c", DRAW_EVERY_PLOT], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "7 []"
