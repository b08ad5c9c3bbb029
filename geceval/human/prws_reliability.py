"""Split-half reliability of PRWS ratings (GMEG Table 7), re-exported by ``geceval.human.prws``.

Per sample, each (item, system) cell's ratings are shuffled and split into two groups; the figures
are the correlations between the halves' cell means (sentence level) and system means (system
level), averaged over the samples. Sample i draws from its own stream, so a run can share its
samples out between processes (``ranking.analysis.parts``) and get the same figures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from geceval.progress import ProgressFn, no_progress

if TYPE_CHECKING:
    from geceval.human.prws import RatingLike


@dataclass
class Reliability:
    system_pearson: float
    system_spearman: float
    sentence_pearson: float
    sentence_spearman: float
    samples: int
    cells: int
    """(item, system) cells used (those with at least 2 * group_size ratings)."""
    group_size: int | None


def _ratings_by_cell(ratings: Iterable[RatingLike]) -> dict[tuple[str, str], list[float]]:
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in ratings:
        cells[(r.system, r.item)].append(float(r.score))
    return cells


@dataclass
class ReliabilityCells:
    """The (system, item) cells a split-half sample shuffles, prepared once for any set of samples."""

    keys: list[tuple[str, str]]
    """(system, item) in sorted order; only cells with at least ``2 * group_size`` ratings."""
    sys_index: np.ndarray
    blocks: list[tuple[np.ndarray, np.ndarray, int]]
    """Cells grouped by rating count: (cell indices, their ratings as rows, count)."""
    group_size: int | None


def reliability_cells(
    cells: Mapping[tuple[str, str], Sequence[float]], *, group_size: int | None = None
) -> ReliabilityCells:
    """Each (system, item) cell's ratings, in the order given, ready for :func:`reliability_samples`."""
    keys = sorted(k for k, v in cells.items() if len(v) >= 2 * (group_size or 1))
    if not keys:
        raise ValueError("no (item, system) with enough ratings for a split half")
    systems = sorted({s for s, _ in keys})
    code = {s: i for i, s in enumerate(systems)}
    sys_index = np.array([code[s] for s, _ in keys])
    # Group cells by rating count so each sample is a few vectorised shuffles.
    by_count: dict[int, list[int]] = defaultdict(list)
    for idx, key in enumerate(keys):
        by_count[len(cells[key])].append(idx)
    blocks = [
        (np.array(idxs), np.array([cells[keys[i]] for i in idxs], dtype=float), count)
        for count, idxs in sorted(by_count.items())
    ]
    return ReliabilityCells(keys, sys_index, blocks, group_size)


def sample_rng(seed: int, sample: int) -> np.random.Generator:
    """The random stream of one split-half sample: independent of the others and of how samples are
    shared out between processes (as ``geceval.human.pairs.run_rng`` for TrueSkill's runs)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(sample,)))


def reliability_samples(
    prepared: ReliabilityCells, samples: Iterable[int], *, seed: int = 0, progress: ProgressFn = no_progress
) -> list[list[float]]:
    """Per sample (by its index): system Pearson, system Spearman, sentence Pearson, sentence
    Spearman between the two halves (NaN where undefined)."""
    indices = list(samples)
    sys_index = prepared.sys_index
    sys_count = np.bincount(sys_index)
    out = []
    for done, sample in enumerate(indices, 1):
        rng = sample_rng(seed, sample)
        half_a = np.empty(len(prepared.keys))
        half_b = np.empty(len(prepared.keys))
        for idxs, values, count in prepared.blocks:
            g = prepared.group_size or count // 2
            perm = np.argsort(rng.random(values.shape), axis=1)
            shuffled = np.take_along_axis(values, perm, axis=1)
            half_a[idxs] = shuffled[:, :g].mean(axis=1)
            half_b[idxs] = shuffled[:, g : 2 * g].mean(axis=1)
        sys_a = np.bincount(sys_index, half_a) / sys_count
        sys_b = np.bincount(sys_index, half_b) / sys_count
        out.append(
            [
                _safe_corr(stats.pearsonr, sys_a, sys_b),
                _safe_corr(stats.spearmanr, sys_a, sys_b),
                _safe_corr(stats.pearsonr, half_a, half_b),
                _safe_corr(stats.spearmanr, half_a, half_b),
            ]
        )
        progress(done, len(indices))
    return out


def reliability_from_samples(
    values: Sequence[Sequence[float]], *, cells: int, group_size: int | None = None
) -> Reliability:
    """Each figure's mean over the samples where it is defined, samples taken in the order given
    (the samples' index order), so samples computed apart give the same means to the last digit."""
    acc = np.zeros(4)
    counted = np.zeros(4)
    for row in values:
        for j, v in enumerate(row):
            if not math.isnan(v):
                acc[j] += v
                counted[j] += 1
    mean = [float(a / c) if c else math.nan for a, c in zip(acc, counted)]
    return Reliability(*mean, samples=len(values), cells=cells, group_size=group_size)


def split_half_reliability(
    ratings: Iterable[RatingLike],
    *,
    samples: int = 100,
    seed: int = 0,
    group_size: int | None = None,
    progress: ProgressFn = no_progress,
) -> Reliability:
    """Correlations between two random halves of each output's ratings (GMEG Table 7)."""
    prepared = reliability_cells(_ratings_by_cell(ratings), group_size=group_size)
    values = reliability_samples(prepared, range(samples), seed=seed, progress=progress)
    return reliability_from_samples(values, cells=len(prepared.keys), group_size=group_size)


def _safe_corr(fn, x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(fn(x, y)[0])
