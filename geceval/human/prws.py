"""PRWS statistics (Napoles et al. 2019, GMEG): segment and system means, z-scores,
significance clusters, split-half reliability and trap statistics.

PRWS ("partial ranking with scalars") ratings are 0-100 scores of one system's
output for one item by one annotator. GMEG collected 8 ratings per output.

Readings chosen here (the paper leaves them open; each is a parameter or is
stated where it decides a number):

- Segment mean: mean of all ratings of (item, system); system mean: mean of
  its non-empty segment means (GMEG's ``*-corpus-scores.csv`` are exactly
  this, to 1e-9).
- z-scores as WMT DA does (Graham et al. 2017): each annotator's raw scores
  are standardised by that annotator's own mean and *population* standard
  deviation (``ddof=0`` by default, a parameter); an annotator whose scores
  are all equal (std 0) gets z = 0 for every rating. z segment means and z
  system means are then averaged exactly as the raw ones.
- Significance clusters as WMT DA reports them (Bojar et al. 2017, 2018):
  systems sorted by mean (descending; ties by name); for every ordered pair a
  one-sided Mann-Whitney U test (= Wilcoxon rank-sum, ``scipy.stats.
  mannwhitneyu(..., alternative="greater")``, default ``method="auto"``) of
  the segment scores of the items both systems have, significant when
  p < alpha (0.05). WMT: "systems in a higher cluster significantly
  outperform all systems in lower clusters". We put a cluster boundary after
  position i exactly when *every* system at or above i significantly beats
  *every* system below i, so the statement holds for every pair across
  every boundary.
- Split-half reliability (GMEG Table 7): per sample, each (item, system)
  cell's ratings are shuffled and split into two groups of ``group_size``
  (default: half the cell's ratings, 4 of 8 in GMEG; with an odd count one
  rating is left out; cells with fewer than 2 * group_size ratings are
  skipped). Sentence level: Pearson and Spearman between the two halves'
  cell means over all cells; system level: between the two halves' system
  means. Each figure is the mean over ``samples`` (100) samples; sample i
  draws from its own stream (``SeedSequence(seed, spawn_key=(i,))``), so a
  run may share its samples out between worker processes and get the same
  figures.
- Traps: for each (worker, item) where the worker rated both the trap output
  (``source+error``) and the source output, the trap passes when its score is
  strictly lower (a tie fails); a worker's several ratings of one output are
  averaged first. A worker passes when pass rate >= ``threshold`` (0.70) and
  at least ``min_traps`` traps were seen; with fewer, ``passed`` is None.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

import numpy as np
from scipy import stats

from geceval.formats.judgments import PrwsRating
from geceval.formats.prws_csv import Segments
from geceval.human.prws_reliability import (  # noqa: F401  (re-exported: part of this module's interface)
    Reliability,
    ReliabilityCells,
    reliability_cells,
    reliability_from_samples,
    reliability_samples,
    sample_rng,
    split_half_reliability,
)


class RatingLike(Protocol):
    """What the statistics need from one PRWS rating (``geceval.formats.judgments.PrwsRating``)."""

    item: str
    annotator: str
    system: str
    score: float
    meaning_changed: bool


Rating = PrwsRating
"""One PRWS rating (``geceval.formats.judgments.PrwsRating``, what ``geceval.formats.prws_csv.read_prws_csv`` returns)."""


# --------------------------------------------------------------------------- means


def segment_means(ratings: Iterable[RatingLike], *, scores: Sequence[float] | None = None) -> Segments:
    """Mean rating per (system, item). ``scores`` replaces each rating's score (e.g. z-scores)."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for i, r in enumerate(ratings):
        acc = sums[(r.system, r.item)]
        acc[0] += float(r.score if scores is None else scores[i])
        acc[1] += 1
    out: Segments = {}
    for (system, item), (total, count) in sums.items():
        out.setdefault(system, {})[item] = total / count
    return out


def system_means(segments: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean of each system's non-empty (non-NaN) segment scores; NaN when it has none."""
    out = {}
    for system, cells in segments.items():
        values = [v for v in cells.values() if not math.isnan(v)]
        out[system] = math.fsum(values) / len(values) if values else math.nan
    return out


def z_scores(ratings: Sequence[RatingLike], *, ddof: int = 0) -> list[float]:
    """Each rating standardised by its annotator's mean and std (``ddof`` 0 = population).

    An annotator with std 0 (or, with ddof=1, a single rating) gets z = 0. Mean and std come from
    exact sums (:func:`z_params`), so sums added up over separate parts of the ratings give the
    same figures to the last digit.
    """
    sums: dict[str, list] = {}
    for r in ratings:
        acc = sums.get(r.annotator)
        if acc is None:
            acc = sums[r.annotator] = [0, 0, 0]
        x = _exact(float(r.score))
        acc[0] += 1
        acc[1] += x
        acc[2] += x * x
    params = {a: z_params(n, total, squares, ddof=ddof) for a, (n, total, squares) in sums.items()}
    out = []
    for r in ratings:
        mean, std = params[r.annotator]
        out.append((float(r.score) - mean) / std if std > 0 else 0.0)
    return out


def _exact(x: float) -> int | Fraction:
    return int(x) if x.is_integer() else Fraction(x)


def z_params(n: int, total: int | Fraction, squares: int | Fraction, *, ddof: int = 0) -> tuple[float, float]:
    """An annotator's mean and std from the count, sum and sum of squares of their scores, computed
    exactly and rounded once (as ``statistics.pvariance`` does)."""
    mean = Fraction(total) / n
    if n <= ddof:
        return float(mean), 0.0
    variance = (Fraction(squares) - Fraction(total) ** 2 / n) / (n - ddof)
    return float(mean), math.sqrt(float(variance)) if variance > 0 else 0.0


# --------------------------------------------------------------------------- clusters


@dataclass
class ClusteredSystem:
    name: str
    mean: float
    cluster: int
    """1-based significance cluster."""
    n_items: int
    beats: list[str] = field(default_factory=list)
    """Systems this one beats significantly (one-sided Mann-Whitney, p < alpha)."""


def mann_whitney_p(segments: Mapping[str, Mapping[str, float]], a: str, b: str) -> float:
    """One-sided p that ``a``'s segment scores are greater than ``b``'s, on the items both have.

    NaN when they share fewer than 2 items or the test is undefined (all values tied).
    """
    shared = [
        item
        for item in segments[a]
        if item in segments[b] and not math.isnan(segments[a][item]) and not math.isnan(segments[b][item])
    ]
    if len(shared) < 2:
        return math.nan
    x = np.array([segments[a][i] for i in shared], dtype=float)
    y = np.array([segments[b][i] for i in shared], dtype=float)
    if np.all(x == x[0]) and np.all(y == x[0]):
        return math.nan
    return float(stats.mannwhitneyu(x, y, alternative="greater").pvalue)


def _pairwise_mann_whitney(segments: Mapping[str, Mapping[str, float]], order: Sequence[str]) -> dict:
    """``mann_whitney_p`` for every ordered pair of systems, the segment scores aligned once in a
    matrix (items x systems, NaN where missing) rather than looked up item by item per pair."""
    items = list(dict.fromkeys(i for name in order for i in segments[name]))
    index = {item: k for k, item in enumerate(items)}
    table = np.full((len(order), len(items)), np.nan)
    for row, name in enumerate(order):
        cells = segments[name]
        table[row, [index[i] for i in cells]] = list(cells.values())
    present = ~np.isnan(table)
    out = {}
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if i == j:
                continue
            both = present[i] & present[j]
            if int(both.sum()) < 2:
                out[(a, b)] = math.nan
                continue
            x, y = table[i, both], table[j, both]
            if np.all(x == x[0]) and np.all(y == x[0]):
                out[(a, b)] = math.nan
                continue
            out[(a, b)] = float(stats.mannwhitneyu(x, y, alternative="greater").pvalue)
    return out


def significance_clusters(
    segments: Mapping[str, Mapping[str, float]], *, alpha: float = 0.05
) -> list[ClusteredSystem]:
    """Systems by mean (descending) with WMT-style significance clusters (module docstring)."""
    means = system_means(segments)
    order = sorted(means, key=lambda s: (-means[s] if not math.isnan(means[s]) else math.inf, s))
    sig = {(a, b): p < alpha for (a, b), p in _pairwise_mann_whitney(segments, order).items()}
    rows = []
    cluster = 1
    for i, name in enumerate(order):
        if i > 0:
            above, below = order[:i], order[i:]
            if all(sig[(a, b)] for a in above for b in below):
                cluster += 1
        n_items = sum(1 for v in segments[name].values() if not math.isnan(v))
        beats = [b for b in order if b != name and sig[(name, b)]]
        rows.append(ClusteredSystem(name, means[name], cluster, n_items, beats))
    return rows


# --------------------------------------------------------------------------- traps


@dataclass
class WorkerTraps:
    worker: str
    seen: int
    passed_traps: int
    pass_rate: float
    passed: bool | None
    """None when fewer than ``min_traps`` traps were seen."""


def trap_statistics(
    ratings: Iterable[RatingLike],
    *,
    trap_system: str = "source+error",
    source_system: str = "source",
    threshold: float = 0.70,
    min_traps: int = 3,
) -> list[WorkerTraps]:
    """Per worker: how often the trap output was rated strictly below the source (module docstring)."""
    per: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for r in ratings:
        if r.system in (trap_system, source_system):
            per[(r.annotator, r.item, r.system)].append(float(r.score))
    seen: dict[str, int] = defaultdict(int)
    passed: dict[str, int] = defaultdict(int)
    for (worker, item, system), trap_scores in per.items():
        if system != trap_system:
            continue
        source_scores = per.get((worker, item, source_system))
        if not source_scores:
            continue
        seen[worker] += 1
        if sum(trap_scores) / len(trap_scores) < sum(source_scores) / len(source_scores):
            passed[worker] += 1
    out = []
    for worker in sorted(seen):
        rate = passed[worker] / seen[worker]
        ok = None if seen[worker] < min_traps else rate >= threshold
        out.append(WorkerTraps(worker, seen[worker], passed[worker], rate, ok))
    return out


def meaning_changed_rates(ratings: Iterable[RatingLike]) -> dict[str, float]:
    """Fraction of each system's ratings flagged meaning-changed."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in ratings:
        c = counts[r.system]
        c[0] += bool(r.meaning_changed)
        c[1] += 1
    return {s: flagged / total for s, (flagged, total) in sorted(counts.items())}
