"""Pairwise judgments encoded as integers for the rankers (TrueSkill, Expected Wins), and the random
stream of one bootstrap run.

Systems are indexed in Python string order; each judgment is kept under both orientations of its
pair, so a ranker finds "the judgments of a against b" as one slice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from geceval.formats.judgments import PairwiseJudgment, RankingJudgment


@dataclass(frozen=True)
class PairData:
    """Pairwise judgments integer-encoded: systems in Python string order, outcomes per ordered pair.

    ``outcomes[offsets[q]:offsets[q] + counts[q]]`` are the judgments of the
    ordered pair ``q = i * S + j`` seen from system i (+1 win, -1 loss, 0 tie);
    each judgment appears under (i, j) and (j, i).
    """

    systems: tuple[str, ...]
    judgments: int
    winner_loser: np.ndarray  # per judgment: i * S + j when i beat j, -1 for a tie (Expected Wins)
    offsets: np.ndarray
    counts: np.ndarray
    outcomes: np.ndarray

    @property
    def size(self) -> int:
        return len(self.systems)

    def to_dict(self) -> dict:
        """A JSON-able form (integers only) that ``from_dict`` turns back into equal arrays."""
        return {
            "systems": list(self.systems),
            "judgments": self.judgments,
            "winner_loser": self.winner_loser.tolist(),
            "offsets": self.offsets.tolist(),
            "counts": self.counts.tolist(),
            "outcomes": self.outcomes.astype(np.int64).tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> PairData:
        return cls(
            systems=tuple(data["systems"]),
            judgments=int(data["judgments"]),
            winner_loser=np.asarray(data["winner_loser"], dtype=np.int64),
            offsets=np.asarray(data["offsets"], dtype=np.int64),
            counts=np.asarray(data["counts"], dtype=np.int64),
            outcomes=np.asarray(data["outcomes"], dtype=np.float64),
        )


def prepare(judgments: Sequence[PairwiseJudgment]) -> PairData:
    """Encode pairwise judgments (self-pairs and skipped ranks are ignored, as in ``expand_pairwise``)."""
    usable = [j for j in judgments if j.sys1 != j.sys2 and j.rank1 >= 1 and j.rank2 >= 1]
    return _encode(
        [j.sys1 for j in usable],
        [j.sys2 for j in usable],
        np.array([j.outcome for j in usable], dtype=np.int64),
    )


def prepare_rankings(rankings: Iterable[RankingJudgment]) -> PairData:
    """``prepare(expand_pairwise(rankings))`` without building the pair objects (~half the time:
    the command line reads 28,146 pairs this way)."""
    sys1: list[str] = []
    sys2: list[str] = []
    rank1: list[int] = []
    rank2: list[int] = []
    for ranking in rankings:
        entries = ranking.entries
        for i, (first, r1) in enumerate(entries):
            if r1 < 1:  # skipped (or invalid): in no pair
                continue
            for second, r2 in entries[i + 1 :]:  # the pairs of itertools.combinations, in its order
                if r2 >= 1 and first != second:
                    sys1.append(first)
                    sys2.append(second)
                    rank1.append(r1)
                    rank2.append(r2)
    # +1 when sys1 ranks better (lower), as PairwiseJudgment.outcome
    outcome = np.sign(np.array(rank2, dtype=np.int64) - np.array(rank1, dtype=np.int64))
    return _encode(sys1, sys2, outcome)


def _encode(sys1: list[str], sys2: list[str], outcome: np.ndarray) -> PairData:
    """PairData of usable pairs given as columns (outcome +1/-1/0 from sys1's view)."""
    if not sys1:
        raise ValueError("no usable pairwise judgments (need two different systems with ranks >= 1)")
    systems = tuple(sorted(set(sys1) | set(sys2)))
    index = {name: i for i, name in enumerate(systems)}
    first = np.array([index[s] for s in sys1], dtype=np.int64)
    second = np.array([index[s] for s in sys2], dtype=np.int64)
    return prepare_indices(systems, first, second, outcome)


def prepare_indices(
    systems: tuple[str, ...], first: np.ndarray, second: np.ndarray, outcome: np.ndarray
) -> PairData:
    """PairData of usable pairs given as int64 indices into ``systems`` (sorted names) and outcomes
    (+1/-1/0 from ``first``'s view): what ``prepare`` builds, for callers that hold arrays already."""
    size = len(systems)
    winner_loser = np.where(
        outcome > 0, first * size + second, np.where(outcome < 0, second * size + first, -1)
    )
    # every judgment under both orientations, stably grouped by ordered pair
    q = np.concatenate([first * size + second, second * size + first])
    seen = np.concatenate([outcome, -outcome])
    order = np.argsort(q, kind="stable")
    counts = np.bincount(q, minlength=size * size)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return PairData(
        systems=systems,
        judgments=len(first),
        winner_loser=winner_loser.astype(np.int64),
        offsets=offsets.astype(np.int64),
        counts=counts.astype(np.int64),
        outcomes=seen[order].astype(np.float64),
    )


def run_rng(seed: int, run: int) -> np.random.Generator:
    """The random stream of one run: independent of every other run and of how runs are batched."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))
