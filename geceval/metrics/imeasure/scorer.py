"""The I-measure (Felice & Briscoe 2015), as computed by mfelice/imeasure ``ieval.py``.

Reading implemented here (each point checked against the tool's printed
figures in ../shared/REFERENCE_FIGURES.md; first written from the paper and
those figures, then the alignment cost, the equal-WAcc I and the tie order
of the reference choice checked against the tool's code, ``align.py`` and
``ieval.py``, when full CoNLL-14 differed):

* Candidate references per sentence. ``mix=False`` (the tool's ``-nomix``):
  one per annotator ``0 .. numann-1`` (all of that annotator's ``<c>``
  corrections applied to the source; an annotator without any is the source
  itself). ``mix=True`` (the default): every combination of one alternative
  per error, plus "leave it" for errors with ``req="no"``.
* Token columns come from one optimal 3-way alignment of source, hypothesis
  and reference (a 3-D edit-distance DP, 7 moves). A column's cost is the sum
  over its three pairs (source-hypothesis, source-reference and
  hypothesis-reference, each once) of 0 for equal tokens, 3 for two
  different tokens and 2 for a token against a gap (the tool's
  ``Alignment``). Ties between moves go to
  all-three, then source+hypothesis, source+reference, hypothesis+reference,
  then single moves (source, hypothesis, reference); the path is traced back
  from the end. (An earlier reading counted the hypothesis-reference pair
  twice: the same counts on JFLEG, 4 detection TP too many on CoNLL-14 AMU.)
  When two of the three sequences are equal the tool aligns the pair
  pairwise; with these costs that is the same alignment and tie order.
* Column classes (``-`` a gap): correction TN if s = h = r; FN if h = s != r;
  FP if h != s = r; TP if h = r != s; otherwise (h, r, s all differ) FP, FN
  and FPN at once. Detection: the same but any h != s with r != s is a TP
  (detection FPN is always 0).
* ``WAcc = (w*TP + TN) / (w*(TP+FP) + TN + FN - (w+1)*FPN/2)``;
  ``Acc = (TP+TN) / (TP+TN+FP+FN-FPN)``; P, R, F_beta from TP/FP/FN
  (P = 1 when nothing was proposed, R = 1 when nothing was to be found).
* Per sentence the candidate reference with the highest correction WAcc is
  kept; ties go to the higher sentence I, then correction Acc, then
  detection WAcc, I and Acc, then to the first candidate (``compare_scores``
  in ``ieval.py``; ties to the first alone give FN 1417 on JFLEG, not the
  tool's 1420).
  The baseline is the source scored as the hypothesis against that same
  reference. Corpus counts are the sums over sentences; corpus WAcc, P, R,
  F, Acc and I are computed from the sums:
  ``I = (WAcc - base) / (1 - base)`` when WAcc > base, ``WAcc / base - 1``
  when lower, and when equal ``floor(WAcc)``: 0, or 1 when both are
  perfect (``compute_i`` in ``ieval.py``; a sentence left unchanged that
  needed no change scores I = 100 there).

F uses ``beta`` (0.5 by default, the command line's default; the tool's
own default is 1.0, so pass ``--beta 1`` to compare its F column). Counts,
P, R, Acc, WAcc and I do not depend on beta.

Scale: the dataclasses hold fractions (0.7333); ``IScores.as_dict()`` and
the command line report percentages as the tool prints them (73.33 for I,
P, R, F, Acc, WAcc and the baseline), counts as integers.

Speed: the alignment prunes the DP to the cells an optimal path can pass through (see
:mod:`geceval.metrics.imeasure.align`).
Mix mode enumerates at most ``max_references`` combinations per sentence;
above that (JFLEG has sentences with millions) it starts from the best
single-annotator reference and improves it one error at a time (choosing
each error's best option with the others fixed, until nothing changes,
at most 4 passes).
That is a documented approximation: it is never below the ``-nomix``
choice, and the sentences it touched are listed in ``result.capped``. On
JFLEG test (spellchecked) 148 of 747 sentences exceed 256 combinations;
for the 30 first ones with 257..2048 combinations the search found the
exhaustive optimum (same WAcc and I) every time.
The reference tool enumerates all combinations and did not finish JFLEG in
10 minutes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geceval.errors import GecInputError
from geceval.formats.ixml import ICorrection, IGoldSentence, gold_from_m2
from geceval.metrics.imeasure.align import align3, align_many, count_columns
from geceval.progress import ProgressFn

__all__ = [
    "IMeasureResult",
    "IScores",
    "SentenceChoice",
    "align3",
    "apply_corrections",
    "candidate_references",
    "gold_from_m2",
    "imeasure",
    "score_counts",
]

DEFAULT_MAX_REFERENCES = 256
_BLOCK = 1000  # sentences aligned as one batch (memory; progress is reported per block)


# ----------------------------------------------------------------------------- scores


@dataclass(frozen=True)
class IScores:
    tp: int
    tn: int
    fp: int
    fn: int
    fpn: int
    p: float
    r: float
    f: float
    acc: float
    wacc: float
    i: float
    baseline_wacc: float

    def as_dict(self, *, percent: bool = True) -> dict[str, float | int]:
        """Counts as integers; rates as percentages (the tool's scale) unless ``percent=False``."""
        k = 100.0 if percent else 1.0
        return {
            "tp": self.tp,
            "tn": self.tn,
            "fp": self.fp,
            "fn": self.fn,
            "fpn": self.fpn,
            "p": self.p * k,
            "r": self.r * k,
            "f": self.f * k,
            "acc": self.acc * k,
            "wacc": self.wacc * k,
            "i": self.i * k,
            "baseline_wacc": self.baseline_wacc * k,
        }


def _wacc(c: Sequence[int], w: float) -> float:
    tp, tn, fp, fn, fpn = c[:5]
    den = w * (tp + fp) + tn + fn - (w + 1) * fpn / 2.0
    return (w * tp + tn) / den if den else 1.0


def _improvement(wacc: float, base: float) -> float:
    if wacc > base:
        return (wacc - base) / (1.0 - base)
    if wacc < base:
        return wacc / base - 1.0
    return float(math.floor(wacc))  # as ieval.py: 1 when system and baseline are both perfect, else 0


def _acc(c: Sequence[int]) -> float:
    tp, tn, fp, fn, fpn = c[:5]
    total = tp + tn + fp + fn - fpn
    return (tp + tn) / total if total else 1.0


def score_counts(
    counts: Sequence[int], baseline: Sequence[int], *, beta: float = 0.5, w: float = 2.0
) -> IScores:
    """All measures from (tp, tn, fp, fn, fpn) of the system and of the source-as-hypothesis."""
    tp, tn, fp, fn, fpn = (int(x) for x in counts[:5])
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if (b2 * p + r) else 0.0
    acc = _acc(counts)
    wacc = _wacc(counts, w)
    base = _wacc(baseline, w)
    return IScores(tp, tn, fp, fn, fpn, p, r, f, acc, wacc, _improvement(wacc, base), base)


@dataclass
class SentenceChoice:
    """What was chosen for one sentence: counts (correction and detection) and the reference."""

    reference: list[str]
    correction: tuple[int, int, int, int, int]
    detection: tuple[int, int, int, int, int]
    baseline_correction: tuple[int, int, int, int, int]
    baseline_detection: tuple[int, int, int, int, int]
    n_candidates: int
    capped: bool = False

    def scores(self, *, beta: float = 0.5, w: float = 2.0) -> tuple[IScores, IScores]:
        return (
            score_counts(self.correction, self.baseline_correction, beta=beta, w=w),
            score_counts(self.detection, self.baseline_detection, beta=beta, w=w),
        )


@dataclass
class IMeasureResult:
    correction: IScores
    detection: IScores
    sentences: list[SentenceChoice] = field(default_factory=list)
    capped: list[int] = field(default_factory=list)  # 0-based sentences where mix mode was approximated


# ----------------------------------------------------------------------------- references


def apply_corrections(tokens: Sequence[str], corrections: Sequence[ICorrection]) -> list[str]:
    """The source with corrections applied, as ``candgen.py``'s ``correct_sentence`` does.

    Corrections of one span are joined in the given order (its ``_mergeCorrections``); the spans are
    applied from the last to the first on the source's indices, so an insertion lands before a
    replacement at the same point. A correction that would delete everything left is skipped (the
    tool's "WORKAROUND FOR NUCLE", e.g. CoNLL-14 sentences 24, 538 and 574, whose only or long
    uncorrected deletion would otherwise give an empty reference).
    """
    spans: dict[tuple[int, int], list[str]] = {}
    for c in sorted(corrections, key=lambda c: (c.start, c.end)):
        spans.setdefault((c.start, c.end), []).extend(c.tokens)
    out = list(tokens)
    for (start, end), new in sorted(spans.items(), reverse=True):
        if not new and start == 0 and end >= len(out):
            continue
        out[start:end] = new
    return out


def _error_options(sent: IGoldSentence) -> list[list[tuple[ICorrection, ...]]]:
    options = []
    for err in sent.errors:
        opts: list[tuple[ICorrection, ...]] = []
        for alt in err.alternatives:
            if alt.corrections not in opts:
                opts.append(alt.corrections)
        if not err.required:
            opts.append(())
        options.append(opts)
    return options


def _dedupe(refs: list[list[str]]) -> list[list[str]]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for r in refs:
        key = tuple(r)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def candidate_references(
    sent: IGoldSentence, *, mix: bool, max_references: int | None = None
) -> list[list[str]]:
    """Candidate reference token lists (duplicates removed, first kept).

    With ``mix`` and more than ``max_references`` combinations, returns the
    per-annotator references only (the caller then searches combinations).
    """
    if not mix:
        refs = []
        for ann in sent.annotators():
            cs = [
                c
                for err in sent.errors
                for alt in err.alternatives
                if alt.annotator == ann
                for c in alt.corrections
            ]
            refs.append(apply_corrections(sent.tokens, cs))
        return _dedupe(refs) or [list(sent.tokens)]  # no annotator at all: the source
    options = _error_options(sent)
    n = 1
    for o in options:
        n *= len(o)
    if max_references is not None and n > max_references:
        return candidate_references(sent, mix=False)
    return _dedupe(
        [
            apply_corrections(sent.tokens, [c for opt in combo for c in opt])
            for combo in itertools.product(*options)
        ]
    )


# ----------------------------------------------------------------------------- scoring


def _evaluate(src: list[str], hyp: list[str], refs: list[list[str]], w: float) -> list[tuple[Any, ...]]:
    return _evaluate_many([(src, hyp, refs)], w)[0]


def _evaluate_many(items: Sequence[tuple[list[str], list[str], list[list[str]]]], w: float) -> list[Any]:
    """Per (source, hypothesis, references) item and reference: (corr, det, base_corr, base_det).

    The baseline (source as hypothesis) is aligned only for the references
    tied at the best correction WAcc (the only ones the choice can need);
    the others get ``None``. All items' alignments run as one batch.
    """
    paths = iter(align_many([(src, hyp, r) for src, hyp, refs in items for r in refs]))
    counted = []
    baseline_problems = []
    for src, hyp, refs in items:
        counts = [count_columns(src, hyp, r, next(paths)) for r in refs]
        best = max(_wacc(c, w) for c, _d in counts)
        tied = [x for x, (c, _d) in enumerate(counts) if _wacc(c, w) == best]
        counted.append((counts, tied))
        if hyp != src:
            baseline_problems += [(src, src, refs[x]) for x in tied]
    bpaths = iter(align_many(baseline_problems))
    out = []
    for (src, hyp, refs), (counts, tied) in zip(items, counted):
        if hyp == src:
            base = {x: counts[x] for x in tied}
        else:
            base = {x: count_columns(src, src, refs[x], next(bpaths)) for x in tied}
        out.append([(c, d, *base.get(x, (None, None))) for x, (c, d) in enumerate(counts)])
    return out


def _choice_key(res: tuple[Any, ...], w: float) -> tuple[float, ...]:
    """The order ``ieval.py``'s ``compare_scores`` ranks a reference by (correction, then detection)."""
    c, d, bc, bd = res
    wc, wd = _wacc(c, w), _wacc(d, w)
    return (wc, _improvement(wc, _wacc(bc, w)), _acc(c), wd, _improvement(wd, _wacc(bd, w)), _acc(d))


def _pick(refs: list[list[str]], results: list[tuple[Any, ...]], w: float) -> int:
    best, best_key = 0, None
    for x, res in enumerate(results):
        if res[2] is None:
            continue
        key = _choice_key(res, w)
        if best_key is None or key > best_key:
            best, best_key = x, key
    return best


def _search_mix(sent: IGoldSentence, hyp: list[str], w: float) -> tuple[list[str], tuple[Any, ...], int]:
    """Coordinate ascent over error options, from the best single-annotator reference."""
    src = sent.tokens
    options = _error_options(sent)
    start_refs = candidate_references(sent, mix=False)
    res = _evaluate(src, hyp, start_refs, w)
    x = _pick(start_refs, res, w)
    best_ref, best_res = start_refs[x], res[x]
    evaluated = len(start_refs)
    choice: list[tuple[ICorrection, ...]] = [opts[0] for opts in options]
    # start point: the combination equal to the winning reference if one exists
    for ann in sent.annotators():
        cs = [
            c
            for err in sent.errors
            for alt in err.alternatives
            if alt.annotator == ann
            for c in alt.corrections
        ]
        if apply_corrections(src, cs) == best_ref:
            choice = []
            for err, opts in zip(sent.errors, options):
                mine = [alt.corrections for alt in err.alternatives if alt.annotator == ann]
                choice.append(mine[0] if mine else (() if () in opts else opts[0]))
            break
    current_key = _choice_key(best_res, w)
    changed = True
    rounds = 0
    while changed and rounds < 4:
        changed = False
        rounds += 1
        for e, opts in enumerate(options):
            if len(opts) < 2:
                continue
            trial_refs = []
            for o in opts:
                combo = [*choice[:e], o, *choice[e + 1 :]]
                trial_refs.append(apply_corrections(src, [c for opt in combo for c in opt]))
            res = _evaluate(src, hyp, trial_refs, w)
            evaluated += len(trial_refs)
            x = _pick(trial_refs, res, w)
            key = _choice_key(res[x], w)
            if key > current_key:
                current_key = key
                choice[e] = opts[x]
                best_ref, best_res = trial_refs[x], res[x]
                changed = True
    return best_ref, best_res, evaluated


def imeasure(
    hypotheses: Sequence[str],
    gold: Sequence[IGoldSentence],
    *,
    mix: bool = True,
    beta: float = 0.5,
    w: float = 2.0,
    progress: ProgressFn | None = None,
    max_references: int = DEFAULT_MAX_REFERENCES,
) -> IMeasureResult:
    """Corpus I-measure of tokenised hypothesis lines against I-measure gold (see module doc)."""
    if len(hypotheses) != len(gold):
        raise GecInputError(f"{len(hypotheses)} hypothesis lines but {len(gold)} gold sentences")
    totals = np.zeros(20, dtype=np.int64)
    choices: list[SentenceChoice] = []
    capped: list[int] = []
    total = len(gold)
    for lo in range(0, total, _BLOCK):
        block = range(lo, min(total, lo + _BLOCK))
        hyps = [hypotheses[n].split() for n in block]
        refs = [candidate_references(gold[n], mix=mix, max_references=max_references) for n in block]
        searched = {
            n: _search_mix(gold[n], hyp, w)
            for n, hyp in zip(block, hyps)
            if mix and _n_combinations(gold[n]) > max_references
        }
        plain = [x for x, n in enumerate(block) if n not in searched]
        results = iter(_evaluate_many([(list(gold[lo + x].tokens), hyps[x], refs[x]) for x in plain], w))
        for x, n in enumerate(block):
            if n in searched:
                ref, res, n_cand = searched[n]
                capped.append(n)
            else:
                found = next(results)
                pick = _pick(refs[x], found, w)
                ref, res, n_cand = refs[x][pick], found[pick], len(refs[x])
            c, d, bc, bd = res
            totals += np.array([*c, *d, *bc, *bd], dtype=np.int64)
            choices.append(SentenceChoice(ref, c, d, bc, bd, n_cand, n in searched))
            if progress is not None:
                progress(n + 1, total)
    t = totals.tolist()
    return IMeasureResult(
        score_counts(t[0:5], t[10:15], beta=beta, w=w),
        score_counts(t[5:10], t[15:20], beta=beta, w=w),
        choices,
        capped,
    )


def _n_combinations(sent: IGoldSentence) -> int:
    n = 1
    for o in _error_options(sent):
        n *= len(o)
    return n
