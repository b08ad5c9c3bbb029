"""ERRANT (Bryant et al. 2017): edit extraction and typing through the ``errant``
package, and our own span-based correction compare step.

Annotation
    In :mod:`geceval.metrics.errant.annotation` (spaCy and ``errant``, loaded on first use).

Compare (``errant_compare``'s default span-based correction, reimplemented)
    Per sentence, edits are grouped by annotator (a block without any edit is
    annotator 0 with no edit). ``UNK`` edits are dropped (they mark a detected
    but uncorrected error) but their annotator stays a candidate; noop lines
    only make the annotator a candidate. An edit is the key (start, end,
    correction); the correction is compared as its string, alternatives joined
    with ``||`` as in the file (our M2 reader turns ``-NONE-`` into the empty
    deletion string, so ``-NONE-`` and ``""`` deletions are equal here, whereas
    ``errant_compare`` compares the raw text; ERRANT itself only writes ``""``).
    For one (hypothesis annotator, reference annotator) pair: each hypothesis
    key found among the reference keys adds one TP per reference edit with that
    key (typed with the reference's type), any other adds one FP per hypothesis
    edit; each reference key missing from the hypothesis adds one FN per edit.

    Per sentence the pair chosen maximises the corpus F-beta of the running
    totals plus the pair's counts, with P, R and F each rounded to 4 decimals
    (P = 1 when FP = 0, R = 1 when FN = 0, F = 0 when P + R = 0, as the reference
    computes them); ties go to the higher TP, then the lower FP, then the lower
    FN, then the first pair in (hypothesis annotator, reference annotator)
    order of first appearance in the block. So P and R depend on beta. The
    reported P, R, F are computed from the totals without rounding (the
    reference prints them rounded to 4 decimals).

Categories
    ``errant_compare -cat 2``: the operation prefix (``M:``, ``R:``, ``U:``) is
    removed, so ``R:NOUN:NUM`` counts as ``NOUN:NUM``. ``per_category`` always
    lists the 24 main categories of :data:`MAIN_CATEGORIES` (``UNK`` excluded:
    it never reaches the counts) plus any other type that occurred (e.g. the
    dummy type of a Levenshtein-aligned reference). Per category P, R, F follow
    the reference's conventions (P = 1 when FP = 0 ...) when the category has
    any TP, FP or FN; a category that occurs nowhere has P, R, F ``None``
    (undefined), because the reference's convention would give it F = 1.

Macro average (GMEG, Napoles et al. 2019)
    The unweighted mean of per-category P, R and F over the 24 main categories.
    GMEG does not publish its code; our reading: categories with no TP, FP or FN
    in this comparison are undefined and left out of the mean (rather than
    counted as 1 by the reference's convention or as 0); ``n_categories`` says
    how many entered. With none defined the macro P, R, F are ``None``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.inputs import display_name, read_input
from geceval.formats.m2 import M2Sentence, read_m2
from geceval.formats.text import read_lines
from geceval.metrics.errant.annotation import (
    SPACY_MODEL,
    ReferenceSet,
    annotate_hypothesis,
    annotate_lines,
    clear_caches,
    errant_annotate,
    errant_annotate_references,
    get_annotator,
    parse_lines,
    reference_set_from_m2,
)
from geceval.metrics.references import references_to_m2
from geceval.progress import ProgressFn, StderrProgress, no_progress

MAIN_CATEGORIES: tuple[str, ...] = (
    "ADJ",
    "ADJ:FORM",
    "ADV",
    "CONJ",
    "CONTR",
    "DET",
    "MORPH",
    "NOUN",
    "NOUN:INFL",
    "NOUN:NUM",
    "NOUN:POSS",
    "ORTH",
    "OTHER",
    "PART",
    "PREP",
    "PRON",
    "PUNCT",
    "SPELL",
    "VERB",
    "VERB:FORM",
    "VERB:INFL",
    "VERB:SVA",
    "VERB:TENSE",
    "WO",
)
"""ERRANT's 25 main error types minus ``UNK`` (checked against errant.en.classifier 3.0.2)."""

_OPERATIONS = ("M:", "R:", "U:")

# --------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class CategoryScore:
    tp: int
    fp: int
    fn: int
    p: float | None
    r: float | None
    f: float | None


@dataclass(frozen=True)
class MacroScore:
    p: float | None
    r: float | None
    f: float | None
    n_categories: int


@dataclass(frozen=True)
class SentenceScore:
    tp: int
    fp: int
    fn: int
    p: float
    r: float
    f: float
    hyp_annotator: int
    ref_annotator: int


@dataclass
class ErrantResult:
    tp: int
    fp: int
    fn: int
    p: float
    r: float
    f: float
    beta: float
    per_category: dict[str, CategoryScore]
    macro: MacroScore
    sentences: list[SentenceScore] = field(default_factory=list)

    def as_dict(self, *, sentences: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "score": self.f,
            "p": self.p,
            "r": self.r,
            "f": self.f,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "beta": self.beta,
            "categories": {c: _cat_dict(s) for c, s in self.per_category.items()},
            "macro": {
                "p": self.macro.p,
                "r": self.macro.r,
                "f": self.macro.f,
                "n_categories": self.macro.n_categories,
            },
        }
        if sentences:
            out["sentences"] = [s.__dict__.copy() for s in self.sentences]
        return out


def _cat_dict(s: CategoryScore) -> dict[str, Any]:
    return {"tp": s.tp, "fp": s.fp, "fn": s.fn, "p": s.p, "r": s.r, "f": s.f}


def prf(tp: int, fp: int, fn: int, beta: float) -> tuple[float, float, float]:
    """P, R, F-beta with the reference's conventions (P = 1 if FP = 0, R = 1 if FN = 0)."""
    p = tp / (tp + fp) if fp else 1.0
    r = tp / (tp + fn) if fn else 1.0
    b2 = beta * beta
    f = (1 + b2) * p * r / (b2 * p + r) if p + r else 0.0
    return p, r, f


_EditKey = tuple[int, int, str]


def _coders(sentence: M2Sentence) -> dict[int, dict[_EditKey, list[str]]]:
    """Annotator -> {(start, end, correction): [types]} in order of first appearance."""
    coders: dict[int, dict[_EditKey, list[str]]] = {}
    if not sentence.edits:
        coders[0] = {}
    for e in sentence.edits:
        edits = coders.setdefault(e.annotator, {})
        # errant_compare keeps an edit past the end of the sentence as a gold edit (m2scorer drops it)
        if (e.start == -1 and e.end == -1) or e.type == "noop" or e.type == "UNK":
            continue
        edits.setdefault((e.start, e.end, "||".join(e.corrections)), []).append(e.type)
    return coders


def _compare_pair(
    hyp: dict[_EditKey, list[str]], ref: dict[_EditKey, list[str]]
) -> tuple[int, int, int, dict[str, list[int]]]:
    tp = fp = fn = 0
    cats: dict[str, list[int]] = {}
    for key, types in hyp.items():
        ref_types = ref.get(key)
        if ref_types is not None:
            for t in ref_types:
                tp += 1
                cats.setdefault(t, [0, 0, 0])[0] += 1
        else:
            for t in types:
                fp += 1
                cats.setdefault(t, [0, 0, 0])[1] += 1
    for key, types in ref.items():
        if key not in hyp:
            for t in types:
                fn += 1
                cats.setdefault(t, [0, 0, 0])[2] += 1
    return tp, fp, fn, cats


def main_category(error_type: str) -> str:
    """``R:NOUN:NUM`` -> ``NOUN:NUM`` (``errant_compare -cat 2``); other types unchanged."""
    return error_type[2:] if error_type[:2] in _OPERATIONS else error_type


def _category_score(tp: int, fp: int, fn: int, beta: float) -> CategoryScore:
    if tp + fp + fn == 0:
        return CategoryScore(0, 0, 0, None, None, None)
    p, r, f = prf(tp, fp, fn, beta)
    return CategoryScore(tp, fp, fn, p, r, f)


def _macro(per_category: dict[str, CategoryScore]) -> MacroScore:
    defined = [per_category[c] for c in MAIN_CATEGORIES if per_category[c].f is not None]
    if not defined:
        return MacroScore(None, None, None, 0)
    n = len(defined)
    return MacroScore(
        sum(s.p for s in defined) / n,  # type: ignore[misc]
        sum(s.r for s in defined) / n,  # type: ignore[misc]
        sum(s.f for s in defined) / n,  # type: ignore[misc]
        n,
    )


SentencePairs = list[tuple[int, int, int, dict[str, list[int]], int, int]]
"""One sentence's (tp, fp, fn, per-type counts, hypothesis annotator, reference annotator)
for every annotator pair, in (hypothesis annotator, reference annotator) order."""


def sentence_pairs(h: M2Sentence, r: M2Sentence) -> SentencePairs:
    """The counts of every (hypothesis annotator, reference annotator) pair of one sentence;
    they depend on that sentence alone, so a caller scoring many systems can cache them."""
    ref_coders = _coders(r)
    return [
        (*_compare_pair(hedits, redits), hid, rid)
        for hid, hedits in _coders(h).items()
        for rid, redits in ref_coders.items()
    ]


def errant_compare(
    hyp: Sequence[M2Sentence], ref: Sequence[M2Sentence], *, beta: float = 0.5
) -> ErrantResult:
    """Span-based correction scores of hypothesis M2 against reference M2 (see module doc)."""
    if len(hyp) != len(ref):
        raise GecInputError(f"the hypothesis M2 has {len(hyp)} sentences but the reference has {len(ref)}")
    for i, (h, r) in enumerate(zip(hyp, ref), start=1):
        if h.tokens != r.tokens:
            where = f" (hypothesis line {h.line}, reference line {r.line})" if h.line or r.line else ""
            raise GecInputError(f"sentence {i}: the S lines of hypothesis and reference differ{where}")
    return compare_pairs([sentence_pairs(h, r) for h, r in zip(hyp, ref)], beta=beta)


def compare_pairs(pairs: Sequence[SentencePairs], *, beta: float = 0.5) -> ErrantResult:
    """Corpus scores from each sentence's annotator pairs: per sentence the pair that maximises
    the running corpus F (see module doc), then the totals and per-category scores."""
    total_tp = total_fp = total_fn = 0
    cat_counts: dict[str, list[int]] = {}
    sentences: list[SentenceScore] = []
    for options in pairs:
        best: tuple[int, int, int, float, int, int, dict[str, list[int]]] | None = None
        seen = set()
        for tp, fp, fn, cats, hid, rid in options:
            if (tp, fp, fn) in seen:
                continue  # same counts as an earlier pair: never strictly better than the best so far
            seen.add((tp, fp, fn))
            f = round(prf(total_tp + tp, total_fp + fp, total_fn + fn, beta)[2], 4)
            if best is None:
                better = True
            else:
                btp, bfp, bfn, bf = best[0], best[1], best[2], best[3]
                better = f > bf or (
                    f == bf and (tp > btp or (tp == btp and (fp < bfp or (fp == bfp and fn < bfn))))
                )
            if better:
                best = (tp, fp, fn, f, hid, rid, cats)
        assert best is not None
        tp, fp, fn, _f, hid, rid, cats = best
        total_tp += tp
        total_fp += fp
        total_fn += fn
        for t, counts in cats.items():
            acc = cat_counts.setdefault(t, [0, 0, 0])
            for j in range(3):
                acc[j] += counts[j]
        sp, sr, sf = prf(tp, fp, fn, beta)
        sentences.append(SentenceScore(tp, fp, fn, sp, sr, sf, hid, rid))

    main_counts: dict[str, list[int]] = {c: [0, 0, 0] for c in MAIN_CATEGORIES}
    for t, counts in cat_counts.items():
        if t == "UNK":
            continue
        acc = main_counts.setdefault(main_category(t), [0, 0, 0])
        for j in range(3):
            acc[j] += counts[j]
    per_category = {c: _category_score(*counts, beta) for c, counts in main_counts.items()}
    p, r, f = prf(total_tp, total_fp, total_fn, beta)
    return ErrantResult(
        total_tp, total_fp, total_fn, p, r, f, beta, per_category, _macro(per_category), sentences
    )


def errant_score(
    ref_set: ReferenceSet,
    hypothesis: Sequence[str],
    *,
    beta: float = 0.5,
    progress: ProgressFn = no_progress,
) -> ErrantResult:
    """Annotate a system output against ``ref_set``'s parsed source and compare."""
    hyp_m2 = annotate_hypothesis(ref_set, hypothesis, progress=progress)
    return errant_compare(hyp_m2, ref_set.m2, beta=beta)


def errant_score_texts(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    beta: float = 0.5,
) -> ErrantResult:
    """One-shot: annotate references and hypothesis, then compare."""
    return errant_score(errant_annotate_references(source, references), hypothesis, beta=beta)


# --------------------------------------------------------------------------- command line


def looks_like_m2(path: str | os.PathLike[str]) -> bool:
    """An ``.m2`` file, or a file whose non-blank lines all start with ``S `` / ``A ``
    and whose first one is an ``S`` line."""
    path = os.fspath(path)
    if display_name(path).lower().endswith(".m2"):
        return True
    try:
        text = read_input(path).data.decode("utf-8", errors="replace")
    except GecInputError:
        return False
    first = None
    for n, raw in enumerate(text.split("\n")):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        if first is None:
            first = line
            if not line.startswith("S "):
                return False
        elif not line.startswith(("S ", "A ")):
            return False
        if n > 2000:
            break
    return first is not None


def _source_lines(args: Any) -> list[str] | None:
    return read_lines(args.source) if getattr(args, "source", None) else None


def build_reference_set(
    refs: Sequence[str],
    source: list[str] | None,
    *,
    align: str = "errant",
    progress: ProgressFn = no_progress,
    source_path: str | None = None,
) -> ReferenceSet:
    """The reference set of the command line's ``--refs`` (text files or one M2 file)."""
    if len(refs) == 1 and looks_like_m2(refs[0]):
        return reference_set_from_m2(read_m2(refs[0]), source)
    if source is None:
        raise GecInputError("--source is required with text references")
    ref_lines = [read_lines(p, allow_empty=True) for p in refs]
    for path, lines in zip(refs, ref_lines):
        if len(lines) != len(source):
            raise GecInputError(
                f"has {len(lines)} lines but the source has {len(source)}; files must be line-aligned",
                path=path,
            )
    if align == "errant":
        return errant_annotate_references(source, ref_lines, progress=progress)
    return reference_set_from_m2(references_to_m2(source, ref_lines, align=align))


def cli_errant(args: Any) -> list[dict[str, Any]]:
    """``score errant``: one result per ``--hyp`` (text files, or ERRANT M2 files).

    Text references are annotated once (``--align`` errant by default) and
    every text hypothesis is annotated against the same parsed source. Input
    files are read and checked before any parsing starts.
    """
    # lazy: the metric module imports this one; its ERRANT class holds the defaults (beta, align)
    from geceval.metrics.errant.metric import ERRANT

    options = ERRANT.of_args(args).options
    beta = float(options["beta"])
    source = _source_lines(args)
    hyps: list[tuple[str, list[M2Sentence] | list[str]]] = []
    for hyp_path in args.hyp:
        if looks_like_m2(hyp_path):
            hyps.append((hyp_path, read_m2(hyp_path)))
        else:
            lines = read_lines(hyp_path, allow_empty=True)
            if source is not None and len(lines) != len(source):
                raise GecInputError(
                    f"has {len(lines)} lines but the source has {len(source)}; files must be line-aligned",
                    path=hyp_path,
                )
            hyps.append((hyp_path, lines))
    ref_set = build_reference_set(
        args.refs,
        source,
        align=options["align"],
        progress=StderrProgress("errant: annotating references"),
    )
    results = []
    for hyp_path, content in hyps:
        if content and isinstance(content[0], M2Sentence):
            result = errant_compare(content, ref_set.m2, beta=beta)  # type: ignore[arg-type]
        else:
            if len(content) != len(ref_set.sources):
                raise GecInputError(
                    f"has {len(content)} lines but the references have {len(ref_set.sources)} sentences",
                    path=hyp_path,
                )
            result = errant_score(
                ref_set,
                content,  # type: ignore[arg-type]
                beta=beta,
                progress=StderrProgress(f"errant: annotating {hyp_path}"),
            )
        results.append(
            {
                "hyp": hyp_path,
                "metric": "errant",
                **result.as_dict(sentences=getattr(args, "sentence", False)),
            }
        )
    return results


__all__ = [
    "MAIN_CATEGORIES",
    "SPACY_MODEL",
    "CategoryScore",
    "ErrantResult",
    "MacroScore",
    "ReferenceSet",
    "SentenceScore",
    "annotate_hypothesis",
    "annotate_lines",
    "build_reference_set",
    "clear_caches",
    "cli_errant",
    "compare_pairs",
    "errant_annotate",
    "errant_annotate_references",
    "errant_compare",
    "errant_score",
    "errant_score_texts",
    "get_annotator",
    "looks_like_m2",
    "main_category",
    "parse_lines",
    "prf",
    "reference_set_from_m2",
    "sentence_pairs",
]
