"""Expected Wins (WMT13, Bojar et al. 2013): a system's score is the mean, over the other systems it
was compared with decisively, of ``wins / (wins + losses)`` against that system; ties are ignored.

Rank ranges and clusters come from bootstrap resamples of the judgments (``expected_wins_runs``),
summarised as TrueSkill's runs are (:mod:`geceval.human.system_ranking`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geceval.human.pairs import PairData, run_rng
from geceval.progress import ProgressFn, no_progress


def expected_wins(data: PairData, sample: np.ndarray | None = None) -> np.ndarray:
    """Expected Wins per system on all judgments, or on the judgments indexed by ``sample`` (a resample).

    Score of s = mean over the systems s' with at least one decisive judgment
    against s (in this sample) of ``wins(s, s') / (wins(s, s') + wins(s', s))``;
    ties are ignored; a system without any decisive judgment scores 0.
    """
    size = data.size
    codes = data.winner_loser if sample is None else data.winner_loser[sample]
    wins = np.bincount(codes[codes >= 0], minlength=size * size).reshape(size, size).astype(np.float64)
    played = wins + wins.T
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(played > 0, wins / played, 0.0)
    opponents = (played > 0).sum(axis=1)
    return np.where(opponents > 0, share.sum(axis=1) / np.maximum(opponents, 1), 0.0)


def expected_wins_runs(
    data: PairData, runs: Sequence[int], seed: int, *, progress: ProgressFn = no_progress
) -> np.ndarray:
    """Expected Wins of each listed bootstrap resample (all judgments drawn with replacement), (runs, systems)."""
    out = np.empty((len(runs), data.size))
    n = data.judgments
    for k, run in enumerate(runs):
        sample = run_rng(seed, int(run)).integers(0, n, n)
        out[k] = expected_wins(data, sample)
        progress(k + 1, len(runs))
    return out
