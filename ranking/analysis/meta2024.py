"""The 2024 meta-evaluation views of a meta-evaluation run (Kobayashi et al. 2024): Pearson and
Spearman per subset of systems by their tags (``System.tags``), window analysis, and sentence-level
agreement per subset.

Computed when the page is shown from the rows the run stored (``CorrelationResult.points``:
system, metric score, human score), with :mod:`geceval.metaeval.kobayashi2024`; only real systems of the
campaign's corpus take part (hybrid systems have no tags and no place in a human order).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from annotate.models import System
from geceval.metaeval import kobayashi2024 as m24
from geceval.metaeval.correlation import williams_from_scores

WINDOW = m24.DEFAULT_WINDOW


@dataclass
class SubsetRow:
    label: str
    subset: str
    n: int
    pearson: float | None
    spearman: float | None


def _none(x: float) -> float | None:
    return None if math.isnan(x) else x


def corpus_tags(corpus_id: int) -> dict[str, frozenset[str]]:
    return {
        name: frozenset(tags.split())
        for name, tags in System.objects.filter(corpus_id=corpus_id).values_list("name", "tags")
    }


def _scores(
    points: Sequence[Sequence], real: dict[str, frozenset[str]]
) -> tuple[dict[str, float], dict[str, float]]:
    metric = {str(p[0]): float(p[1]) for p in points if str(p[0]) in real}
    human = {str(p[0]): float(p[2]) for p in points if str(p[0]) in real}
    return metric, human


def subset_rows(correlations: Sequence, tags: dict[str, frozenset[str]]) -> list[SubsetRow]:
    """Every metric/reference-set row of the run × every subset."""
    rows = []
    for c in correlations:
        metric, human = _scores(c.points, tags)
        for subset in m24.SUBSETS:
            corr = m24.subset_correlations(metric, human, tags, subset)
            rows.append(
                SubsetRow(
                    f"{c.metric}/{c.reference_set}", subset, corr.n, _none(corr.pearson), _none(corr.spearman)
                )
            )
    return rows


def window_lines(
    correlations: Sequence, tags: dict[str, frozenset[str]], k: int = WINDOW
) -> list[tuple[str, list[tuple[int, float | None]]]]:
    """Per metric/reference set, (first human rank, Pearson) of every window of k systems over
    all real systems; empty when there are fewer than k."""
    out = []
    for c in correlations:
        metric, human = _scores(c.points, tags)
        if len(human) < k:
            continue
        windows = m24.window_correlations(metric, human, list(human), k)
        out.append((f"{c.metric}/{c.reference_set}", [(w.start, _none(w.pearson)) for w in windows]))
    return out


@dataclass
class WilliamsRow:
    subset: str
    better: str
    worse: str
    t: float
    p: float


def subset_williams(correlations: Sequence, tags: dict[str, frozenset[str]]) -> list[WilliamsRow]:
    """Per subset, the Williams test (one-sided, Pearson) for each pair of metric rows over the
    systems both scored, reported once in the direction of the higher r."""
    rows = []
    scored = [(f"{c.metric}/{c.reference_set}", *_scores(c.points, tags)) for c in correlations]
    for subset in m24.SUBSETS:
        for i, (la, ma, ha) in enumerate(scored):
            for lb, mb, _hb in scored[i + 1 :]:
                members = [s for s in m24.subset_members(subset, ha, tags) if s in mb]
                if len(members) <= 3:
                    continue
                h = np.array([ha[s] for s in members])
                a = np.array([ma[s] for s in members])
                b = np.array([mb[s] for s in members])
                if min(np.ptp(h), np.ptp(a), np.ptp(b)) == 0:
                    continue
                ra, rb = stats.pearsonr(h, a)[0], stats.pearsonr(h, b)[0]
                (better, x), (worse, y) = ((la, a), (lb, b)) if ra >= rb else ((lb, b), (la, a))
                w = williams_from_scores(h, x, y)
                rows.append(WilliamsRow(subset, better, worse, w.t, w.p))
    return rows


@dataclass
class SentenceRow:
    label: str
    subset: str
    n: int
    pairs: int
    tau: float | None
    accuracy: float | None
    metric_ties: int
    human_ties: int
    missing: int


def sentence_rows(results: Sequence, tags: dict[str, frozenset[str]]) -> list[SentenceRow]:
    """Every sentence-level metric/reference-set row of the run × every subset, summed from the
    stored per-pair counts with the systems' current tags (as the system-level subsets)."""
    rows = []
    for r in results:
        systems = sorted({str(s) for row in r.pair_counts for s in row[:2]})
        for subset in m24.SUBSETS:
            members = m24.subset_members(subset, systems, tags)
            a = m24.agreement_from_pair_counts(r.pair_counts, members)
            rows.append(
                SentenceRow(
                    f"{r.metric}/{r.reference_set}",
                    subset,
                    len(members),
                    a.concordant + a.discordant,
                    _none(a.tau),
                    _none(a.accuracy),
                    a.metric_ties,
                    a.human_ties,
                    a.missing,
                )
            )
    return rows
