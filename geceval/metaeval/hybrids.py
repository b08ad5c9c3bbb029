"""System-level meta-evaluation over real plus hybrid systems (GMEG 2019 Table 8 and Figure 3).

GMEG 2019 (section 5.2 and 6) correlates each metric with the human scores
over the real systems of a domain plus 674 synthetic ones made by hybrid
super-sampling (Graham and Liu 2016), and compares metrics with the Williams
test over the Pearson correlations. The paper leaves out two different sets:

- hybrids are made of the 6 GEC systems only: "We sample sentences from pairs
  of systems (not including Reference, Source, and Source+error)" (section 5.2),
  :data:`GMEG_HYBRID_LEFT_OUT`;
- the correlations leave out only the bounds: "The upper and lower-bounds
  (Reference and Source+error) could artificially inflate the correlation
  values and are therefore not included in any of the correlation
  calculations" (section 6), :data:`GMEG_CORRELATION_LEFT_OUT`; so Source is
  one of the correlated systems (until issue 42 it was left out here too).

What the paper fixes and what we chose where it does not:

- systems: every system file of the domain with a column in the segment
  scores, minus ``left_out`` (case-insensitive); pairs: every unordered pair of
  those minus ``hybrid_left_out``, by name;
- hybrids: :func:`geceval.metaeval.correlation.hybrid_plan` (how ``count`` is spread
  over pairs and proportions, including the remainder) and
  :func:`geceval.metaeval.correlation.hybrid_systems` (exactly ``round(p n)`` sentences
  from A, uniformly without replacement; human score = mean of the chosen
  sentences' segment scores, empty cells skipped); one seeded stream;
- real systems' human score: the mean of their non-empty segment scores;
- metric scores: corpus-level, from per-sentence statistics cached by
  (sentence, line) (:meth:`geceval.metrics.ensemble.features.ScorerFeatures.metric_scores`),
  so a hybrid costs a sum, not a re-score;
- correlations: Pearson r and Spearman rho over real + hybrid systems;
- Williams: one-sided p that the row metric correlates more strongly
  (Pearson) with the human scores than the column metric, n = all systems,
  as the significancewilliams script GMEG cites; the diagonal is None.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy import stats

from geceval.formats.joins import MIN_SHARE, require_share, system_join
from geceval.human.hybrids import GMEG_HYBRID_LEFT_OUT, GMEG_HYBRIDS, GMEG_LEFT_OUT, hybrid_systems
from geceval.human.prws import system_means
from geceval.metaeval.correlation import williams_test
from geceval.metrics.ensemble.features import METRIC_COMPONENTS, ScorerFeatures
from geceval.metrics.ensemble.model import gmeg_corpus
from geceval.progress import ProgressFn, no_progress

GMEG_CORRELATION_LEFT_OUT: tuple[str, ...] = GMEG_LEFT_OUT
"""Not correlated (GMEG 2019 section 6: only "the upper and lower-bounds (Reference and
Source+error)" are left out of the correlations; Source stays)."""
TABLE8_METRICS: tuple[str, ...] = tuple(METRIC_COMPONENTS)

ScorerFactory = Callable[..., ScorerFeatures]
ExtraScorer = Callable[[list[str], list[list[str]]], Callable[[list[str]], float]]
"""``factory(source, references)`` -> a scorer of one system's lines."""


@dataclass
class MetricCorrelation:
    metric: str
    pearson: float
    spearman: float


@dataclass
class HybridMetaEval:
    seed: int
    n_real: int
    n_hybrids: int
    real_systems: list[str]
    """The real systems correlated (Source included, as GMEG section 6)."""
    left_out: list[str]
    correlations: list[MetricCorrelation]
    williams: dict[str, dict[str, float | None]]
    """row metric -> column metric -> one-sided p (row better than column); diagonal None."""
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    """system (real and hybrid) -> metric -> score, plus ``"human"``."""
    hybrid_bases: list[str] = field(default_factory=list)
    """The real systems the hybrids are mixed from (section 5.2: not Source)."""


def _corr(fn: Callable, x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(fn(x, y)[0])


def williams_matrix(
    human: Sequence[float], metrics: dict[str, Sequence[float]]
) -> dict[str, dict[str, float | None]]:
    """One-sided Williams p of every ordered pair of metrics (row better than column)."""
    h = np.asarray(human, dtype=float)
    values = {m: np.asarray(v, dtype=float) for m, v in metrics.items()}
    r_h = {m: _corr(stats.pearsonr, v, h) for m, v in values.items()}
    out: dict[str, dict[str, float | None]] = {m: {} for m in values}
    for a in values:
        for b in values:
            if a == b:
                out[a][b] = None
                continue
            r_ab = _corr(stats.pearsonr, values[a], values[b])
            if any(math.isnan(r) for r in (r_h[a], r_h[b], r_ab)) or len(h) <= 3:
                out[a][b] = None
                continue
            out[a][b] = williams_test(r_h[a], r_h[b], r_ab, len(h)).p
    return out


def hybrid_meta_eval(
    corpus_dir: str | os.PathLike[str],
    *,
    metrics: Sequence[str] = TABLE8_METRICS,
    count: int = GMEG_HYBRIDS,
    seed: int = 0,
    segment_csv: str | os.PathLike[str] | None = None,
    left_out: Sequence[str] = GMEG_CORRELATION_LEFT_OUT,
    hybrid_left_out: Sequence[str] = GMEG_HYBRID_LEFT_OUT,
    scorer: ScorerFactory = ScorerFeatures,
    progress: ProgressFn = no_progress,
    min_share: float = MIN_SHARE,
    extra: Mapping[str, ExtraScorer] | None = None,
) -> HybridMetaEval:
    """Table 8 row values and the Figure 3 matrix for one GMEG-layout domain directory.

    Systems named in ``left_out`` (case-insensitive) leave the real systems, the hybrids and the
    correlations; those named in ``hybrid_left_out`` are correlated but mixed into no hybrid
    (GMEG: Source). ``extra`` maps further metric names to factories of scorers of a system's
    lines (:data:`ExtraScorer`; e.g. the GMEG-Metric ensemble's prediction): they are correlated
    over the same systems and hybrids. ``scorer`` is called once, before the ``extra`` factories,
    so a factory may reuse the extractor it made (``reproduce gmeg``'s Table 8 does). A ``JoinError`` when fewer than ``min_share`` of the
    systems the segment scores judge (minus ``left_out``) have an output file
    (:mod:`geceval.formats.joins`)."""
    unknown = [m for m in metrics if m not in METRIC_COMPONENTS]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; choose from {', '.join(METRIC_COMPONENTS)}")
    source, references, outputs, segments = gmeg_corpus(corpus_dir, segment_csv=segment_csv)
    dropped = {x.lower() for x in left_out}
    require_share(
        system_join(
            segments, outputs, exclude=dropped, judged_as="the segment scores", scored_as="the files"
        ),
        min_share=min_share,
        where=str(corpus_dir),
    )
    real = {n: lines for n, lines in outputs.items() if n.lower() not in dropped}
    if len(real) < 2:
        raise ValueError("hybrids need at least 2 systems besides those left out")
    components = sorted({METRIC_COMPONENTS[m] for m in metrics})
    features = scorer(source, references, components=components)
    unmixed = {x.lower() for x in hybrid_left_out}
    bases = {n: lines for n, lines in real.items() if n.lower() not in unmixed}
    if len(bases) < 2:
        raise ValueError("hybrids need at least 2 systems besides those left out")
    pairs = list(combinations(sorted(bases), 2))
    hybrids = hybrid_systems(bases, {n: segments[n] for n in bases}, pairs=pairs, count=count, seed=seed)
    human_real = system_means({n: segments[n] for n in real})
    rows: list[tuple[str, float, list[str]]] = [(n, human_real[n], real[n]) for n in sorted(real)]
    rows += [(h.name, h.human, h.lines) for h in hybrids if not math.isnan(h.human)]
    scores: dict[str, dict[str, float]] = {}
    clash = [m for m in extra or {} if m in metrics or m == "human"]
    if clash:
        raise ValueError(f"extra metric {clash[0]!r} clashes with a metric of Table 8")
    scorers = {m: make(list(source), [list(r) for r in references]) for m, make in (extra or {}).items()}
    for k, (name, human, lines) in enumerate(rows):
        scores[name] = {**features.metric_scores(lines, metrics), "human": human}
        for m, fn in scorers.items():
            scores[name][m] = float(fn(list(lines)))
        progress(k + 1, len(rows))
    h = np.array([scores[n]["human"] for n, _, _ in rows])
    every = [*metrics, *scorers]
    columns = {m: np.array([scores[n][m] for n, _, _ in rows]) for m in every}
    correlations = [
        MetricCorrelation(m, _corr(stats.pearsonr, columns[m], h), _corr(stats.spearmanr, columns[m], h))
        for m in every
    ]
    return HybridMetaEval(
        seed=seed,
        n_real=len(real),
        n_hybrids=len(rows) - len(real),
        real_systems=sorted(real),
        left_out=sorted(n for n in outputs if n.lower() in dropped),
        correlations=correlations,
        williams=williams_matrix(h.tolist(), columns),
        scores=scores,
        hybrid_bases=sorted(bases),
    )
