"""BLEU, chrF++ and TER through sacrebleu (pinned 2.6.0), plus sTER, sentence TER x 100 and Levenshtein distances.

Scores keep sacrebleu's 0-100 scale and come with sacrebleu's signature
string, so a number can be reproduced with the ``sacrebleu`` command.

- BLEU: sacrebleu's defaults (13a tokenisation, exponential smoothing,
  case-sensitive). ``force=True`` only silences sacrebleu's warning that
  GEC data "looks tokenized"; it does not change the score or signature.
- chrF++: ``CHRF(word_order=2, beta=2)`` by default. sacrebleu's corpus
  score does not expose precision and recall, so we read the summed
  per-order statistics ``[hyp n-grams, ref n-grams, matches]`` (character
  orders 1..6, word orders 1..2) and average the per-order precision and
  recall over the orders where both counts are non-zero, exactly as
  sacrebleu does before taking the F-beta of the two averages (its default,
  non-eps-smoothed mode). So ``F_beta(precision, recall) == score``, which
  the tests check; P and R are on the 0-100 scale like the score. The
  statistics come from ``CHRF._extract_corpus_statistics``, a private
  method of the pinned version.
- TER: sacrebleu's default (case-insensitive), as in the reference figure;
  ``case_sensitive=True`` counts case changes as edits, which GEC edit
  counts need.

One pass (issue 43): for each of the three, sacrebleu's per-sentence statistics are extracted
once and give the corpus score, the sentence scores (``sentence=True``; what sacrebleu's
``sentence_score`` returns, computed from the same statistics) and chrF's precision and recall;
the references are preprocessed once per (metric, options, references) and reused for every
system scored against them (sacrebleu's own reference cache, as its command uses it), so scoring
a dozen systems tokenises the references once.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.metrics import TER as SacreTER
from sacrebleu.metrics.base import Score

from geceval.errors import GecInputError
from geceval.formats.text import check_aligned, read_lines
from geceval.metrics.base import Metric, MetricScore, Parameter


@dataclass(frozen=True)
class SacreResult:
    """sacrebleu's own score object (``BLEUScore``, ``CHRFScore``, ``TERScore``: ``score``,
    ``precisions``, ``bp``, ``sys_len``, ``ref_len``, ``num_edits``, ``ref_length`` are read from
    it) with the metric's sacrebleu signature, sentence scores when asked for, and, for chrF, the
    precision and recall sacrebleu does not expose (see the module doc)."""

    sacre: Score
    signature: str
    sentence_scores: list[float] | None = None
    precision: float | None = None
    recall: float | None = None
    beta: float | None = None

    @property
    def score(self) -> float:
        return float(self.sacre.score)

    def __getattr__(self, name: str) -> Any:
        if name == "sacre":  # not set yet (copy, pickle): never recurse
            raise AttributeError(name)
        return getattr(self.sacre, name)


# The names of the three hand-made results these replace (issue 37), for callers that import them.
BleuResult = ChrfResult = TerResult = SacreResult


def _check(references: Sequence[Sequence[str]], hypothesis: Sequence[str]) -> None:
    if not references:
        raise GecInputError("at least one reference is needed")
    for r, ref in enumerate(references):
        if len(ref) != len(hypothesis):
            raise GecInputError(
                f"reference {r} has {len(ref)} sentences but the hypothesis has {len(hypothesis)}"
            )


_References = tuple[tuple[str, ...], ...]
_METRIC_CLASSES = {"bleu": SacreBLEU, "chrf": SacreCHRF, "ter": SacreTER}


@lru_cache(maxsize=8)
def _prepared(kind: str, options: tuple[tuple[str, Any], ...], references: _References) -> Any:
    """A sacrebleu metric with its references preprocessed once: sacrebleu's own reference cache
    (``references=`` at construction, as its command fills it), reused for every system scored
    against the same references with the same options (issue 43)."""
    return _METRIC_CLASSES[kind](**dict(options), references=[list(r) for r in references])


def _one_pass(
    kind: str, options: dict[str, Any], references: Sequence[Sequence[str]], hypothesis: Sequence[str]
) -> tuple[Any, Score, list[list[float]]]:
    """The metric, its corpus score and the per-sentence statistics, from ONE extraction of the
    statistics (issue 43).

    sacrebleu's ``corpus_score`` sums the per-sentence statistics and its ``sentence_score`` computes
    one sentence's score from that sentence's own statistics (the best reference is chosen per
    sentence either way), so the corpus score, each sentence's score (:func:`_sentence_scores`) and
    chrF's precision and recall are all read off the same extraction (private methods of the pinned
    2.6.0), against references preprocessed once (:func:`_prepared`).
    """
    metric = _prepared(kind, tuple(sorted(options.items())), tuple(tuple(r) for r in references))
    hyps = list(hypothesis)
    metric._check_corpus_score_args(hyps, None)
    per_sentence = _statistics(metric, hyps)
    return metric, metric._aggregate_and_compute(per_sentence), per_sentence


_SEGMENTS_KEPT = 500_000


def _statistics(metric: Any, hyps: list[str]) -> list[list[float]]:
    """``metric._extract_corpus_statistics(hyps, None)``, each sentence's statistics kept on the
    prepared metric by (sentence, text) (issue 43): a sentence's statistics are a function of its
    text and its references only, and on a shared task most sentences recur from system to system
    (every one a system left unchanged). sacrebleu's own loop, its warning about tokenised input
    included, where that warning applies (BLEU without ``force``)."""
    if not metric._force:
        return metric._extract_corpus_statistics(hyps, None)
    known: dict[tuple[int, str], list[float]] = metric.__dict__.setdefault("_geceval_segments", {})
    if len(known) > _SEGMENTS_KEPT:
        known.clear()
    # chrF without whitespace reads a line only through str.split() (its character n-grams are
    # taken from "".join(line.split()), its words from line.split()), so lines that differ only in
    # their spacing (a system's untouched line with a trailing space) have the same statistics
    squeeze = isinstance(metric, SacreCHRF) and not metric.whitespace
    stats = []
    for n, (hyp, ref_kwargs) in enumerate(zip(hyps, metric._ref_cache, strict=True)):
        key = (n, " ".join(hyp.split()) if squeeze else hyp)
        row = known.get(key)
        if row is None:
            row = metric._compute_segment_statistics(metric._preprocess_segment(hyp), ref_kwargs)
            known[key] = row
        stats.append(row)
    return stats


def _sentence_scores(metric: Any, per_sentence: list[list[float]]) -> list[float]:
    """Each sentence's score as ``metric.sentence_score`` gives it, from its statistics."""
    return [float(metric._aggregate_and_compute([row]).score) for row in per_sentence]


@lru_cache(maxsize=1)
def _sentence_bleu() -> SacreBLEU:
    # sentence BLEU with effective order, as sacrebleu advises; its statistics are corpus BLEU's
    return SacreBLEU(force=True, effective_order=True)


def bleu(
    references: Sequence[Sequence[str]], hypothesis: Sequence[str], *, sentence: bool = False
) -> BleuResult:
    """sacrebleu corpus BLEU; ``sentence=True`` adds sentence BLEU with effective order (as sacrebleu advises)."""
    _check(references, hypothesis)
    metric, res, per_sentence = _one_pass("bleu", {"force": True}, references, hypothesis)
    sentence_scores = _sentence_scores(_sentence_bleu(), per_sentence) if sentence else None
    return SacreResult(res, str(metric.get_signature()), sentence_scores)


def _beta_arg(beta: float) -> int | float:
    # sacrebleu prints the beta in the metric name: chrF2++, not chrF2.0++.
    return int(beta) if float(beta).is_integer() else beta


def chrf_precision_recall(stats: Sequence[float], order: int) -> tuple[float, float]:
    """Average per-order precision and recall (0-100) from summed chrF statistics.

    ``stats`` is ``[hyp_1, ref_1, match_1, hyp_2, ...]`` over ``order``
    n-gram orders (characters first, then words). An order counts only when
    both its hypothesis and reference totals are non-zero (sacrebleu's
    effective order); with none, both are 0.
    """
    total_p = total_r = 0.0
    effective = 0
    for i in range(order):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        if n_hyp > 0 and n_ref > 0:
            total_p += n_match / n_hyp
            total_r += n_match / n_ref
            effective += 1
    if effective == 0:
        return 0.0, 0.0
    return 100 * total_p / effective, 100 * total_r / effective


def chrf(
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    beta: float = 2.0,
    word_order: int = 2,
    sentence: bool = False,
) -> ChrfResult:
    """sacrebleu chrF (chrF++ with ``word_order=2``) with its precision and recall (see module doc)."""
    _check(references, hypothesis)
    options = {"word_order": word_order, "beta": _beta_arg(beta)}
    metric, res, per_sentence = _one_pass("chrf", options, references, hypothesis)
    summed = [sum(col) for col in zip(*per_sentence, strict=True)] if per_sentence else []
    precision, recall = chrf_precision_recall(summed, metric.order) if summed else (0.0, 0.0)
    sentence_scores = _sentence_scores(metric, per_sentence) if sentence else None
    return SacreResult(
        res,
        str(metric.get_signature()),
        sentence_scores,
        precision=precision,
        recall=recall,
        beta=float(beta),
    )


def ter(
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    case_sensitive: bool = False,
    sentence: bool = False,
) -> TerResult:
    """sacrebleu corpus TER (0-100, lower is better); case-insensitive unless asked."""
    _check(references, hypothesis)
    metric, res, per_sentence = _one_pass("ter", {"case_sensitive": case_sensitive}, references, hypothesis)
    sentence_scores = _sentence_scores(metric, per_sentence) if sentence else None
    return SacreResult(res, str(metric.get_signature()), sentence_scores)


@lru_cache(maxsize=1)
def _ter_x100_metric() -> SacreTER:
    return SacreTER(case_sensitive=True)


@lru_cache(maxsize=1)
def _ster_metric() -> SacreTER:
    return SacreTER()  # case-insensitive: tercom's default, which reproduces Sakaguchi et al. 2016 Table 4


def ster(reference_sentence: str, hyp_sentence: str) -> float:
    """sTER as Sakaguchi et al. 2016 define it (Section 3.2): TER edits per SENTENCE, not per token.

    The number of word edits (insertion, deletion, substitution, and a shift
    of a phrase counting one) that turn the hypothesis into the reference,
    not divided by the reference length: "TER is calculated as the number of
    changes per token, but instead we report the number of changes per
    sentence ... which we call the sTER". Case-insensitive, as tercom (the
    TER tool of the time) is by default: with it the mean over the released
    rewrites gives all seven Table 4 cells to the printed decimal, while
    case-sensitive edits give five of them 0.1 too high (docs/reproducing-papers.md).
    Whitespace tokens, no other normalisation (sacrebleu's TER, shifts as tercom).
    """
    return float(_ster_metric().sentence_score(hyp_sentence, [reference_sentence]).num_edits)


def ter_x100(reference_sentence: str, hyp_sentence: str) -> float:
    """Sentence TER x 100 of a rewrite against a reference (edits per 100 reference tokens), case-sensitive.

    (Number of word edits, shifts included, needed to turn the hypothesis
    into the reference, divided by the reference length, times 100; an empty
    reference gives 0 for an empty hypothesis and 100 otherwise, as sacrebleu
    does.) What this module called sTER before issue 34; not the paper's sTER.
    """
    return _ter_x100_metric().sentence_score(hyp_sentence, [reference_sentence]).score


@lru_cache(maxsize=1 << 16)
def ster_and_ter_x100(reference_sentence: str, hyp_sentence: str) -> tuple[float, float]:
    """``(ster(r, h), ter_x100(r, h))`` from one TER alignment where one is enough.

    sacrebleu's TER compares whitespace tokens for equality only (edit distance and shifts alike),
    and its case-insensitive mode lowercases the sentences first. When lowercasing merges no two
    distinct tokens of the pair, the case-insensitive problem is the case-sensitive one with its
    tokens renamed, so it has the same number of edits: sTER is then the case-sensitive alignment's
    edit count, and only a pair such as "The" / "the" needs the second alignment. Same values as
    calling both (tests/core/test_edit_stats_ter.py); half the TER work of Sakaguchi et al.'s
    Table 4, which spent most of its time in sacrebleu's TER.

    Memoised (a pure function of two strings): of Table 4's 13,573 pairs, 11,838 are distinct (the
    same two rewrites compared in more than one cell), and a second reproduction in the same process
    (``--skip-merged`` and without) adds only 333 new ones.
    """
    res = _ter_x100_metric().sentence_score(hyp_sentence, [reference_sentence])
    tokens = set(reference_sentence.split()) | set(hyp_sentence.split())
    if len({t.lower() for t in tokens}) == len(tokens):
        return float(res.num_edits), res.score
    return ster(reference_sentence, hyp_sentence), res.score


def char_ld(a: str, b: str) -> int:
    """Character Levenshtein distance (unit-cost insert, delete, substitute)."""
    return Levenshtein.distance(a, b)


def word_ld(a: str, b: str) -> int:
    """Word Levenshtein distance over whitespace tokens (``str.split()``)."""
    return Levenshtein.distance(a.split(), b.split())


# --------------------------------------------------------------------------- command line


def _read(args: Any) -> tuple[list[list[str]], list[tuple[str, list[str]]]]:
    refs = [read_lines(p) for p in args.refs]
    hyps = [(p, read_lines(p)) for p in args.hyp]
    for path, hyp in hyps:
        check_aligned({**dict(zip(args.refs, refs, strict=True)), path: hyp})
    return refs, hyps


def _quiet_sacrebleu() -> None:
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)


# The fields each metric prints beside its score, in the types the command has always printed.
_FIELDS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "bleu": {"precisions": list, "bp": float, "sys_len": int, "ref_len": int, "signature": str},
    "chrf": {"precision": float, "recall": float, "beta": float, "signature": str},
    "ter": {"num_edits": int, "ref_length": float, "signature": str},
}


def _fields(metric: str, res: SacreResult) -> dict[str, Any]:
    return {name: convert(getattr(res, name)) for name, convert in _FIELDS[metric].items()}


def _cli(args: Any, metric: str, score: Callable[..., SacreResult]) -> list[dict]:
    """One result row per hypothesis file: the metric's ``score`` plus its own fields."""
    _quiet_sacrebleu()
    refs, hyps = _read(args)
    sentence = bool(getattr(args, "sentence", False))
    out: list[dict[str, Any]] = []
    for path, hyp in hyps:
        res = score(refs, hyp, sentence=sentence)
        row: dict[str, Any] = {"hyp": path, "metric": metric, "score": res.score}
        row.update(_fields(metric, res))
        if res.sentence_scores is not None:
            row["sentences"] = res.sentence_scores
        out.append(row)
    return out


def cli_bleu(args: Any) -> list[dict]:
    """``score bleu``: score, precisions, bp, sys_len, ref_len, signature (+ sentences)."""
    return _cli(args, "bleu", bleu)


def cli_chrf(args: Any) -> list[dict]:
    """``score chrf [--beta B]``: chrF++ score, precision, recall, beta, signature (+ sentences)."""
    beta = float(CHRF.of_args(args).options["beta"])  # the default lives on the class
    return _cli(args, "chrf", lambda refs, hyp, sentence: chrf(refs, hyp, beta=beta, sentence=sentence))


def cli_ter(args: Any) -> list[dict]:
    """``score ter [--case-sensitive]``: TER score, num_edits, ref_length, signature (+ sentences)."""
    case_sensitive = bool(TER.of_args(args).options["case_sensitive"])  # the default lives on the class
    return _cli(
        args,
        "ter",
        lambda refs, hyp, sentence: ter(refs, hyp, case_sensitive=case_sensitive, sentence=sentence),
    )


# --------------------------------------------------------------------------- Metric objects


class _Sacre(Metric):
    packages = ("sacrebleu",)
    reads_source = False

    @abstractmethod
    def _score(self, refs: list[list[str]], hyps: list[str], sentence: bool) -> SacreResult:
        """One sacrebleu metric's result (BLEU, chrF++ or TER: each subclass says which)."""

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        _quiet_sacrebleu()
        refs = [list(r) for r in references]
        res = self._score(refs, list(hypotheses), sentence)
        return self._result(len(refs), res.score, _fields(self.name, res), res.sentence_scores)


class BLEU(_Sacre):
    """sacrebleu's corpus BLEU (13a, exponential smoothing, case-sensitive), 0-100."""

    name = "bleu"
    tokenisation = "13a"
    file_adapter = cli_bleu

    def _score(self, refs: list[list[str]], hyps: list[str], sentence: bool) -> SacreResult:
        return bleu(refs, hyps, sentence=sentence)


class CHRF(_Sacre):
    """sacrebleu's chrF++ (character 6-grams, word 2-grams), with its precision and recall, 0-100."""

    name = "chrf"
    tokenisation = "char6+word2"
    parameters = (Parameter("beta", 2.0, "F-beta"),)
    file_adapter = cli_chrf

    def _score(self, refs: list[list[str]], hyps: list[str], sentence: bool) -> SacreResult:
        return chrf(refs, hyps, beta=float(self.options["beta"]), sentence=sentence)


class TER(_Sacre):
    """sacrebleu's corpus TER, 0-100, lower is better; case-insensitive unless asked."""

    name = "ter"
    tokenisation = "tercom"
    parameters = (Parameter("case_sensitive", False, "ter: count case edits", type=None),)
    file_adapter = cli_ter

    def _score(self, refs: list[list[str]], hyps: list[str], sentence: bool) -> SacreResult:
        return ter(refs, hyps, case_sensitive=bool(self.options["case_sensitive"]), sentence=sentence)
