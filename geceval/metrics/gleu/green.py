"""GLEU as gec-metrics computes it (``score gleu --variant gec-metrics``).

gec-metrics (gotutiyan/gec-metrics, PyPI ``gec-metrics`` 0.1.1, 2025), the library behind recent
meta-evaluations, offers two GLEUs: ``GLEUOfficial``, which reproduces the official script run with
Python 3 (our ``jfleg-py3``), and its default ``GLEU``, written through the GREEN reformulation
(INLG 2024, ACL Anthology 2024.inlg-main.25). The default one corrects what its authors call an error of the official
code: the source n-grams missing from the reference (S\\R) are counted *with* their frequencies.
Per hypothesis n-gram with counts h, s, r in hypothesis, source and reference it credits
``min(h, r) - max(min(s, h) - r, 0)`` where the official code credits ``min(h, r)`` when r > 0 and
``-min(h, s)`` otherwise, and it never clips a sentence's total at 0. Everything else is the
official recipe: one reference per sentence per iteration, drawn by Python 3's ``random.seed(j*101)``
and ``randint``, 500 iterations, precision over ``|h| - n + 1``, BLEU's brevity term, the plain
mean of the iteration scores.

This module is written from that description (its code is not copied); its numbers are pinned by
the library's own test case (tests/core/test_gleu_variants.py). Tokens are ``text.strip().split(" ")``
and lengths ``len(text.split(" "))``, as the library reads them (the same as ``split()`` on
single-spaced, tokenised text; an empty line has length 1 and no n-grams).

On the CoNLL-14 official outputs with the two official references it scores 1.5-3.7 GLEU points
below the official script (docs/metric-versions.md), the most for outputs close to the source (the
source itself: 57.32 -> 53.65); on JFLEG test the source falls from 40.54 to 18.62.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from geceval.metrics.gleu.plus import DEFAULT_ITERATIONS, GLEU_ORDER, check_lengths, sampled_reference_indices


def _grams(text: str, order: int) -> Counter:
    text = text.strip()
    if not text:
        return Counter()
    words = text.split(" ")
    return Counter(tuple(words[i : i + n]) for n in range(1, order + 1) for i in range(len(words) - n + 1))


def green_gleu_stats(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    order: int = GLEU_ORDER,
) -> np.ndarray:
    """Per sentence and reference ``[|h|, |r|, tp_1, hyp n-grams_1, ..., tp_order, hyp n-grams_order]``
    (int64, shape ``(n_sentences, k, 2 + 2·order)``); ``tp`` may be negative."""
    n_sent = check_lengths(source, references, hypothesis)
    out = np.zeros((n_sent, len(references), 2 + 2 * order), dtype=np.int64)
    cache: dict[str, Counter] = {}

    def grams(text: str) -> Counter:
        if text not in cache:
            cache[text] = _grams(text, order)
        return cache[text]

    for i in range(n_sent):
        src, hyp = grams(source[i]), grams(hypothesis[i])
        for k, ref_set in enumerate(references):
            ref = grams(ref_set[i])
            row = [len(hypothesis[i].split(" ")), len(ref_set[i].split(" "))] + [0] * (2 * order)
            for gram, h in hyp.items():
                r, s = ref.get(gram, 0), src.get(gram, 0)
                at = 2 * len(gram)
                row[at] += min(h, r) - max(min(s, h) - r, 0)
                row[at + 1] += h
            out[i, k] = row
    return out


def _score(sums: Sequence[int]) -> float:
    hyp_len, ref_len = sums[0], sums[1]
    logs = []
    for tp, total in zip(sums[2::2], sums[3::2], strict=True):
        precision = 1.0 if tp == total else tp / total  # the library: no false positive -> 1.0
        if precision <= 0:
            return 0.0
        logs.append(math.log(precision))
    return math.exp(min(0.0, 1 - ref_len / hyp_len) + sum(logs) / len(logs))


def green_gleu(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    *,
    iterations: int = DEFAULT_ITERATIONS,
) -> float:
    """The corpus score: the mean over ``iterations`` rounds of the round's GLEU (see the module)."""
    stats = green_gleu_stats(source, references, hypothesis)
    n_sent, k, dims = stats.shape
    chosen = sampled_reference_indices(iterations, n_sent, k, "py3") + np.arange(n_sent, dtype=np.int64) * k
    flat = stats.reshape(n_sent * k, dims)
    scores = [_score(flat[row].sum(axis=0).tolist()) for row in chosen]
    return sum(scores) / len(scores)
