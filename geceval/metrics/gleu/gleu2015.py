"""GLEU 2015 (Napoles et al. 2015, "Ground truth for grammatical error correction metrics")
with the penalty weight λ of its later revision; see :func:`gleu2015`.

Tokens and n-gram counts are GLEU+'s (:mod:`geceval.metrics.gleu.plus`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from geceval.metrics.base import Metric, MetricScore, Parameter
from geceval.metrics.gleu.plus import (
    GLEU_ORDER,
    check_lengths,
    clipped_matches,
    gleu_inputs,
    ngram_counts,
    read_cli_hypothesis,
    read_cli_inputs,
    tokenize,
)

DENOMINATORS = ("fixed", "acl2015")
"""``fixed``: ``|h ∧ R\\S| + max(0, |h| - n + 1)``, the 10 March 2016 fix in cnap/gec-ranking;
``acl2015``: ``|R\\S| + max(0, |h| - n + 1)`` (all reference-only n-grams, whether or not the
hypothesis has them), the code the ACL 2015 paper's numbers came from (kept there as a comment,
"the original, erroneous way to calculate the denominator")."""


def _gleu2015_sentence_stats(
    s_line: str,
    r_lines: Sequence[str],
    h_line: str,
    lam: float,
    order: int = GLEU_ORDER,
    denominator: str = "fixed",
) -> list[float]:
    h_units = tokenize(h_line)
    s_units = tokenize(s_line)
    r_units = [tokenize(r) for r in r_lines]
    h_len = len(h_units)
    # Closest reference length; min() keeps the first on ties.
    r_len = min((len(r) for r in r_units), key=lambda n: abs(n - h_len))
    stats: list[float] = [h_len, r_len]
    for n in range(1, order + 1):
        h = ngram_counts(h_units, n)
        s = ngram_counts(s_units, n)
        merged: Counter = Counter()
        for r in r_units:
            merged |= ngram_counts(r, n)  # highest count over the references
        r_not_s = Counter({g: c for g, c in merged.items() if g not in s})
        s_not_r = Counter({g: c for g, c in s.items() if g not in merged})
        h_r_not_s = clipped_matches(h, r_not_s)
        stats.append(h_r_not_s + max(0, clipped_matches(h, merged) - lam * clipped_matches(h, s_not_r)))
        extra = h_r_not_s if denominator == "fixed" else sum(r_not_s.values())
        stats.append(extra + max(0, h_len - n + 1))
    return stats


def _gleu2015_score(stats: Sequence[float]) -> float:
    if any(s == 0 for s in stats):
        return 0.0
    c, r = float(stats[0]), float(stats[1])
    order = (len(stats) - 2) // 2
    log_prec = sum(math.log(float(x) / y) for x, y in zip(stats[2::2], stats[3::2], strict=True)) / order
    # Inverted brevity term, as in the 2015 code: 1 - c/r penalises a hypothesis LONGER than the reference.
    return math.exp(min(0.0, 1 - c / r) + log_prec)


def gleu2015_stats(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    lam: float = 0.0,
    denominator: str = "fixed",
) -> np.ndarray:
    """Per-sentence GLEU 2015 statistics, float array ``(n_sentences, 10)``."""
    if denominator not in DENOMINATORS:
        raise ValueError(f"denominator must be one of {', '.join(DENOMINATORS)}")
    n = check_lengths(source, references, hypothesis)
    rows = [
        _gleu2015_sentence_stats(
            source[i], [ref[i] for ref in references], hypothesis[i], lam, denominator=denominator
        )
        for i in range(n)
    ]
    return np.array(rows, dtype=np.float64).reshape(n, 2 + 2 * GLEU_ORDER)


def gleu2015(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    lam: float = 0.0,
    denominator: str = "fixed",
) -> float:
    """GLEU as in Napoles et al. (2015), with the penalty weight λ of its later revision.

    The references are merged (each n-gram's highest count over them).
    With ``R\\S`` the merged reference n-grams absent from the source and
    ``S\\R`` the source n-grams absent from every reference:
    ``num_n = |h ∧ R\\S| + max(0, |h ∧ R| - λ·|h ∧ S\\R|)`` and
    ``den_n = |h ∧ R\\S| + max(0, |h| - n + 1)``. The reference length is
    the reference closest in length to h (the first on ties). Statistics are
    summed over the corpus; the score is 0 if any sum is 0, else
    ``exp(min(0, 1 - c/r) + ¼ Σ log(num_n/den_n))``.

    NOTE the brevity term is inverted compared with BLEU (``1 - c/r``, not
    ``1 - r/c``): it penalises a hypothesis longer than the reference and
    never a shorter one. The reference code does this and the published
    numbers depend on it, so we reproduce it. ``denominator="acl2015"`` is
    the code before the 10 March 2016 fix (:data:`DENOMINATORS`).
    """
    sums = gleu2015_stats(source, references, hypothesis, lam=lam, denominator=denominator).sum(axis=0)
    return _gleu2015_score(sums.tolist())


def gleu2015_sentence_scores(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    lam: float = 0.0,
) -> list[float]:
    """Sentence-level GLEU 2015: one sentence's statistics scored with every 0 replaced by 1.

    The 2015 tool reports corpus scores only; this smoothing is GLEU+'s
    sentence-level convention, applied here so both have a sentence view.
    """
    stats = gleu2015_stats(source, references, hypothesis, lam=lam)
    return [_gleu2015_score([s if s != 0 else 1 for s in row]) for row in stats.tolist()]


def cli_gleu2015(args: Any) -> list[dict]:
    """``score gleu2015 [--lambda L]``: GLEU 2015 per hypothesis file (+ sentences)."""
    source, refs, _ = read_cli_inputs(args, "gleu2015")
    lam = float(GLEU2015.of_args(args).options["lam"])
    out: list[dict[str, Any]] = []
    for path in args.hyp:
        hyp = read_cli_hypothesis(args, path, source)
        row: dict[str, Any] = {
            "hyp": path,
            "metric": "gleu2015",
            "score": gleu2015(source, refs, hyp, lam=lam),
            "lambda": lam,
        }
        if getattr(args, "sentence", False):
            row["sentences"] = gleu2015_sentence_scores(source, refs, hyp, lam=lam)
        out.append(row)
    return out


class GLEU2015(Metric):
    """GLEU 2015 (Napoles et al. 2015) with the penalty weight ``lam`` of its revision."""

    name = "gleu2015"
    parameters = (Parameter("lam", 0.0, "gleu2015 penalty weight", flag="--lambda", label="lambda"),)
    file_adapter = cli_gleu2015

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        src, refs, hyp = gleu_inputs(self.name, source, references, hypotheses)
        lam = float(self.options["lam"])
        sentences = gleu2015_sentence_scores(src, refs, hyp, lam=lam) if sentence else None
        return self._result(len(refs), gleu2015(src, refs, hyp, lam=lam), {"lambda": lam}, sentences)
