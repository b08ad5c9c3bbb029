"""Inter-annotator agreement of pairwise judgments: Cohen's kappa and weighted kappa.

As Sakaguchi et al. (2016, Table 7): each pairwise judgment of two systems on
one item becomes a label ``<`` (the first system ranked better), ``=`` or
``>``; two annotators are compared on the pairs (same item, same two systems)
both judged; Cohen's kappa and quadratic-weighted kappa treat the labels as
ordered ``< = >``.

Readings chosen here:
- A pair's orientation is canonical: systems sorted by name, the label says how
  the alphabetically first system fared (so ``A<B`` from one annotator and
  ``B>A`` from another agree).
- If one annotator judged the same pair on the same item more than once
  (e.g. two k-way screens of one item), the first judgment counts.
- Groups: within a group, every unordered pair of distinct annotators (sorted
  by name, the first as rater 1); between groups A and B, every (a, b) with
  a in A, b in B, a != b (a as rater 1). The label pairs of all these
  annotator pairs are pooled and one kappa is computed over the pool (so
  annotator pairs with more shared judgments weigh more); ``mean_pair_kappa``
  also gives the unweighted mean of the per-annotator-pair kappas that are
  defined.
- Units (``unit``): ``systems`` expands a shown candidate that stands for several
  systems with identical outputs into one entry per system (every pair of systems
  is a label, the pairs inside a candidate ties); ``shown`` labels the pairs of
  candidates as the annotator saw them, a candidate named by its systems sorted and
  space-joined, and leaves out candidates not ranked (rank below 1). ``shown`` is
  what Grundkiewicz et al. 2015's ``data/scripts/agreement.pl`` pairs (it keeps
  ``system="IITB INPUT IPN"`` as one entry) and what gives Sakaguchi et al. 2016
  Table 7 (``geceval.papers.sakaguchi2016_table7``); ``systems`` counts each tie inside a
  collapsed candidate as an agreement of every annotator who saw it.
- Kappa is NaN when undefined (expected agreement 1, e.g. one label only), as
  sklearn's ``cohen_kappa_score``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol

import numpy as np

LABELS = (-1, 0, 1)
"""-1 = ``<`` (first system better: lower rank), 0 = ``=``, 1 = ``>``."""
LABEL_NAMES = {-1: "<", 0: "=", 1: ">"}


class PairwiseLike(Protocol):
    """What agreement needs from one pairwise judgment (``geceval.formats.judgments.PairwiseJudgment``)."""

    item: str
    annotator: str
    sys1: str
    rank1: float
    sys2: str
    rank2: float


class RankingLike(Protocol):
    """What shown-candidate agreement needs from a k-way ranking (``geceval.formats.judgments.RankingJudgment``)."""

    item: str
    annotator: str

    def groups(self) -> list[tuple[tuple[str, ...], int]]: ...


PairKey = tuple[str, str, str]
"""(item, first system by name, second system by name)."""


def pair_label(j: PairwiseLike) -> tuple[PairKey, int]:
    """Canonical key and label of one judgment (lower rank is better)."""
    diff = (j.rank1 > j.rank2) - (j.rank1 < j.rank2)
    if j.sys1 <= j.sys2:
        return (str(j.item), j.sys1, j.sys2), diff
    return (str(j.item), j.sys2, j.sys1), -diff


def labels_by_annotator(judgments: Iterable[PairwiseLike]) -> dict[str, dict[PairKey, int]]:
    out: dict[str, dict[PairKey, int]] = {}
    for j in judgments:
        if j.sys1 == j.sys2:
            continue
        key, label = pair_label(j)
        out.setdefault(j.annotator, {}).setdefault(key, label)
    return out


def shown_labels_by_annotator(rankings: Iterable[RankingLike]) -> dict[str, dict[PairKey, int]]:
    """Labels of the pairs of shown candidates (``unit="shown"``, module docstring)."""
    out: dict[str, dict[PairKey, int]] = {}
    for ranking in rankings:
        shown = [(" ".join(sorted(systems)), rank) for systems, rank in ranking.groups() if rank >= 1]
        mine = out.setdefault(ranking.annotator, {})
        for (s1, r1), (s2, r2) in combinations(shown, 2):
            if s1 == s2:
                continue
            diff = (r1 > r2) - (r1 < r2)
            key = (str(ranking.item), s1, s2) if s1 < s2 else (str(ranking.item), s2, s1)
            mine.setdefault(key, diff if s1 < s2 else -diff)
    return out


def cohen_kappa(
    a: Sequence[int], b: Sequence[int], *, weights: str | None = None, labels: Sequence[int] = LABELS
) -> float:
    """Cohen's kappa of two label sequences; ``weights`` None, "linear" or "quadratic".

    ``kappa = 1 - sum(w * O) / sum(w * E)`` with O the observed joint
    proportions, E the product of the two raters' marginals, and w = 1 - I
    (unweighted), ``|i - j|`` or ``(i - j)^2`` over label positions.
    """
    if len(a) != len(b):
        raise ValueError("label sequences differ in length")
    if not a:
        return math.nan
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    observed = np.zeros((k, k))
    for x, y in zip(a, b):
        observed[index[x], index[y]] += 1
    return kappa_from_table(observed, weights=weights)


def kappa_from_table(table: np.ndarray, *, weights: str | None = None) -> float:
    """:func:`cohen_kappa` of a contingency table (rows: the first rater's labels, columns: the
    second's, both in ``LABELS`` order), the form in which agreement computed on separate parts of
    the data adds up: the table of the whole is the sum of the parts' tables."""
    observed = np.asarray(table, dtype=float)
    total = observed.sum()
    if total == 0:
        return math.nan
    observed = observed / total
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    k = observed.shape[0]
    i, j = np.indices((k, k))
    if weights is None:
        w = (i != j).astype(float)
    elif weights == "linear":
        w = np.abs(i - j).astype(float)
    elif weights == "quadratic":
        w = ((i - j) ** 2).astype(float)
    else:
        raise ValueError(f"unknown weights {weights!r}")
    denominator = float((w * expected).sum())
    if denominator == 0:
        return math.nan
    return 1.0 - float((w * observed).sum()) / denominator


def shared_labels(labels: Mapping[str, Mapping[PairKey, int]], a: str, b: str) -> tuple[list[int], list[int]]:
    """Labels of the pairs both annotators judged, in a fixed (sorted key) order."""
    la, lb = labels.get(a, {}), labels.get(b, {})
    keys = sorted(set(la) & set(lb))
    return [la[k] for k in keys], [lb[k] for k in keys]


@dataclass
class Agreement:
    name: str
    kappa: float
    weighted_kappa: float
    """Quadratic-weighted."""
    n: int
    """Label pairs pooled (shared judgments summed over annotator pairs)."""
    annotator_pairs: int
    """Annotator pairs with at least one shared judgment."""
    mean_pair_kappa: float


def agreement_between(
    labels: Mapping[str, Mapping[PairKey, int]], pairs: Iterable[tuple[str, str]], *, name: str = ""
) -> Agreement:
    """Pooled kappa over the given annotator pairs (module docstring)."""
    pooled_a: list[int] = []
    pooled_b: list[int] = []
    pair_kappas = []
    used = 0
    for a, b in pairs:
        xa, xb = shared_labels(labels, a, b)
        if not xa:
            continue
        used += 1
        pooled_a += xa
        pooled_b += xb
        k = cohen_kappa(xa, xb)
        if not math.isnan(k):
            pair_kappas.append(k)
    return Agreement(
        name=name,
        kappa=cohen_kappa(pooled_a, pooled_b),
        weighted_kappa=cohen_kappa(pooled_a, pooled_b, weights="quadratic"),
        n=len(pooled_a),
        annotator_pairs=used,
        mean_pair_kappa=float(np.mean(pair_kappas)) if pair_kappas else math.nan,
    )


def within_pairs(group: Sequence[str]) -> list[tuple[str, str]]:
    return list(combinations(sorted(set(group)), 2))


def between_pairs(group_a: Sequence[str], group_b: Sequence[str]) -> list[tuple[str, str]]:
    seen = set()
    out = []
    for a in sorted(set(group_a)):
        for b in sorted(set(group_b)):
            if a != b and frozenset((a, b)) not in seen:
                seen.add(frozenset((a, b)))
                out.append((a, b))
    return out


def group_agreement(
    judgments: Iterable[PairwiseLike], groups: Mapping[str, Sequence[str]] | None = None
) -> list[Agreement]:
    """Kappas within each group and between each two groups (in the order given).

    Without groups: one row ``all`` over every pair of annotators.
    """
    return group_agreement_of_labels(labels_by_annotator(judgments), groups)


def group_agreement_of_labels(
    labels: Mapping[str, Mapping[PairKey, int]], groups: Mapping[str, Sequence[str]] | None = None
) -> list[Agreement]:
    """:func:`group_agreement` from labels already made (by either unit)."""
    if not groups:
        return [agreement_between(labels, within_pairs(list(labels)), name="all")]
    names = list(groups)
    rows = [agreement_between(labels, within_pairs(groups[g]), name=g) for g in names]
    for g, h in combinations(names, 2):
        rows.append(agreement_between(labels, between_pairs(groups[g], groups[h]), name=f"{g} / {h}"))
    return rows


def annotator_pair_table(judgments: Iterable[PairwiseLike]) -> list[Agreement]:
    """One row per pair of annotators with shared judgments."""
    return annotator_pair_table_of_labels(labels_by_annotator(judgments))


def annotator_pair_table_of_labels(labels: Mapping[str, Mapping[PairKey, int]]) -> list[Agreement]:
    """:func:`annotator_pair_table` from labels already made."""
    rows = []
    for a, b in within_pairs(list(labels)):
        row = agreement_between(labels, [(a, b)], name=f"{a} / {b}")
        if row.n:
            rows.append(row)
    return rows
