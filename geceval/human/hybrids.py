"""Hybrid super-sampling (Graham and Liu 2016; GMEG 2019 section 5.2): synthetic systems that mix the
outputs of two real systems sentence by sentence, each scored by the mean of the chosen sentences'
human segment scores. Built from what people judged, so it sits with the human statistics: the
meta-evaluation (:mod:`geceval.metaeval`) and the GMEG ensemble (:mod:`geceval.metrics.ensemble`)
both use it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from geceval.progress import ProgressFn, no_progress

GMEG_HYBRIDS = 674
"""Synthetic systems per domain in GMEG 2019 section 5.2."""
GMEG_HYBRID_LEFT_OUT: tuple[str, ...] = ("ref", "reference", "source", "source+error")
"""Not mixed into hybrids (GMEG 2019 section 5.2: "not including Reference, Source, and Source+error")."""
GMEG_LEFT_OUT: tuple[str, ...] = ("ref", "reference", "source+error")
"""Not among the real systems correlated (Table 8) nor among the rows of the GMEG-Metric ensemble
(Table 9, :mod:`geceval.metrics.ensemble.cross_validation`): only the bounds. GMEG 2019 section 6:
"The upper- and lower-bounds (Reference and Source+error) could artificially inflate the correlation
values and are therefore not included in any of the correlation calculations"; section 5.2 trains
the ensemble "with each system as an instance". So Source is a row, though mixed into no hybrid
(:data:`GMEG_HYBRID_LEFT_OUT`); until h49 (issue 42) Table 9 left it out."""


PROPORTIONS: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(1, 10))


@dataclass
class SyntheticSystem:
    name: str
    system_a: str
    system_b: str
    proportion: float
    """Share of sentences taken from ``system_a``."""
    from_a: list[bool]
    """Per sentence: True when the line comes from ``system_a``."""
    lines: list[str]
    human: float
    """Mean of the chosen sentences' human segment scores (sentences without one skipped)."""
    metric: float | None = None


def hybrid_plan(
    pairs: Sequence[tuple[str, str]],
    count: int,
    rng: np.random.Generator,
    *,
    proportions: Sequence[float] = PROPORTIONS,
) -> list[tuple[str, str, float]]:
    """(system A, system B, share of A) for ``count`` hybrids spread over ``pairs``.

    Graham and Liu (2016) and GMEG 2019 (section 5.2: 674 hybrids from the 15
    pairs of 6 systems, 10%-90% of the sentences from each) leave the spread
    open; ours, in this order of draws from ``rng``:

    1. every pair gets ``count // len(pairs)`` hybrids; the ``count % len(pairs)``
       remaining ones go one each to pairs drawn uniformly without replacement
       (674 over 15 pairs: 44 each, 14 pairs drawn for a 45th);
    2. within a pair of k hybrids, each proportion is used ``k // len(proportions)``
       times and the ``k % len(proportions)`` left over are proportions drawn
       uniformly without replacement (44 = 4 rounds of 10%..90% + 8 drawn);
    3. the plan lists pairs in the given order, proportions ascending.
    """
    if count < 0:
        raise ValueError("the number of hybrids must be >= 0")
    if not pairs:
        raise ValueError("hybrids need at least one pair of systems")
    base, extra = divmod(count, len(pairs))
    lucky = set(rng.choice(len(pairs), size=extra, replace=False).tolist()) if extra else set()
    plan: list[tuple[str, str, float]] = []
    for i, (a, b) in enumerate(pairs):
        k = base + (1 if i in lucky else 0)
        rounds, rest = divmod(k, len(proportions))
        chosen = list(proportions) * rounds
        if rest:
            chosen += [proportions[j] for j in rng.choice(len(proportions), size=rest, replace=False)]
        plan += [(a, b, p) for p in sorted(chosen)]
    return plan


def _mix(
    outputs: Mapping[str, Sequence[str]],
    segment_scores: Mapping[str, Mapping[str, float]],
    a: str,
    b: str,
    p: float,
    n: int,
    rng: np.random.Generator,
    name: str,
) -> SyntheticSystem:
    k = round(p * n)
    chosen = np.zeros(n, dtype=bool)
    chosen[rng.choice(n, size=k, replace=False)] = True
    lines = [outputs[a][i] if chosen[i] else outputs[b][i] for i in range(n)]
    scores = []
    for i in range(n):
        value = segment_scores[a if chosen[i] else b].get(str(i))
        if value is not None and not math.isnan(value):
            scores.append(value)
    human = math.fsum(scores) / len(scores) if scores else math.nan
    return SyntheticSystem(name, a, b, p, chosen.tolist(), lines, human)


def hybrid_systems(
    outputs: Mapping[str, Sequence[str]],
    segment_scores: Mapping[str, Mapping[str, float]],
    *,
    pairs: Sequence[tuple[str, str]] | None = None,
    proportions: Sequence[float] = PROPORTIONS,
    samples: int = 1,
    seed: int = 0,
    count: int | None = None,
    metric: Callable[[list[str]], float] | None = None,
    progress: ProgressFn = no_progress,
) -> list[SyntheticSystem]:
    """Synthetic systems by hybrid super-sampling (Graham and Liu 2016).

    For each pair (every unordered pair of ``outputs`` by name when ``pairs``
    is None), each proportion p and each sample: exactly ``round(p * n)``
    sentences, chosen uniformly without replacement, come from system A and
    the rest from B. With ``count`` (GMEG's 674), ``samples`` is ignored and
    :func:`hybrid_plan` spreads ``count`` hybrids over the pairs and
    proportions instead. ``segment_scores`` maps system -> item -> score with
    items = 0-based sentence index as a string (as
    :func:`geceval.formats.prws_csv.read_gmeg_segment_csv`). ``metric(lines)`` scores the
    mixed output (e.g. a corpus-level scorer bound to the source and
    references). One ``numpy.random.default_rng(seed)`` stream drives all
    draws (the plan's first, then each hybrid's sentences in plan order), so
    the same seed gives the same systems.
    """
    names = sorted(outputs)
    if pairs is None:
        pairs = list(combinations(names, 2))
    lengths = {len(outputs[n]) for n in names}
    if len(lengths) != 1:
        raise ValueError("system outputs differ in length")
    n = lengths.pop()
    rng = np.random.default_rng(seed)
    if count is not None:
        plan = hybrid_plan(pairs, count, rng, proportions=proportions)
        seen: dict[tuple[str, str, float], int] = {}
        jobs = []
        for a, b, p in plan:
            s = seen[(a, b, p)] = seen.get((a, b, p), -1) + 1
            jobs.append((a, b, p, f"{a}+{b}@{round(p * 100)}#{s}"))
    else:
        jobs = [
            (a, b, p, f"{a}+{b}@{round(p * 100)}" + (f"#{s}" if samples > 1 else ""))
            for a, b in pairs
            for p in proportions
            for s in range(samples)
        ]
    out = []
    for a, b, p, name in jobs:
        system = _mix(outputs, segment_scores, a, b, p, n, rng, name)
        if metric is not None:
            system.metric = float(metric(system.lines))
        out.append(system)
        progress(len(out), len(jobs))
    return out
