"""GLEU scorers: GLEU+ (the JFLEG metric) and charGLEU; GLEU 2015 is in :mod:`geceval.metrics.gleu.gleu2015`.

GLEU+ (Napoles et al. 2016/2017, the ``compute_gleu`` script shipped with
JFLEG) is reproduced as its code computes it, not as the paper's equation
reads; see :func:`gleu_plus`. The published numbers come from a Python 2
script that draws one reference per sentence 500 times; this module draws
the very same references (see :func:`sampled_reference_indices`), so the
mean, std and interval agree with the printed figures to the last digit.

Speed: the expensive part is n-gram counting, which depends only on the
(hypothesis sentence, reference) pair, never on the iteration. We count once
per pair (:mod:`geceval.metrics.gleu.counts`, set operations in C) into a small
integer vector of statistics; an iteration is then the sum of one vector per
sentence, selected by the sampled index (:mod:`geceval.metrics.gleu.sampling`, packed
integers and per-group tables), and the mean and std are numpy's, as the
reference script printed them; ``score gleu`` on JFLEG test takes
about 1/19 of the CPU of PyPI ``gleu`` 1.1.0's command (bench/bench_gleu.py).

Tokens are Python 2's ``str.split()`` of a byte string: runs of ASCII
whitespace only (space, tab, newline, CR, VT, FF). Python 3's ``str.split``
also splits at non-breaking and other Unicode spaces; we keep the reference
script's behaviour. No reference data set contains such characters, so both
readings give the same published figures.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from numpy import mean as np_mean
from numpy import std as np_std

from geceval.errors import GecInputError
from geceval.formats.text import check_aligned, read_lines
from geceval.metrics.base import Metric, MetricScore
from geceval.metrics.gleu.counts import Unit, pair_statistics
from geceval.metrics.gleu.counts import tokenize as tokenize  # part of this module's interface
from geceval.metrics.gleu.sampling import Draws, drawn_indices, iteration_totals
from geceval.progress import ProgressFn, StderrProgress

if TYPE_CHECKING:
    import numpy as np

GLEU_ORDER = 4
CHAR_GLEU_ORDER = 5
DEFAULT_ITERATIONS = 500
_Z95 = 1.9599639845400536  # statistics.NormalDist().inv_cdf(0.975), without importing statistics


class GleuResult(NamedTuple):
    """A GLEU+ / charGLEU corpus score on the reference tool's 0-1 scale.

    ``score`` is the mean of the per-iteration corpus scores
    (``iteration_scores``), ``std`` their population standard deviation
    (numpy's default, as the reference prints), ``ci`` the normal 95%
    interval ``score ± 1.96·std``. ``sentence_scores`` is filled when asked for.
    (A NamedTuple, not a dataclass: ``score gleu`` starts without importing dataclasses.)
    """

    score: float
    std: float
    ci: tuple[float, float]
    iteration_scores: list[float]
    sentence_scores: list[float] | None = None

    def __repr__(self) -> str:
        return f"GleuResult(score={self.score!r}, std={self.std!r}, ci={self.ci!r}, sentence_scores={self.sentence_scores!r})"


# --------------------------------------------------------------------------- tokens and n-grams


def ngram_counts(units: Sequence[Hashable], n: int) -> Counter:
    if n == 1:
        return Counter(units)
    return Counter(zip(*(units[i:] for i in range(n)), strict=False))


def clipped_matches(h: Counter, other: Counter) -> int:
    """``|h ∧ other|``: the clipped count of h's n-grams found in ``other``."""
    if len(other) < len(h):
        return sum(min(c, h[g]) for g, c in other.items() if g in h)
    return sum(min(c, other[g]) for g, c in h.items() if g in other)


# --------------------------------------------------------------------------- GLEU+ statistics


def gleu_plus_stats(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    order: int = GLEU_ORDER,
    unit: Unit = "word",
    progress: ProgressFn | None = None,
) -> np.ndarray:
    """Per-sentence GLEU+ statistics against each reference, as a numpy array.

    ``references`` is a list of k reference sets, each line-aligned with
    ``source`` and ``hypothesis``. Returns an int64 array of shape
    ``(n_sentences, k, 2 + 2·order)``; row ``[i, r]`` is
    ``[|h|, |r|, num_1, den_1, ..., num_order, den_order]`` with
    ``num_n = max(0, |h ∧ r| - |h ∧ S_diff|)`` where ``S_diff`` holds the
    source n-grams that do not occur in r at all (clipped by their source
    count), and ``den_n = max(0, |h| - n + 1)``: for one hypothesis n-gram of
    count c, with source count s and reference count x, it adds ``min(c, x)``
    when x > 0, else subtracts ``min(c, s)``. Counted by
    :func:`geceval.metrics.gleu.counts.pair_statistics` (plain Python, no numpy).
    """
    import numpy as np

    stats = _statistics(source, references, hypothesis, order, unit, progress)
    return np.array(stats, dtype=np.int64).reshape(len(stats), len(references), 2 + 2 * order)


def _statistics(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    order: int,
    unit: Unit,
    progress: ProgressFn | None,
) -> list[list[list[int]]]:
    n_sent = check_lengths(source, references, hypothesis)
    stats = pair_statistics(source, references, hypothesis, order, unit)
    if progress and n_sent:
        progress(n_sent, n_sent)
    return stats


def check_lengths(
    source: Sequence[str], references: Sequence[Sequence[str]], hypothesis: Sequence[str]
) -> int:
    if not references:
        raise GecInputError("at least one reference is needed")
    n = len(source)
    if len(hypothesis) != n:
        raise GecInputError(f"hypothesis has {len(hypothesis)} sentences but the source has {n}")
    for r, ref in enumerate(references):
        if len(ref) != n:
            raise GecInputError(f"reference {r} has {len(ref)} sentences but the source has {n}")
    return n


def gleu_from_stats(stats: Sequence[float], *, smooth: bool = False) -> float:
    """GLEU of one statistics vector ``[c, r, num_1, den_1, ...]`` (summed over a corpus or not).

    0 when any entry is 0, else ``exp(min(0, 1 - r/c) + mean_n log(num_n/den_n))``.
    ``smooth`` replaces every 0 by 1 first (the reference's sentence level).
    Computed with Python floats in the reference script's order of operations.
    """
    if smooth:
        stats = [s if s != 0 else 1 for s in stats]
    if any(s == 0 for s in stats):
        return 0.0
    c, r = float(stats[0]), float(stats[1])
    order = (len(stats) - 2) // 2
    log_prec = sum(math.log(float(x) / y) for x, y in zip(stats[2::2], stats[3::2], strict=True)) / order
    return math.exp(min(0.0, 1 - r / c) + log_prec)


# --------------------------------------------------------------------------- sampling


@lru_cache(maxsize=8)
def sampled_reference_indices(iterations: int, n_sentences: int, k: int, draws: Draws = "py2") -> np.ndarray:
    """The reference index drawn for each (iteration, sentence), as the reference tool draws it.

    The Python 2 script does ``random.seed(j*101)`` then, per sentence,
    ``random.randint(0, k-1)``. Python 2's ``randint(a, b)`` is
    ``a + int(random() * (b - a + 1))``, while Python 3's draws bits with
    ``getrandbits`` and gives other indices. Seeding from an int is the same
    Mersenne Twister initialisation in both versions, so
    ``int(random.Random(j*101).random() * k)`` replays the Python 2 stream
    (:func:`geceval.metrics.gleu.sampling.drawn_indices`, which reads it straight from
    the generator's bits when k is a power of two).
    ``draws="py3"`` is the same script run under Python 3: ``randint(0, k-1)``
    of a generator seeded ``j*101`` (rejection sampling over ``getrandbits``),
    other indices and slightly different, unpublished scores.
    Returns a read-only int array of shape ``(iterations, n_sentences)``.
    """
    import numpy as np

    idx = np.zeros((iterations, n_sentences), dtype=np.int64)
    if k > 1 and n_sentences > 0:
        for j in range(iterations):
            idx[j] = list(drawn_indices(j, n_sentences, k, draws))
    idx.flags.writeable = False
    return idx


def iteration_sums(stats: np.ndarray, iterations: int, draws: Draws = "py2") -> np.ndarray:
    """Corpus statistics of each iteration as a numpy array: shape ``(iterations, D)``, exact integers
    (for callers that hold numpy statistics already: the ensemble's features, the hybrids)."""
    import numpy as np  # lazy: the gleu command itself never needs numpy

    n_sent, k, _dims = stats.shape
    if k == 1:
        return np.repeat(stats[:, 0, :].sum(axis=0, keepdims=True), iterations, axis=0)
    return sampled_sums(stats, sampled_reference_indices(iterations, n_sent, k, draws))


def sampled_sums(stats: np.ndarray, references: np.ndarray) -> np.ndarray:
    """Per iteration, the sum over sentences of ``stats[sentence, references[iteration, sentence]]``:
    shape ``(iterations, D)``; exact for integer statistics."""
    import numpy as np  # lazy: as above

    n_sent, k, dims = stats.shape
    chosen = references + np.arange(n_sent, dtype=np.int64) * k
    # One statistic at a time: gather the chosen (sentence, reference) rows and sum per iteration.
    # (A 0/1 matrix product does the same through BLAS, whose threads cost more CPU than this.)
    columns = np.ascontiguousarray(stats.reshape(n_sent * k, dims).T)
    return np.stack([column[chosen].sum(axis=1) for column in columns], axis=1)


def _result_from_stats(
    stats: list[list[list[int]]], iterations: int, sentence: bool, dims: int, draws: Draws = "py2"
) -> GleuResult:
    if iterations < 1:
        raise GecInputError(f"iterations must be at least 1, not {iterations}")
    scores = [gleu_from_stats(row) for row in iteration_totals(stats, iterations, dims, draws)]
    if min(scores) == max(scores):
        # One reference (or no variation): report the score itself and std 0, not numpy's ±1 ulp.
        mean, std = scores[0], 0.0
    else:
        # numpy's digits (pairwise sums), as the reference script printed them
        mean, std = float(np_mean(scores)), float(np_std(scores))
    sentence_scores = None
    if sentence:
        sentence_scores = [
            float(np_mean([gleu_from_stats(row, smooth=True) for row in per_ref])) for per_ref in stats
        ]
    return GleuResult(
        score=mean,
        std=std,
        ci=(mean - _Z95 * std, mean + _Z95 * std),
        iteration_scores=scores,
        sentence_scores=sentence_scores,
    )


# --------------------------------------------------------------------------- public scorers


def gleu_plus(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    iterations: int = DEFAULT_ITERATIONS,
    sentence: bool = False,
    progress: ProgressFn | None = None,
    draws: Draws = "py2",
) -> GleuResult:
    """GLEU+ as JFLEG's ``compute_gleu`` computes it (word n-grams 1..4).

    Per sentence and reference the statistics of :func:`gleu_plus_stats`
    (the code's num_n, which subtracts the hypothesis n-grams found in the
    source but not in that reference; the paper's equation differs). For each
    of ``iterations`` rounds j, one reference per sentence is drawn as the
    Python 2 script draws it (:func:`sampled_reference_indices`, seed
    ``j*101``); the round's score is :func:`gleu_from_stats` of the summed
    statistics. The result is the mean over rounds with the population std
    and the normal 95% interval. With one reference every round is the same
    (std 0). ``sentence=True`` adds per-sentence scores: each reference's
    statistics with every 0 replaced by 1, scored and averaged over references.

    ``progress(done, total)`` is called when the statistics are counted (the
    iterations themselves take milliseconds).
    """
    stats = _statistics(source, references, hypothesis, GLEU_ORDER, "word", progress)
    return _result_from_stats(stats, iterations, sentence, 2 + 2 * GLEU_ORDER, draws)


def gleu_plus_of_statistics(
    stats: list[list[list[int]]], *, iterations: int = DEFAULT_ITERATIONS, draws: Draws = "py2"
) -> GleuResult:
    """GLEU+ from word statistics as :func:`geceval.metrics.gleu.counts.pair_statistics` counts them
    (order 4): ``stats[i][r]`` for sentence i and reference r. Statistics against two reference
    lists joined per sentence (``a[i] + b[i]``) give :func:`gleu_plus` against ``[*A, *B]``: a
    (sentence, reference) pair's statistics do not depend on the other references, so a caller
    scoring one hypothesis against several reference sets and their union counts each pair once."""
    return _result_from_stats(stats, iterations, False, 2 + 2 * GLEU_ORDER, draws)


def char_gleu(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    iterations: int = DEFAULT_ITERATIONS,
    sentence: bool = False,
    progress: ProgressFn | None = None,
) -> GleuResult:
    """charGLEU (Napoles et al. 2019): GLEU+ over character n-grams, n = 1..5.

    The paper leaves the details open. Our reading: the units are the
    characters of the tokenized line (tokens re-joined by single spaces, so
    spaces count as characters and leading/trailing/multiple spaces do not),
    the lengths in the brevity term are character counts, the log precisions
    are averaged over the 5 orders, and sampling is GLEU+'s. Characters are
    Unicode code points (a Python 2 script would have counted UTF-8 bytes; the
    JFLEG files are ASCII, so the figures do not tell). This reading
    gives the figures JFLEG test.src 0.786169 and test.spellchecked.src
    0.799372. (PyPI ``gleu -t char -n 5 --fix-seed`` reads charGLEU
    differently and gives 0.446253 on JFLEG test.src; it is not the target.)
    """
    stats = _statistics(source, references, hypothesis, CHAR_GLEU_ORDER, "char", progress)
    return _result_from_stats(stats, iterations, sentence, 2 + 2 * CHAR_GLEU_ORDER)


def gleu_human_bound(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    iterations: int = DEFAULT_ITERATIONS,
) -> tuple[float, list[float]]:
    """Human upper bound: the mean over i of GLEU+ of reference i scored against the others.

    Returns ``(mean, [score of ref_0, score of ref_1, ...])``; needs at least
    2 references.
    """
    if len(references) < 2:
        raise GecInputError("the human bound needs at least 2 references")
    per_ref = []
    for i, ref in enumerate(references):
        others = [r for j, r in enumerate(references) if j != i]
        per_ref.append(gleu_plus(source, others, ref, iterations=iterations).score)
    return float(np_mean(per_ref)), per_ref


# --------------------------------------------------------------------------- command line


def read_cli_inputs(args: Any, metric: str) -> tuple[list[str], list[list[str]], list[str]]:
    if not args.source:
        raise GecInputError(f"{metric} needs --source (the uncorrected sentences)")
    source = read_lines(args.source)
    refs = [read_lines(p) for p in args.refs]
    check_aligned({args.source: source, **dict(zip(args.refs, refs, strict=True))})
    return source, refs, list(args.refs)


def read_cli_hypothesis(args: Any, path: str, source: list[str]) -> list[str]:
    hyp = read_lines(path)
    check_aligned({args.source: source, path: hyp})
    return hyp


def _progress(label: str, n_sentences: int, n_hyps: int) -> ProgressFn | None:
    # Only worth a line on stderr when the run takes more than a moment.
    return StderrProgress(label) if n_sentences * n_hyps >= 20000 else None


def _cli_sampled(args: Any, metric: str, scorer: Callable[..., GleuResult]) -> list[dict]:
    source, refs, _ = read_cli_inputs(args, metric)
    out: list[dict[str, Any]] = []
    for path in args.hyp:
        hyp = read_cli_hypothesis(args, path, source)
        res = scorer(
            source,
            refs,
            hyp,
            sentence=bool(getattr(args, "sentence", False)),
            progress=_progress(f"{metric} {path}", len(source), len(args.hyp)),
        )
        row: dict[str, Any] = {
            "hyp": path,
            "metric": metric,
            "score": res.score,
            "std": res.std,
            "ci": [res.ci[0], res.ci[1]],
        }
        if res.sentence_scores is not None:
            row["sentences"] = res.sentence_scores
        out.append(row)
    return out


def cli_gleu(args: Any) -> list[dict]:
    """``score gleu``: GLEU+ per hypothesis file: score, std, ci (+ sentences)."""
    return _cli_sampled(args, "gleu", gleu_plus)


def cli_chargleu(args: Any) -> list[dict]:
    """``score chargleu``: charGLEU per hypothesis file: score, std, ci (+ sentences)."""
    return _cli_sampled(args, "chargleu", char_gleu)


def gleu_inputs(
    metric: str, source: Sequence[str] | None, references: Sequence[Sequence[str]], hypotheses: Sequence[str]
) -> tuple[list[str], list[list[str]], list[str]]:
    """The plain-data inputs of a GLEU metric object, checked as the command line checks files."""
    if source is None:
        raise GecInputError(f"{metric} needs the source (the uncorrected sentences)")
    src, refs, hyp = list(source), [list(r) for r in references], list(hypotheses)
    if not refs:
        raise GecInputError(f"{metric} needs at least one reference")
    for what, lines in [*((f"reference {i + 1}", r) for i, r in enumerate(refs)), ("the hypothesis", hyp)]:
        if len(lines) != len(src):
            raise GecInputError(f"{what} has {len(lines)} lines but the source has {len(src)}")
    return src, refs, hyp


class CharGLEU(Metric):
    """charGLEU: GLEU+ over characters (order 6), with JFLEG's 500 sampled-reference rounds."""

    name = "chargleu"
    tokenisation = "characters"
    file_adapter = cli_chargleu

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        src, refs, hyp = gleu_inputs(self.name, source, references, hypotheses)
        res = char_gleu(src, refs, hyp, sentence=sentence)
        fields = {"std": res.std, "ci": [res.ci[0], res.ci[1]]}
        return self._result(len(refs), res.score, fields, res.sentence_scores)
