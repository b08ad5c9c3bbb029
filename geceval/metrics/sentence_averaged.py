"""SentM2 and SentERRANT: F_beta computed per sentence, then averaged over sentences.

Kobayashi, Mita and Komachi (2024, "Revisiting Meta-evaluation for Grammatical Error
Correction") score a system by the mean of its sentence-level F_0.5 instead of one F_0.5 over
pooled counts, so that every sentence weighs the same and the metric has a sentence-level
score to meta-evaluate. Our choices (docs/metric-versions.md, "SentM2 and SentERRANT"):

- Each sentence is scored as if it were a corpus of one sentence by the corpus scorer itself:
  SentM2 is :func:`geceval.metrics.m2.scorer.score_candidates` on that sentence's candidates alone (so the
  annotator is the one maximising *that sentence's* F, ties to more true positives, then fewer
  ``proposed + beta^2 gold``, as m2scorer 3.2 decides them); SentERRANT is
  :func:`geceval.metrics.errant.scorer.compare_pairs` on that sentence's annotator pairs alone (ERRANT
  compare's choice: highest F rounded to 4 places, then more TP, fewer FP, fewer FN). This is
  what running ``m2scorer`` / ``errant_compare`` on a one-sentence file gives, which the parity
  tests check.
- The edge cases follow from those tools: nothing proposed and nothing in the gold gives P = R =
  1 and F = 1.0 (a correct "leave it alone"); nothing proposed against gold edits gives R = 0,
  F = 0; edits proposed against an empty gold give P = 0, F = 0; no true positive gives F = 0.
- The system score is the unweighted mean over all sentences (a sentence with no gold edit
  counts like any other); with no sentences it is NaN.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Sentence, read_m2
from geceval.formats.text import read_lines
from geceval.metrics.base import ALIGN, ERRANT_MODEL, ERRANT_PACKAGES, Metric, MetricScore, beta_parameter
from geceval.metrics.errant.metric import hypothesis_m2, reference_count, reference_set_of
from geceval.metrics.errant.scorer import (
    annotate_hypothesis,
    build_reference_set,
    compare_pairs,
    looks_like_m2,
    sentence_pairs,
)
from geceval.metrics.m2.scorer import (
    hypotheses_for,
    load_gold,
    m2_gold,
    n_annotators,
    score_candidates,
    sentence_candidates,
)
from geceval.progress import ProgressFn, StderrProgress, no_progress


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def sent_m2_scores(
    hypotheses: Sequence[str],
    gold: Sequence[M2Sentence],
    *,
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    progress: ProgressFn = no_progress,
) -> list[float]:
    """Per sentence, the M2 F_beta of that sentence scored on its own (module docstring)."""
    if len(hypotheses) != len(gold):
        raise GecInputError(f"{len(hypotheses)} hypothesis lines for {len(gold)} gold sentences")
    out = []
    for idx, (hyp, sent) in enumerate(zip(hypotheses, gold)):
        cands = sentence_candidates(hyp, sent, max_unchanged_words=max_unchanged_words)
        out.append(score_candidates([cands], beta=beta).f)
        progress(idx + 1, len(gold))
    return out


def sent_errant_scores(
    hyp: Sequence[M2Sentence], ref: Sequence[M2Sentence], *, beta: float = 0.5
) -> list[float]:
    """Per sentence, ERRANT's span-based correction F_beta of that sentence compared on its own."""
    if len(hyp) != len(ref):
        raise GecInputError(f"the hypothesis M2 has {len(hyp)} sentences but the reference has {len(ref)}")
    out = []
    for i, (h, r) in enumerate(zip(hyp, ref), start=1):
        if h.tokens != r.tokens:
            raise GecInputError(f"sentence {i}: the S lines of hypothesis and reference differ")
        out.append(compare_pairs([sentence_pairs(h, r)], beta=beta).f)
    return out


def _row(hyp_path: str, metric: str, scores: list[float], beta: float, sentence: bool) -> dict[str, Any]:
    row: dict[str, Any] = {
        "hyp": hyp_path,
        "metric": metric,
        "score": mean(scores),
        "n_sentences": len(scores),
        "beta": beta,
    }
    if sentence:
        row["sentences"] = [{"f": f} for f in scores]
    return row


def cli_sentm2(args: Any) -> list[dict[str, Any]]:
    """Adapter for ``python -m geceval score sentm2``."""
    options = SentM2.of_args(args).options
    gold = load_gold(args, options["align"])
    beta = float(options["beta"])
    results = []
    for hyp_path, lines in hypotheses_for(args, gold):
        progress = StderrProgress(f"sentm2 {hyp_path}") if len(gold) >= 200 else no_progress
        scores = sent_m2_scores(lines, gold, beta=beta, progress=progress)
        results.append(_row(hyp_path, "sentm2", scores, beta, bool(getattr(args, "sentence", False))))
    return results


def cli_senterrant(args: Any) -> list[dict[str, Any]]:
    """Adapter for ``python -m geceval score senterrant`` (inputs as ``score errant``)."""
    options = SentERRANT.of_args(args).options
    beta = float(options["beta"])
    source = read_lines(args.source) if getattr(args, "source", None) else None
    ref_set = build_reference_set(
        args.refs,
        source,
        align=options["align"],
        progress=StderrProgress("senterrant: annotating references"),
    )
    results = []
    for hyp_path in args.hyp:
        hyp_path = os.fspath(hyp_path)
        if looks_like_m2(hyp_path):
            hyp_m2 = read_m2(hyp_path)
        else:
            lines = read_lines(hyp_path, allow_empty=True)
            if len(lines) != len(ref_set.sources):
                raise GecInputError(
                    f"has {len(lines)} lines but the references have {len(ref_set.sources)} sentences",
                    path=hyp_path,
                )
            hyp_m2 = annotate_hypothesis(
                ref_set, lines, progress=StderrProgress(f"senterrant: annotating {hyp_path}")
            )
        scores = sent_errant_scores(hyp_m2, ref_set.m2, beta=beta)
        results.append(_row(hyp_path, "senterrant", scores, beta, bool(getattr(args, "sentence", False))))
    return results


def _averaged(metric: Metric, scores: list[float], n_refs: int, sentence: bool) -> MetricScore:
    fields = {"n_sentences": len(scores), "beta": float(metric.options["beta"])}
    return metric._result(n_refs, mean(scores), fields, [{"f": f} for f in scores] if sentence else None)


class SentM2(Metric):
    """The mean over sentences of each sentence's own M2 F-beta (Kobayashi et al. 2024)."""

    name = "sentm2"
    parameters = (beta_parameter(0.5), replace(ALIGN, provenance=False))
    packages = ERRANT_PACKAGES
    model = ERRANT_MODEL
    file_adapter = cli_sentm2

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        gold = m2_gold(references, source, align=self.options["align"])
        scores = sent_m2_scores(list(hypotheses), gold, beta=float(self.options["beta"]))
        return _averaged(self, scores, n_annotators(gold), sentence)


class SentERRANT(Metric):
    """The mean over sentences of each sentence's own ERRANT F-beta (Kobayashi et al. 2024)."""

    name = "senterrant"
    parameters = (beta_parameter(0.5), ALIGN)
    packages = ERRANT_PACKAGES
    model = ERRANT_MODEL
    file_adapter = cli_senterrant

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        ref_set = reference_set_of(references, source, align=self.options["align"])
        hyp = hypothesis_m2(ref_set, hypotheses)
        scores = sent_errant_scores(hyp, ref_set.m2, beta=float(self.options["beta"]))
        return _averaged(self, scores, reference_count(ref_set.m2), sentence)
