"""Rank systems from pairwise human judgments: many runs of a method, then rank ranges and clusters.

Methods: TrueSkill as keisks/wmt-trueskill ran it (:mod:`geceval.human.trueskill`) and Expected
Wins (:mod:`geceval.human.expected_wins`). ``runs`` repetitions (1000 by default), with random
streams seeded per run from ``(seed, run index)``; per run the systems are ranked by their score
(mu, or the resample's Expected Wins). A system's rank range is the min and max of its sorted ranks
after dropping ``ceil((n - 0.95 n) / 2)`` at each end; systems are ordered by mean mu (Expected
Wins: by the score on all judgments); a cluster boundary follows system i when its range max is
below the range min of every system after it (seed 0 gives the reference's gec-ranking clusters;
some seeds merge IPN | NTHU, a boundary that sits exactly at the 2.5% cut).

Runs are independent given ``(seed, run index)``, so ``run_chunk`` on any split of the run indices
followed by ``merge`` gives the same result as one process (bitwise: each run's arithmetic does not
depend on which other runs share its batch). ``rank(workers=2)`` splits the runs over processes.

Entry points: ``rank`` (one call), ``run_chunk`` + ``merge`` (distributed), ``rank_ranges``/``clusters``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from geceval.formats.judgments import PairwiseJudgment
from geceval.human.expected_wins import expected_wins, expected_wins_runs
from geceval.human.pairs import PairData, prepare
from geceval.human.trueskill import trueskill_runs
from geceval.progress import ProgressFn, no_progress

METHODS = ("trueskill", "ew")


# --- runs, chunks, summaries -------------------------------------------------------------------------------


@dataclass
class ChunkResult:
    """Per-run scores of some of the runs (``run_indices``); ``merge`` turns chunks into a ranking.

    ``point`` is the method's score on all the data where it has one (Expected
    Wins), else None. ``to_dict``/``from_dict`` give a JSON-able form (Celery).
    """

    method: str
    seed: int
    systems: tuple[str, ...]
    judgments: int
    run_indices: np.ndarray
    scores: np.ndarray  # (len(run_indices), systems): mu per run, or the resample's Expected Wins
    point: np.ndarray | None = None

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "seed": self.seed,
            "systems": list(self.systems),
            "judgments": self.judgments,
            "run_indices": [int(r) for r in self.run_indices],
            "scores": self.scores.tolist(),
            "point": None if self.point is None else self.point.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> ChunkResult:
        size = len(data["systems"])
        return cls(
            method=data["method"],
            seed=int(data["seed"]),
            systems=tuple(data["systems"]),
            judgments=int(data["judgments"]),
            run_indices=np.asarray(data["run_indices"], dtype=np.int64),
            scores=np.asarray(data["scores"], dtype=np.float64).reshape(-1, size),
            point=None if data["point"] is None else np.asarray(data["point"], dtype=np.float64),
        )


@dataclass(frozen=True)
class SystemRank:
    name: str
    mu: float
    rank_range: tuple[int, int]
    cluster: int


@dataclass(frozen=True)
class RankingResult:
    """Systems in ranked order (by mean mu, or by Expected Wins), with rank ranges and 1-based clusters."""

    method: str
    judgments: int
    runs: int
    seed: int
    systems: list[SystemRank] = field(default_factory=list)

    def to_json(self) -> dict:
        """The ``rank --json`` object."""
        return {
            "judgments": self.judgments,
            "systems": [
                {"name": s.name, "mu": s.mu, "rank_range": list(s.rank_range), "cluster": s.cluster}
                for s in self.systems
            ],
        }


def run_chunk(
    judgments: Sequence[PairwiseJudgment] | PairData,
    run_indices: Iterable[int],
    seed: int,
    *,
    method: str = "trueskill",
    progress: ProgressFn = no_progress,
) -> ChunkResult:
    """Runs ``run_indices`` of ``method`` with ``seed``; any split of 0..runs-1 merges to the same result."""
    if method not in METHODS:
        raise ValueError(f"unknown ranking method {method!r}; expected one of {', '.join(METHODS)}")
    if seed < 0:
        raise ValueError("seed must be >= 0")
    data = judgments if isinstance(judgments, PairData) else prepare(judgments)
    runs = [int(r) for r in run_indices]
    if method == "trueskill":
        scores, _sigma = trueskill_runs(data, runs, seed, progress=progress)
        point = None
    else:
        scores = expected_wins_runs(data, runs, seed, progress=progress)
        point = expected_wins(data)
    return ChunkResult(
        method, seed, data.systems, data.judgments, np.asarray(runs, dtype=np.int64), scores, point
    )


def rank_ranges(scores: np.ndarray, coverage: float = 0.95) -> list[tuple[int, int]]:
    """Per system, the min and max of its per-run ranks after dropping ``ceil((n - 0.95 n)/2)`` at each end.

    Ranks: 1 = highest score in that run; equal scores rank in system order.
    The float expression is the reference's (n = 1000 drops 25, n = 100 drops 3);
    at least one rank is always kept.
    """
    n_runs, size = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, size + 1)[None, :].repeat(n_runs, axis=0), axis=1)
    ranks.sort(axis=0)
    drop = math.ceil((n_runs - coverage * n_runs) / 2)
    drop = min(drop, (n_runs - 1) // 2)
    kept = ranks[drop : n_runs - drop]
    return [(int(kept[:, s].min()), int(kept[:, s].max())) for s in range(size)]


def clusters(ranges_in_order: Sequence[tuple[int, int]]) -> list[int]:
    """1-based cluster per system (given in ranked order): a boundary follows system i when its range
    max is below the range min of every system after it."""
    out: list[int] = []
    cluster = 1
    n = len(ranges_in_order)
    for i, (_lo, hi) in enumerate(ranges_in_order):
        out.append(cluster)
        if i + 1 < n and hi < min(lo for lo, _ in ranges_in_order[i + 1 :]):
            cluster += 1
    return out


def merge(chunks: Sequence[ChunkResult]) -> RankingResult:
    """Combine chunks of one ranking job (same method, seed, systems, judgments; disjoint runs)."""
    if not chunks:
        raise ValueError("no chunks to merge")
    first = chunks[0]
    for chunk in chunks[1:]:
        same = (chunk.method, chunk.seed, chunk.systems, chunk.judgments)
        if same != (first.method, first.seed, first.systems, first.judgments):
            raise ValueError("chunks of different ranking jobs cannot be merged")
    run_indices = np.concatenate([c.run_indices for c in chunks])
    scores = np.concatenate([c.scores for c in chunks], axis=0)
    order = np.argsort(run_indices, kind="stable")
    run_indices, scores = run_indices[order], scores[order]
    if len(np.unique(run_indices)) != len(run_indices):
        raise ValueError("chunks overlap: a run index occurs twice")
    if len(run_indices) == 0:
        raise ValueError("no runs to merge")
    mean = first.point if first.point is not None else scores.mean(axis=0)
    ranges = rank_ranges(scores)
    # ranked order: by mean mu (or the point score), ties in system-name order
    order = sorted(range(len(first.systems)), key=lambda s: (-mean[s], first.systems[s]))
    cluster_ids = clusters([ranges[s] for s in order])
    systems = [
        SystemRank(first.systems[s], float(mean[s]), ranges[s], cluster_ids[k]) for k, s in enumerate(order)
    ]
    return RankingResult(first.method, first.judgments, len(run_indices), first.seed, systems)


def rank(
    judgments: Sequence[PairwiseJudgment] | PairData,
    *,
    method: str = "trueskill",
    runs: int = 1000,
    seed: int = 0,
    workers: int = 1,
    progress: ProgressFn = no_progress,
) -> RankingResult:
    """Rank systems: ``runs`` runs of ``method`` (``trueskill`` or ``ew``), optionally over ``workers`` processes.

    ``progress`` counts iterations (or resamples) in one process, runs with workers. ``judgments``
    may come encoded already (``prepare``/``prepare_rankings``).
    """
    if runs < 1:
        raise ValueError("runs must be >= 1")
    data = judgments if isinstance(judgments, PairData) else prepare(judgments)
    if workers <= 1 or runs < 2:
        return merge([run_chunk(data, range(runs), seed, method=method, progress=progress)])
    from concurrent.futures import ProcessPoolExecutor

    parts = [list(range(runs))[w::workers] for w in range(min(workers, runs))]
    progress(0, runs)
    with ProcessPoolExecutor(max_workers=len(parts)) as pool:
        futures = [pool.submit(run_chunk, data, part, seed, method=method) for part in parts]
        chunks, done = [], 0
        for future in futures:
            chunks.append(future.result())
            done += len(chunks[-1].run_indices)
            progress(done, runs)
    return merge(chunks)
