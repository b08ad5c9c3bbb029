"""GLEU+'s statistics in plain Python (issue 22): counts, draws and iteration sums, each checked for
exact equality against a plain or numpy computation."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geceval.metrics.gleu.counts import pair_statistics
from geceval.metrics.gleu.sampling import drawn_indices, iteration_totals
from tests.core.test_gleu import plain_pair_stats

REPO = Path(__file__).resolve().parents[2]

_word = st.sampled_from(["a", "b", "c", "d", "e"])
_sentence = st.lists(_word, min_size=0, max_size=9).map(" ".join)


@st.composite
def _corpora_with_copies(draw):
    """Hypotheses that are often the source or one of the references (the shortcuts' cases)."""
    n = draw(st.integers(1, 6))
    k = draw(st.integers(1, 4))
    src = draw(st.lists(_sentence, min_size=n, max_size=n))
    refs = [draw(st.lists(_sentence, min_size=n, max_size=n)) for _ in range(k)]
    hyp = []
    for i in range(n):
        choice = draw(st.integers(0, 2))
        hyp.append(draw(_sentence) if choice == 0 else src[i] if choice == 1 else refs[0][i])
    return src, refs, hyp


@settings(max_examples=200, deadline=None)
@given(_corpora_with_copies())
def test_pair_statistics_equal_plain_counter_statistics(corpus):
    src, refs, hyp = corpus
    for unit, order in (("word", 4), ("char", 5)):
        plain = [
            [plain_pair_stats(src[i], refs[r][i], hyp[i], order, unit) for r in range(len(refs))]
            for i in range(len(src))
        ]
        assert pair_statistics(src, refs, hyp, order, unit) == plain


def test_pair_statistics_clip_repeated_ngrams_by_reference_and_source_counts():
    # h has "a" x3 and "a a" x2; the reference has one "a", the source two "a a".
    stats = pair_statistics(["a a a b"], [["a c"]], ["a a a"], 2, "word")
    assert stats == [[plain_pair_stats("a a a b", "a c", "a a a", 2)]]
    assert stats[0][0][2] == 1  # unigrams: min(3, 1) matched


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 8, 16, 300])
def test_drawn_indices_replay_python2_randint(k):
    for n in (0, 1, 7, 100):
        for j in (0, 1, 17):
            rng = random.Random(j * 101)
            assert list(drawn_indices(j, n, k)) == [int(rng.random() * k) for _ in range(n)]


def test_py3_draws_are_python3_randint():
    rng = random.Random(5 * 101)
    assert list(drawn_indices(5, 20, 4, "py3")) == [rng.randint(0, 3) for _ in range(20)]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("iterations", [1, 3, 20, 300])
@pytest.mark.parametrize("draws", ["py2", "py3"])
def test_iteration_totals_equal_summing_the_drawn_rows(k, iterations, draws):
    rnd = random.Random(k * 1000 + iterations)
    n, dims = 23, 6
    stats = [[[rnd.randint(0, 300) for _ in range(dims)] for _ in range(k)] for _ in range(n)]
    got = iteration_totals(stats, iterations, dims, draws)
    expected = []
    for j in range(iterations):
        idx = drawn_indices(j, n, k, draws)
        expected.append([sum(stats[i][idx[i]][d] for i in range(n)) for d in range(dims)])
    assert got == expected


@pytest.mark.parametrize("largest", [0, 1, 255, 70000, 2**40, 2**70])
def test_iteration_totals_keep_fields_apart_whatever_their_size(largest):
    rnd = random.Random(largest)
    stats = [[[rnd.choice([0, largest]) for _ in range(3)] for _ in range(4)] for _ in range(9)]
    got = iteration_totals(stats, 300, 3)
    for j in (0, 7, 299):
        idx = drawn_indices(j, 9, 4)
        assert got[j] == [sum(stats[i][idx[i]][d] for i in range(9)) for d in range(3)]


def test_iteration_totals_of_no_sentences_are_zero():
    assert iteration_totals([], 3, 4) == [[0, 0, 0, 0]] * 3
