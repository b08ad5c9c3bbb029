"""Metric scoring of a run's frozen texts: scorer × reference set, per-content caches, GLEU figures.

No database access here (a ``CacheStore`` is passed in by services).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import Protocol

from geceval.formats.m2 import format_m2, parse_m2
from geceval.metaeval.edit_stats import error_type_distribution
from geceval.metrics import BLEU, CHRF, ERRANT, GLEU, M2, TER, CharGLEU, Metric
from geceval.metrics.errant.scorer import (
    annotate_hypothesis,
    errant_annotate_references,
    errant_compare,
    reference_set_from_m2,
)
from geceval.metrics.gleu.plus import char_gleu, gleu_plus
from geceval.metrics.m2.scorer import m2_score
from geceval.metrics.sacre import bleu, chrf, ter, word_ld
from geceval.progress import ProgressFn, no_progress

METRIC_CLASSES: dict[str, type[Metric]] = {
    "gleu": GLEU,
    "char_gleu": CharGLEU,
    "bleu": BLEU,
    "chrf": CHRF,
    "ter": TER,
    "m2": M2,
    "errant": ERRANT,
}
METRICS = tuple(METRIC_CLASSES)
"""Metric names a metric_scores run accepts (GLEU+ as JFLEG; sacrebleu; M2 and ERRANT on ERRANT-annotated references)."""


def metric_signature(metric: str, n_references: int) -> dict:
    """The signature kept with every stored score of ``metric`` (its defaults are what
    :func:`metric_scorer` runs): metric, version, tokenisation, parameters, reference count."""
    return METRIC_CLASSES[metric]().signature(n_references).as_dict()


class CacheStore(Protocol):
    """Where expensive per-content results persist between processes (services passes a database store)."""

    def get(self, kind: str, key: str) -> str | None: ...

    def put(self, kind: str, key: str, value: str) -> None: ...


_REFERENCE_SETS: dict[str, object] = {}


def content_key(*parts: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        for line in part:
            digest.update(line.encode("utf-8"))
            digest.update(b"\n")
        digest.update(b"\x00")
    return digest.hexdigest()


def errant_references(source: list[str], references: list[list[str]], store: CacheStore | None = None):
    """ERRANT-annotated reference set, cached by content: in this process, and as M2 text in ``store``
    (so another worker skips the spaCy parse of the references; it re-parses only the source lazily)."""

    key = content_key(source, *references)
    if key in _REFERENCE_SETS:
        return _REFERENCE_SETS[key]
    text = store.get("errant-reference-m2", key) if store is not None else None
    if text is not None:
        ref_set = reference_set_from_m2(parse_m2(text))
    else:
        ref_set = errant_annotate_references(source, references)
        if store is not None:
            store.put("errant-reference-m2", key, format_m2(ref_set.m2))
    if len(_REFERENCE_SETS) >= 8:
        _REFERENCE_SETS.pop(next(iter(_REFERENCE_SETS)))
    _REFERENCE_SETS[key] = ref_set
    return ref_set


def metric_scorer(
    metric: str, source: list[str], references: list[list[str]], store: CacheStore | None = None
) -> Callable[[list[str]], dict]:
    """A function scoring one system's lines against ``references``: returns {"score": x, ...details}."""
    if metric == "gleu":

        def score(lines: list[str]) -> dict:
            r = gleu_plus(source, references, lines)
            return {"score": r.score, "std": r.std}

    elif metric == "char_gleu":

        def score(lines: list[str]) -> dict:
            r = char_gleu(source, references, lines)
            return {"score": r.score, "std": r.std}

    elif metric == "bleu":

        def score(lines: list[str]) -> dict:
            return {"score": bleu(references, lines).score}

    elif metric == "chrf":

        def score(lines: list[str]) -> dict:
            return {"score": chrf(references, lines).score}

    elif metric == "ter":

        def score(lines: list[str]) -> dict:
            return {"score": ter(references, lines).score}

    elif metric in ("m2", "errant"):
        ref_set = errant_references(source, references, store)
        if metric == "m2":

            def score(lines: list[str]) -> dict:
                r = m2_score(lines, ref_set.m2)
                return {"score": r.f, "p": r.p, "r": r.r}

        else:

            def score(lines: list[str]) -> dict:
                hyp = annotate_hypothesis(ref_set, lines)
                r = errant_compare(hyp, ref_set.m2)
                return {
                    "score": r.f,
                    "p": r.p,
                    "r": r.r,
                    "edit_types": error_type_distribution(hyp, main=True),
                }

    else:
        raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    return score


def metric_scores(
    source: list[str],
    outputs: dict[str, list[str]],
    reference_sets: dict[str, list[list[str]]],
    metrics: Sequence[str],
    *,
    store: CacheStore | None = None,
    progress: ProgressFn = no_progress,
) -> list[dict]:
    """Every system × reference set × metric: rows {name, reference_set, metric, score, details}."""
    rows = []
    total = len(outputs) * len(reference_sets) * len(metrics)
    done = 0
    for ref_name, refs in reference_sets.items():
        for metric in metrics:
            scorer = metric_scorer(metric, source, refs, store)
            signature = metric_signature(metric, len(refs))
            for name, lines in outputs.items():
                details = scorer(lines)
                rows.append(
                    {
                        "name": name,
                        "reference_set": ref_name,
                        "metric": metric,
                        "score": float(details.pop("score")),
                        "details": {k: v if isinstance(v, dict) else float(v) for k, v in details.items()},
                        "signature": signature,
                    }
                )
                done += 1
                progress(done, total)
    return rows


EDIT_DISTANCE_BINS: tuple[tuple[int, int | None], ...] = ((0, 0), (1, 2), (3, 5), (6, 10), (11, None))
"""Token edit distance bins (inclusive; None = no upper end) for GLEU by edit distance."""


def gleu_by_edit_distance(
    source: list[str], references: list[list[str]], outputs: dict[str, list[str]]
) -> dict:
    """GLEU+ of each system on the sentences grouped by how much the references changed them
    (after JFLEG's Figure 1; our reading, since the paper gives no procedure): a sentence's
    distance is the mean over references of the token Levenshtein distance between source and
    reference, rounded half up; sentences are binned by ``EDIT_DISTANCE_BINS`` and each bin is
    scored as its own corpus (GLEU+ with its usual 500 sampled-reference rounds).
    """

    distance = [
        math.floor(sum(word_ld(src, ref[i]) for ref in references) / len(references) + 0.5)
        for i, src in enumerate(source)
    ]
    bins = []
    for lo, hi in EDIT_DISTANCE_BINS:
        idx = [i for i, d in enumerate(distance) if d >= lo and (hi is None or d <= hi)]
        label = str(lo) if lo == hi else (f"{lo}+" if hi is None else f"{lo}-{hi}")
        scores = {}
        if idx:
            sub_src = [source[i] for i in idx]
            sub_refs = [[ref[i] for i in idx] for ref in references]
            for name, lines in outputs.items():
                scores[name] = gleu_plus(sub_src, sub_refs, [lines[i] for i in idx]).score
        bins.append({"label": label, "sentences": len(idx), "scores": scores})
    return {"bins": bins}


def gleu_vs_refs(
    source: list[str],
    outputs: dict[str, list[str]],
    references: dict[str, list[str]],
    *,
    progress=no_progress,
) -> list[dict]:
    """GLEU+ of each system with the first k references (name order), k = 1..K (Sakaguchi et al. Figure 5)."""
    names = sorted(references)
    rows = []

    total = len(names) * len(outputs)
    for k in range(1, len(names) + 1):
        refs = [references[n] for n in names[:k]]
        for name, lines in outputs.items():
            r = gleu_plus(source, refs, lines)
            rows.append(
                {"name": name, "reference_set": f"{k} refs", "metric": "gleu", "score": r.score,
                 "details": {"k": k, "references": names[:k], "std": r.std}}
            )  # fmt: skip
            progress(len(rows), total)
    return rows
