"""Meta-evaluation: how well a metric's scores agree with human judgments.

- System level: Pearson, Spearman and Kendall (tau-b) correlations (scipy)
  between metric system scores and human system scores (PRWS means or
  TrueSkill mu), over the systems both have, excluding by default the
  systems that are not systems: references and the trap (``DEFAULT_EXCLUDE``;
  names compared case-insensitively; a parameter).
- Sentence level: the WMT DARR "Kendall's tau-like" formulation (Ma et al.
  2018, 2019): for each human pairwise judgment that is not a tie, the metric
  is Concordant if it scores the human-preferred output higher, Discordant if
  lower, and — as WMT 2018/2019 — Discordant also when it gives both the same
  score (``metric_ties="discordant"``; ``"exclude"`` drops those pairs
  instead). tau = (C - D) / (C + D); accuracy = C / (C + D). Human ties are
  never counted. Judgments whose item/system has no metric score are counted
  in ``missing`` and skipped.
- Williams test (Williams 1959; the form in Steiger 1980 eq. 7, as Graham and
  Baldwin 2014 use it and GMEG Fig. 3 shows) of whether metric 1 correlates
  with the human scores more strongly than metric 2 given their mutual
  correlation; one-sided by default.
- Hybrid super-sampling (Graham and Liu 2016): synthetic systems mixing the
  outputs of two real systems sentence by sentence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy import stats

from geceval.human.agreement import PairwiseLike
from geceval.progress import ProgressFn, no_progress

DEFAULT_EXCLUDE: tuple[str, ...] = ("ref", "reference", "references", "refmix1", "source+error")
"""System names left out of correlations by default (case-insensitive): GMEG's ``ref`` and
``source+error``, gec-ranking's ``refmix1``."""


def _excluded(name: str, exclude: Iterable[str]) -> bool:
    return name.lower() in {e.lower() for e in exclude}


# --------------------------------------------------------------------------- system level


@dataclass
class Correlations:
    n: int
    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float
    kendall: float
    kendall_p: float
    systems: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    """Systems present in both inputs but left out by ``exclude``."""
    unmatched: list[str] = field(default_factory=list)
    """Systems present in only one input."""


def system_correlations(
    metric: Mapping[str, float], human: Mapping[str, float], *, exclude: Iterable[str] = DEFAULT_EXCLUDE
) -> Correlations:
    """Correlations over the systems in both mappings minus ``exclude`` (NaN with fewer than 3)."""
    exclude = list(exclude)
    both = sorted(set(metric) & set(human))
    systems = [s for s in both if not _excluded(s, exclude)]
    excluded = [s for s in both if _excluded(s, exclude)]
    unmatched = sorted(set(metric) ^ set(human))
    x = np.array([metric[s] for s in systems], dtype=float)
    y = np.array([human[s] for s in systems], dtype=float)
    values = [math.nan] * 6
    if len(systems) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
        p = stats.pearsonr(x, y)
        s = stats.spearmanr(x, y)
        k = stats.kendalltau(x, y)
        values = [float(p[0]), float(p[1]), float(s[0]), float(s[1]), float(k[0]), float(k[1])]
    return Correlations(len(systems), *values, systems=systems, excluded=excluded, unmatched=unmatched)


# --------------------------------------------------------------------------- sentence level


@dataclass
class SentenceAgreement:
    concordant: int
    discordant: int
    metric_ties: int
    """Metric ties among the non-tied human judgments (counted per ``metric_ties``)."""
    human_ties: int
    missing: int
    tau: float
    accuracy: float


def sentence_agreement(
    judgments: Iterable[PairwiseLike],
    metric_scores: Mapping[str, Mapping[str, float]],
    *,
    metric_ties: str = "discordant",
    exclude: Iterable[str] = DEFAULT_EXCLUDE,
) -> SentenceAgreement:
    """WMT tau-like agreement of sentence-level metric scores (system -> item -> score, higher
    is better) with human pairwise judgments (lower rank is better); module docstring."""
    if metric_ties not in ("discordant", "exclude"):
        raise ValueError("metric_ties must be 'discordant' or 'exclude'")
    exclude = list(exclude)
    c = d = ties = human_ties = missing = 0
    for j in judgments:
        if j.sys1 == j.sys2 or _excluded(j.sys1, exclude) or _excluded(j.sys2, exclude):
            continue
        if j.rank1 == j.rank2:
            human_ties += 1
            continue
        s1 = metric_scores.get(j.sys1, {}).get(str(j.item))
        s2 = metric_scores.get(j.sys2, {}).get(str(j.item))
        if s1 is None or s2 is None:
            missing += 1
            continue
        if s1 == s2:
            ties += 1
            if metric_ties == "discordant":
                d += 1
            continue
        if (s1 > s2) == (j.rank1 < j.rank2):
            c += 1
        else:
            d += 1
    total = c + d
    tau = (c - d) / total if total else math.nan
    acc = c / total if total else math.nan
    return SentenceAgreement(c, d, ties, human_ties, missing, tau, acc)


# --------------------------------------------------------------------------- Williams


@dataclass
class WilliamsResult:
    t: float
    df: int
    p: float
    two_sided: bool


def williams_test(r12: float, r13: float, r23: float, n: int, *, two_sided: bool = False) -> WilliamsResult:
    """Williams test of r12 vs r13, two dependent correlations sharing variable 1 (the human).

    ``t = (r12 - r13) * sqrt((n - 1)(1 + r23)) / sqrt(2 K (n - 1)/(n - 3) + (r12 + r13)^2 / 4 * (1 - r23)^3)``
    with ``K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23``, t on n - 3 degrees
    of freedom. One-sided p is for H1: r12 > r13 (metric 1 better).
    """
    if n <= 3:
        raise ValueError("Williams test needs n > 3")
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denominator = math.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3)
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / denominator
    df = n - 3
    p = float(2 * stats.t.sf(abs(t), df)) if two_sided else float(stats.t.sf(t, df))
    return WilliamsResult(t, df, p, two_sided)


def williams_from_scores(
    human: Sequence[float], metric1: Sequence[float], metric2: Sequence[float], *, two_sided: bool = False
) -> WilliamsResult:
    """Williams test with Pearson correlations computed from aligned score lists."""
    h, a, b = (np.asarray(v, dtype=float) for v in (human, metric1, metric2))
    r12 = float(stats.pearsonr(h, a)[0])
    r13 = float(stats.pearsonr(h, b)[0])
    r23 = float(stats.pearsonr(a, b)[0])
    return williams_test(r12, r13, r23, len(h), two_sided=two_sided)


# --------------------------------------------------------------------------- hybrid super-sampling


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
