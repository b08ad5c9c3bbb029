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
- Hybrid super-sampling (Graham and Liu 2016) is built from human segment scores in
  :mod:`geceval.human.hybrids` (the GMEG ensemble, a metric, is trained on it too).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from geceval.human.agreement import PairwiseLike
from geceval.human.hybrids import PROPORTIONS, SyntheticSystem, hybrid_plan, hybrid_systems

__all__ = [
    "PROPORTIONS",
    "SyntheticSystem",
    "hybrid_plan",
    "hybrid_systems",
]  # moved to geceval.human.hybrids; re-exported

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
