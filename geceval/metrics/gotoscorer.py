"""GoToScorer (Gotou, Nagata, Mita and Hanawa 2020, "Taking the Correction Difficulty into Account
in Grammatical Error Correction Evaluation", COLING): edits weighted by how hard they are, where
an edit is hard when few of the evaluated systems get it right.

Our reading of the paper and of its public implementation (gec-metrics' ``GoToScorer`` and its
weight generator; read, not copied), with every choice in docs/metric-versions.md:

1. Chunks. One reference (the first annotator of the gold M2) cuts the source into chunks: each
   reference edit is one chunk (its span and correction); each source token outside the edits is
   a chunk of its own (unchanged); and every boundary between chunks, and both ends, is an
   insertion slot: the reference insertion at that position if there is one, else an empty slot
   (nothing to insert). There is no slot inside a multi-token edit. A reference edit that starts
   inside an earlier one is ignored (an annotator's edits do not overlap; ERRANT's never do).
2. A system's outcome on a chunk, from its edits (``noop`` dropped; ``UNK`` kept, since a change
   is a change): if it has an edit with exactly the chunk's span, it *tried*, and is *right* when
   the correction equals the chunk's; otherwise, if one of its edits overlaps a non-empty chunk
   (an insertion strictly inside counts), it tried and is wrong; otherwise it left the chunk
   alone and is right exactly when the chunk is not a reference edit.
3. Weights. With N systems evaluated together, a chunk weighs ``1 - (systems right on it) / N``:
   what every system gets right weighs 0, what none does weighs 1. (The public weight generator
   compares only corrections, its span test comparing the reference chunk with itself; we
   compare span and correction, as its scorer does.)
4. Counts, each adding the chunk's weight: tried and right -> TP; tried and wrong -> FP, and also
   FN when the chunk is a reference edit; left alone and right -> TN; left alone and wrong -> FN.
5. Score: corpus F_beta (beta 0.5) of the weighted TP, FP, FN summed over all sentences, with
   ERRANT's conventions (P = 1 with no TP+FP, R = 1 with no TP+FN, F = 0 when P = R = 0).

The weights depend on the set of systems scored together, so the score of a system changes
with that set; the CLI scores all ``--hyp`` files as one set.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Sentence, read_m2
from geceval.formats.text import read_lines
from geceval.metrics.base import ALIGN, ERRANT_MODEL, ERRANT_PACKAGES, Metric, MetricScore, beta_parameter
from geceval.metrics.errant.metric import hypothesis_m2, reference_count, reference_set_of
from geceval.metrics.errant.scorer import (
    annotate_hypothesis,
    build_reference_set,
    looks_like_m2,
)
from geceval.progress import StderrProgress

Edit = tuple[int, int, str]
"""(start, end, correction) in source tokens; "" is a deletion."""


@dataclass(frozen=True)
class Chunk:
    start: int
    end: int
    correction: str
    edited: bool
    """True for a reference edit, False for an unchanged token or an empty slot."""


@dataclass
class GoToCounts:
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    tn: float = 0.0


@dataclass
class GoToResult:
    p: float
    r: float
    f: float
    counts: GoToCounts
    beta: float


def reference_chunks(tokens: Sequence[str], edits: Sequence[Edit]) -> list[Chunk]:
    """The chunk sequence of one sentence under one reference's edits (module docstring, 1)."""
    by_start: dict[int, list[Edit]] = {}
    for e in sorted(set(edits)):
        by_start.setdefault(e[0], []).append(e)
    chunks: list[Chunk] = []
    i = 0
    n = len(tokens)
    while True:
        inserts = [e for e in by_start.get(i, []) if e[1] == e[0]]
        if inserts:
            chunks += [Chunk(i, i, e[2], True) for e in inserts]
        else:
            chunks.append(Chunk(i, i, "", False))
        if i >= n:
            return chunks
        spans = [e for e in by_start.get(i, []) if e[1] > e[0]]
        if spans:
            start, end, correction = spans[0]
            chunks.append(Chunk(start, min(end, n), correction, True))
            i = min(end, n)
        else:
            chunks.append(Chunk(i, i + 1, tokens[i], False))
            i += 1


def outcome(chunk: Chunk, edits: Sequence[Edit]) -> tuple[bool, bool]:
    """(tried, right) of a system with ``edits`` on ``chunk`` (module docstring, 2)."""
    for start, end, correction in edits:
        if (start, end) == (chunk.start, chunk.end):
            return True, correction == chunk.correction
    if chunk.start < chunk.end:
        for start, end, _ in edits:
            inside = start == end and chunk.start < start < chunk.end
            if inside or (start < end and start < chunk.end and chunk.start < end):
                return True, False
    return False, not chunk.edited


def chunk_weights(chunks: Sequence[Chunk], systems: Sequence[Sequence[Edit]]) -> list[float]:
    """``1 - right / N`` per chunk over the N systems' edits of this sentence."""
    if not systems:
        raise GecInputError("GoToScorer needs at least one system to weigh the edits")
    return [1.0 - sum(outcome(c, s)[1] for s in systems) / len(systems) for c in chunks]


def add_counts(
    counts: GoToCounts, chunks: Sequence[Chunk], weights: Sequence[float], edits: Sequence[Edit]
) -> None:
    for chunk, w in zip(chunks, weights):
        tried, right = outcome(chunk, edits)
        if tried and right:
            counts.tp += w
        elif tried:
            counts.fp += w
            if chunk.edited:
                counts.fn += w
        elif right:
            counts.tn += w
        else:
            counts.fn += w


def f_beta(counts: GoToCounts, beta: float) -> tuple[float, float, float]:
    tp, fp, fn = counts.tp, counts.fp, counts.fn
    p = tp / (tp + fp) if tp + fp > 0 else 1.0
    r = tp / (tp + fn) if tp + fn > 0 else 1.0
    sq = beta * beta
    f = (1 + sq) * p * r / (sq * p + r) if p + r > 0 else 0.0
    return p, r, f


def _edits(sentence: M2Sentence, annotator: int | None = None) -> list[Edit]:
    out = []
    for e in sentence.edits:
        if (
            e.type == "noop"
            or e.is_noop
            or e.start < 0
            or (annotator is not None and e.annotator != annotator)
        ):
            continue
        out.append((e.start, e.end, e.corrections[0] if e.corrections else ""))
    return out


def gotoscorer(
    gold: Sequence[M2Sentence], systems: Sequence[Sequence[M2Sentence]], *, beta: float = 0.5
) -> list[GoToResult]:
    """GoToScorer of each system (hypothesis M2 against the same source) against the first
    annotator of ``gold``; the systems together set the weights."""
    for s in systems:
        if len(s) != len(gold):
            raise GecInputError(f"a system has {len(s)} sentences but the gold has {len(gold)}")
    totals = [GoToCounts() for _ in systems]
    for i, ref in enumerate(gold):
        annotators = sorted({e.annotator for e in ref.edits})
        chunks = reference_chunks(ref.tokens, _edits(ref, annotators[0] if annotators else None))
        sys_edits = [_edits(s[i]) for s in systems]
        weights = chunk_weights(chunks, sys_edits)
        for counts, edits in zip(totals, sys_edits):
            add_counts(counts, chunks, weights, edits)
    return [GoToResult(*f_beta(c, beta), counts=c, beta=beta) for c in totals]


def cli_gotoscorer(args: Any) -> list[dict[str, Any]]:
    """Adapter for ``python -m geceval score gotoscorer``: every ``--hyp`` is one of the systems
    that set the weights (inputs as ``score errant``: text or ERRANT M2)."""
    options = GoToScorer.of_args(args).options
    beta = float(options["beta"])
    source = read_lines(args.source) if getattr(args, "source", None) else None
    ref_set = build_reference_set(args.refs, source, align=options["align"])
    systems = []
    for hyp_path in args.hyp:
        hyp_path = os.fspath(hyp_path)
        if looks_like_m2(hyp_path):
            systems.append(read_m2(hyp_path))
            continue
        lines = read_lines(hyp_path, allow_empty=True)
        if len(lines) != len(ref_set.sources):
            raise GecInputError(
                f"has {len(lines)} lines but the references have {len(ref_set.sources)} sentences",
                path=hyp_path,
            )
        systems.append(
            annotate_hypothesis(ref_set, lines, progress=StderrProgress(f"gotoscorer: annotating {hyp_path}"))
        )
    results = gotoscorer(ref_set.m2, systems, beta=beta)
    return [
        {
            "hyp": os.fspath(path),
            "metric": "gotoscorer",
            "score": res.f,
            "p": res.p,
            "r": res.r,
            "f": res.f,
            "tp": res.counts.tp,
            "fp": res.counts.fp,
            "fn": res.counts.fn,
            "tn": res.counts.tn,
            "beta": beta,
            "n_systems": len(systems),
        }
        for path, res in zip(args.hyp, results)
    ]


def gotoscorer_sentences(
    gold: Sequence[M2Sentence], systems: Sequence[Sequence[M2Sentence]], *, beta: float = 0.5
) -> list[list[float]]:
    """Per system, per sentence: F_beta of that sentence's weighted counts alone (the weights
    still come from all the systems), for sentence-level meta-evaluation."""
    out: list[list[float]] = [[] for _ in systems]
    for i, ref in enumerate(gold):
        annotators = sorted({e.annotator for e in ref.edits})
        chunks = reference_chunks(ref.tokens, _edits(ref, annotators[0] if annotators else None))
        sys_edits = [_edits(s[i]) for s in systems]
        weights = chunk_weights(chunks, sys_edits)
        for scores, edits in zip(out, sys_edits):
            counts = GoToCounts()
            add_counts(counts, chunks, weights, edits)
            scores.append(f_beta(counts, beta)[2])
    return out


class GoToScorer(Metric):
    """GoToScorer (Gotou et al. 2020): edits weighted by how few of the systems scored together
    correct them. ``corpus_score`` scores one system alone (its own edits set the weights);
    :meth:`systems_score` scores several together, as ``score gotoscorer`` does with its files."""

    name = "gotoscorer"
    parameters = (beta_parameter(0.5), ALIGN)
    packages = ERRANT_PACKAGES
    model = ERRANT_MODEL
    offers_sentences = False
    file_adapter = cli_gotoscorer

    def systems_score(
        self,
        systems: Sequence[Sequence[Any]],
        references: Sequence[Any],
        source: Sequence[str] | None = None,
    ) -> list[MetricScore]:
        ref_set = reference_set_of(references, source, align=self.options["align"])
        beta = float(self.options["beta"])
        edits = [hypothesis_m2(ref_set, hyp) for hyp in systems]
        n_refs = reference_count(ref_set.m2)
        out = []
        for res in gotoscorer(ref_set.m2, edits, beta=beta):
            c = res.counts
            fields = {"p": res.p, "r": res.r, "f": res.f, "tp": c.tp, "fp": c.fp, "fn": c.fn, "tn": c.tn}
            out.append(self._result(n_refs, res.f, {**fields, "beta": beta, "n_systems": len(systems)}))
        return out

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        if sentence:
            raise GecInputError("gotoscorer offers no per-sentence scores")
        return self.systems_score([hypotheses], references, source)[0]
