"""The computations of each analysis kind, on a run's frozen input (plain data in, plain rows out).

No database access here: services.py reads the input and writes the rows.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from geceval.formats.joins import min_share, require_share, system_join
from geceval.formats.judgments import PairwiseJudgment, PrwsRating, RankingJudgment, expand_pairwise
from geceval.human import prws
from geceval.human.agreement import group_agreement
from geceval.human.prws import system_means
from geceval.human.system_ranking import rank
from geceval.metaeval.correlation import hybrid_systems, system_correlations, williams_test
from geceval.metrics.ensemble.model import (
    ScorerFeatures,
    TrainingRow,
    component_versions,
    cross_validate,
    fit,
    matrix,
)
from geceval.progress import ProgressFn, no_progress
from ranking.analysis.metrics import CacheStore, metric_scorer

# --------------------------------------------------------------------------- ranking input


def rankings_to_json(rankings: Sequence[RankingJudgment]) -> list:
    return [[r.item, r.annotator, [[s, k] for s, k in r.entries]] for r in rankings]


def rankings_from_json(data: list) -> list[RankingJudgment]:
    return [RankingJudgment(item, ann, tuple((s, int(k)) for s, k in entries)) for item, ann, entries in data]


def pairs_from_json(data: list) -> list[PairwiseJudgment]:
    return expand_pairwise(rankings_from_json(data))


def pair_counts(pairs: Sequence[PairwiseJudgment]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for p in pairs:
        if p.sys1 != p.sys2 and p.rank1 >= 1 and p.rank2 >= 1:
            counts[p.sys1] += 1
            counts[p.sys2] += 1
    return dict(counts)


def judgments_needed(
    pairs: Sequence[PairwiseJudgment],
    *,
    seed: int,
    runs: int = 100,
    factors: Sequence[float] = (1.0, 1.5, 2.0, 4.0),
    progress: ProgressFn = no_progress,
) -> list[dict]:
    """How clusters would separate with more judgments of the same kind.

    For each factor f, ``round(f * n)`` pairwise judgments are drawn with
    replacement from the current ones (a stand-in for collecting more from the
    same judges; numpy ``default_rng((seed, i))``), ranked by TrueSkill with
    ``runs`` runs, and the clusters recounted. An estimate only: resampling
    assumes future judgments look like the past ones.
    """

    out = []
    n = len(pairs)
    for i, factor in enumerate(factors):
        size = round(factor * n)
        rng = np.random.default_rng((seed, i))
        sample = [pairs[j] for j in rng.integers(0, n, size)] if factor != 1.0 else list(pairs)
        result = rank(sample, runs=runs, seed=seed)
        groups: list[list[str]] = []
        for s in result.systems:
            if len(groups) < s.cluster:
                groups.append([])
            groups[-1].append(s.name)
        out.append(
            {
                "factor": factor,
                "pairs": size,
                "more_pairs": size - n,
                "clusters": len(groups),
                "groups": groups,
            }
        )
        progress(i + 1, len(factors))
    return out


def agreement_summary(pairs: Sequence[PairwiseJudgment]) -> dict:
    """Cohen's kappa and quadratic-weighted kappa pooled over every pair of annotators
    (geceval.human.agreement: same item = same sentence, same two systems)."""

    row = group_agreement(pairs)[0]
    return {
        "kappa": _finite(row.kappa),
        "weighted_kappa": _finite(row.weighted_kappa),
        "shared": row.n,
        "annotator_pairs": row.annotator_pairs,
        "mean_pair_kappa": _finite(row.mean_pair_kappa),
    }


# --------------------------------------------------------------------------- PRWS


def ratings_to_json(ratings: Sequence[PrwsRating]) -> list:
    return [[r.item, r.annotator, r.system, r.score, r.meaning_changed] for r in ratings]


def ratings_from_json(data: list) -> list[PrwsRating]:
    return [PrwsRating(i, a, s, float(sc), bool(mc)) for i, a, s, sc, mc in data]


def prws_summary(ratings: Sequence[PrwsRating], *, seed: int, samples: int = 100) -> tuple[list[dict], dict]:
    """GMEG's system table: mean of segment means (raw and z), clusters; split-half reliability.

    Rows are in cluster order (geceval.human.prws.significance_clusters: Mann-Whitney
    on segment scores, alpha 0.05). Reliability is GMEG Table 7's split half
    (``samples`` random splits, ``seed``); it is None when no output has two
    ratings.
    """

    segments = prws.segment_means(ratings)
    z_segments = prws.segment_means(ratings, scores=prws.z_scores(ratings))
    counts: dict[str, int] = defaultdict(int)
    changed: dict[str, int] = defaultdict(int)
    for r in ratings:
        counts[r.system] += 1
        changed[r.system] += bool(r.meaning_changed)
    try:
        reliability: prws.Reliability | ValueError = prws.split_half_reliability(
            ratings, samples=samples, seed=seed
        )
    except ValueError as exc:
        reliability = exc
    return prws_tables(
        segments,
        z_segments,
        counts,
        changed,
        ratings=len(ratings),
        annotators=len({r.annotator for r in ratings}),
        reliability=reliability,
    )


def prws_tables(
    segments: prws.Segments,
    z_segments: prws.Segments,
    counts: Mapping[str, int],
    changed: Mapping[str, int],
    *,
    ratings: int,
    annotators: int,
    reliability: prws.Reliability | ValueError,
) -> tuple[list[dict], dict]:
    """:func:`prws_summary`'s rows and summary from its statistics, however they were computed
    (in one pass here, or added up from parts by ``ranking.analysis.prws_parts``)."""
    z_means = prws.system_means(z_segments)
    clustered = prws.significance_clusters(segments)
    rows = [
        {
            "name": c.name,
            "position": k + 1,
            "mean": c.mean,
            "z_mean": z_means[c.name],
            "cluster": c.cluster,
            "ratings": counts[c.name],
            "items": c.n_items,
            "meaning_changed": changed[c.name] / counts[c.name] if counts[c.name] else 0.0,
        }
        for k, c in enumerate(clustered)
    ]
    summary: dict = {"ratings": ratings, "annotators": annotators}
    if isinstance(reliability, ValueError):
        summary["reliability"] = None
        summary["reliability_note"] = str(reliability)
    else:
        summary["reliability"] = {
            "system_pearson": _finite(reliability.system_pearson),
            "system_spearman": _finite(reliability.system_spearman),
            "sentence_pearson": _finite(reliability.sentence_pearson),
            "sentence_spearman": _finite(reliability.sentence_spearman),
            "samples": reliability.samples,
            "cells": reliability.cells,
        }
    return rows, summary


def _finite(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


# --------------------------------------------------------------------------- meta-evaluation


def synthetic_systems(
    source: list[str],
    outputs: dict[str, list[str]],
    segment_scores: dict[str, dict[str, float]],
    reference_sets: dict[str, list[list[str]]],
    metrics: Sequence[str],
    *,
    seed: int,
    samples: int = 1,
    store: CacheStore | None = None,
    progress: ProgressFn = no_progress,
) -> tuple[list[dict], dict[str, float]]:
    """Hybrid systems (geceval.metaeval.correlation.hybrid_systems: every pair of real systems, proportions
    0.1..0.9, ``samples`` each, one seeded stream) scored by each metric × reference set.

    Returns (metric rows like :func:`metric_scores`, synthetic name -> human score). The same
    mixtures are used for every metric (drawn once), so metrics are compared on equal systems.
    """

    systems = [
        s
        for s in hybrid_systems(outputs, segment_scores, seed=seed, samples=samples)
        if not math.isnan(s.human)
    ]
    human = {s.name: s.human for s in systems}
    rows = []
    total = len(systems) * len(reference_sets) * len(metrics)
    for ref_name, refs in reference_sets.items():
        for metric in metrics:
            scorer = metric_scorer(metric, source, refs, store)
            for s in systems:
                details = scorer(s.lines)
                rows.append(
                    {
                        "name": s.name,
                        "reference_set": ref_name,
                        "metric": metric,
                        "score": float(details["score"]),
                    }
                )
                progress(len(rows), total)
    return rows, human


RUN_HINT = "make the run again with allow missing (parameter allow_missing) to accept it"


def require_system_join(metric_rows: Sequence[dict], human: dict[str, float], parameters: dict) -> None:
    """A ``JoinError`` (the run fails with it) when fewer than 90% of the judged systems (minus the
    run's ``exclude``) have a score of some metric/reference set (``geceval.formats.joins``), unless the
    run's ``allow_missing``."""
    exclude = parameters.get("exclude", [])
    allow_missing = bool(parameters.get("allow_missing"))
    table: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in metric_rows:
        table[(row["metric"], row["reference_set"])].add(row["name"])
    for (metric, reference_set), names in sorted(table.items()):
        require_share(
            system_join(human, names, exclude=exclude, judged_as="the human run's systems"),
            min_share=min_share(allow_missing),
            where=f"{metric}/{reference_set}",
            hint=RUN_HINT,
        )


def require_output_join(judged: Iterable[str], outputs: Iterable[str], parameters: dict) -> None:
    """A ``JoinError`` when fewer than 90% of the systems with human segment scores (minus the run's
    ``exclude``) have outputs to score, unless the run's ``allow_missing``: an ensemble or synthetic
    systems built from the rest would otherwise leave judged systems out without a word."""
    require_share(
        system_join(
            judged,
            outputs,
            exclude=parameters.get("exclude", []),
            judged_as="the human run's segment scores",
            scored_as="the corpus' outputs",
        ),
        min_share=min_share(bool(parameters.get("allow_missing"))),
        where="outputs",
        hint=RUN_HINT,
    )


def correlations(
    metric_rows: Sequence[dict], human: dict[str, float], *, exclude: Sequence[str] = ()
) -> list[dict]:
    """Per (metric, reference set): Pearson/Spearman/Kendall with the human scores over shared systems,
    and one-sided Williams p-values (Pearson) against every other (metric, reference set) on the same systems.
    """

    table: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for row in metric_rows:
        table[(row["metric"], row["reference_set"])][row["name"]] = row["score"]
    out = []
    corr = {}
    for key, scores in sorted(table.items()):
        c = system_correlations(scores, human, exclude=exclude)
        corr[key] = c
        out.append(
            {
                "metric": key[0],
                "reference_set": key[1],
                "systems": c.n,
                "pearson": _finite(c.pearson),
                "spearman": _finite(c.spearman),
                "kendall": _finite(c.kendall),
                "points": [[s, scores[s], human[s]] for s in c.systems],
                "williams": {},
            }
        )
    for row in out:
        a = (row["metric"], row["reference_set"])
        for other in out:
            b = (other["metric"], other["reference_set"])
            if a == b:
                continue
            shared = sorted(set(corr[a].systems) & set(corr[b].systems))
            if len(shared) <= 3:
                continue
            h = np.array([human[s] for s in shared])
            x = np.array([table[a][s] for s in shared])
            y = np.array([table[b][s] for s in shared])
            if min(np.ptp(h), np.ptp(x), np.ptp(y)) == 0:
                continue
            r12, r13, r23 = (float(np.corrcoef(u, v)[0, 1]) for u, v in ((h, x), (h, y), (x, y)))
            try:
                p = williams_test(r12, r13, r23, len(shared)).p
            except (ValueError, ZeroDivisionError):
                continue
            row["williams"][f"{b[0]}/{b[1]}"] = _finite(p)
    return out


# --------------------------------------------------------------------------- ensemble


def ensemble_train(
    source: list[str],
    references: list[list[str]],
    outputs: dict[str, list[str]],
    segment_scores: dict[str, dict[str, float]],
    *,
    components: Sequence[str],
    synthetic: bool,
    samples: int,
    folds: int,
    alpha: float,
    seed: int,
    progress: ProgressFn = no_progress,
) -> tuple[list[dict], dict]:
    """GMEG's ensemble (geceval.metrics.ensemble.model): ridge regression from metric features of the real systems
    (and hybrid synthetic ones) to their human PRWS score, cross-validated.

    Returns metric rows of the fitted model's predictions for the real systems (metric
    ``ensemble``, details: human score and out-of-fold prediction) and a summary holding the
    model (JSON), the CV figures and the feature count.
    """
    from dataclasses import asdict

    if len(outputs) < 2:
        raise ValueError("the ensemble needs at least 2 systems with human segment scores")
    extractor = ScorerFeatures(source, references, components=components)
    means = system_means({n: segment_scores[n] for n in outputs})
    hybrids = hybrid_systems(outputs, segment_scores, samples=samples, seed=seed) if synthetic else []
    hybrids = [h for h in hybrids if not math.isnan(h.human)]
    total = len(outputs) + len(hybrids)
    rows: list[TrainingRow] = []
    for name, lines in outputs.items():
        rows.append(TrainingRow("campaign", name, False, means[name], extractor(lines)))
        progress(len(rows), total)
    for h in hybrids:
        rows.append(TrainingRow("campaign", h.name, True, h.human, extractor(h.lines)))
        progress(len(rows), total)
    names = list(rows[0].features)
    x, y, real = matrix(rows, names)
    cv, pred = cross_validate(x, y, real=real, alpha=alpha, folds=folds, seed=seed)
    model = fit(x, y, names, alpha=alpha)
    model.components = component_versions(components)
    model.training = {
        "n_real": int(real.sum()),
        "n_synthetic": int((~real).sum()),
        "cross_validation": asdict(cv),
    }
    out = [
        {
            "name": r.name,
            "reference_set": "all",
            "metric": "ensemble",
            "score": model.predict(r.features),
            "details": {"human": r.human, "out_of_fold": float(pred[i])},
        }
        for i, r in enumerate(rows)
        if not r.synthetic
    ]
    summary = {
        "model": model.to_json(),
        "cross_validation": {k: _finite(v) if isinstance(v, float) else v for k, v in asdict(cv).items()},
        "features": len(names),
    }
    return out, summary
