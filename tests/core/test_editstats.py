"""Edit statistics: % unchanged, LD, sTER, annotator agreement, ERRANT type distribution."""

from __future__ import annotations

from pathlib import Path

import pytest

from geceval.errors import GecInputError
from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.metaeval.edit_stats import (
    char_ld,
    edit_stats,
    error_type_distribution,
    pair_stats,
    pct_unchanged,
    rewrite_type_distribution,
    ster,
    ter_x100,
    word_ld,
)
from tests.shared_data import shared_path

FIX = Path(__file__).parent / "fixtures" / "errant"


def test_distances_by_hand() -> None:
    assert char_ld("kitten", "sitting") == 3
    assert word_ld("the cat sat", "a cat sat down") == 2
    # sTER (Sakaguchi et al. 2016): edits per sentence, not per token; case-insensitive as tercom
    assert ster("a b c d", "a c d b") == 1.0  # one shift
    assert (
        ster("a b c d e f g h", "a b x d e f g") == 2.0
    )  # a substitution and a deletion, whatever the length
    assert ster("a b c", "A b c") == 0.0
    assert ster("a b c", "a b c") == 0.0
    # TER x 100: edits per 100 reference tokens, case-sensitive
    assert ter_x100("a b c d", "a c d b") == pytest.approx(25.0)
    assert ter_x100("a b c", "A b c") == pytest.approx(100 / 3)
    assert ter_x100("a b c", "a b c") == 0.0


def test_edit_stats_strip_lines_and_average_over_all_sentences() -> None:
    source = ["The cat sit .", "  Hello world .", "A b"]
    rewrites = ["The cat sits .", "Hello world . ", "A b c d"]
    stats = edit_stats(source, rewrites)
    assert (stats.n, stats.n_unchanged) == (3, 1)
    assert stats.pct_unchanged == pytest.approx(100 / 3)
    assert stats.mean_char_ld == pytest.approx((1 + 0 + 4) / 3)
    assert stats.mean_word_ld == pytest.approx((1 + 0 + 2) / 3)
    assert stats.mean_ster == pytest.approx((1 + 0 + 2) / 3)  # edits per sentence
    assert stats.mean_ter_x100 == pytest.approx((25.0 + 0 + 100.0) / 3)  # edits per 100 source tokens
    assert edit_stats(source, rewrites, with_ster=False).mean_ster is None
    assert edit_stats(source, rewrites, with_ster=False).mean_ter_x100 is None
    skipped = edit_stats(source, rewrites, skip={2})
    assert (skipped.n, skipped.mean_ster, skipped.mean_ter_x100) == (2, 0.5, 12.5)
    assert pct_unchanged(source, rewrites) == pytest.approx(100 / 3)


def test_pair_stats_identical_and_ster_of_b_against_a() -> None:
    a = ["x y z", "p q", "same"]
    b = ["x y", "p q ", "same"]
    stats = pair_stats(a, b)
    assert (stats.n, stats.n_identical) == (3, 2)
    assert stats.pct_identical == pytest.approx(200 / 3)
    assert stats.mean_ster == pytest.approx(1 / 3)  # one deletion in three sentences
    assert stats.mean_ter_x100 == pytest.approx((100 / 3) / 3)
    assert pair_stats(a, b, skip={0}).mean_ster == 0.0


def test_misaligned_rewrites_are_rejected() -> None:
    with pytest.raises(GecInputError, match="1 lines against 2"):
        edit_stats(["a", "b"], ["a"])
    with pytest.raises(GecInputError, match="1 lines against 2"):
        pair_stats(["a", "b"], ["a"])


def test_empty_inputs_give_zero_counts() -> None:
    assert edit_stats([], []).n == 0
    assert pair_stats([], []).pct_identical == 0.0


def test_error_type_distribution_counts_all_annotators_without_noops() -> None:
    m2 = read_m2(FIX / "ref.m2")
    assert list(error_type_distribution(m2)) == [
        "M:DET",
        "R:VERB:SVA",
        "R:VERB:TENSE",
        "M:ADV",
        "R:NOUN:INFL",
        "UNK",
    ]
    assert error_type_distribution(m2) == {
        "M:DET": 2,
        "R:VERB:SVA": 2,
        "R:VERB:TENSE": 2,
        "M:ADV": 1,
        "R:NOUN:INFL": 1,
        "UNK": 1,
    }
    assert error_type_distribution(m2, main=True) == {
        "DET": 2,
        "VERB:SVA": 2,
        "VERB:TENSE": 2,
        "ADV": 1,
        "NOUN:INFL": 1,
        "UNK": 1,
    }


def test_rewrite_type_distribution_uses_errant() -> None:
    source = read_lines(FIX / "source.txt")
    ref0 = read_lines(FIX / "ref0.txt")
    # Ordered by count, then type (fixture M2 of ref0: see fixtures/errant/expected_refs.m2).
    assert list(rewrite_type_distribution(source, ref0, main=True).items()) == [
        ("NOUN:NUM", 2),
        ("VERB:SVA", 2),
        ("DET", 1),
        ("PREP", 1),
        ("VERB:INFL", 1),
    ]


# REFERENCE_FIGURES "GMEG dev": sentences left unchanged (stripped line equal to the source).
GMEG_UNCHANGED = {
    "fce": {
        "amu": 60.7,
        "lstm": 34.7,
        "lstm-r": 30.7,
        "marian": 38.8,
        "nus": 50.7,
        "transformer": 26.8,
        "source+error": 0.0,
        "ref0": 17.0,
        "ref1": 20.5,
        "ref2": 22.9,
        "ref3": 27.9,
    },
    "wiki": {
        "amu": 70.5,
        "lstm": 41.1,
        "lstm-r": 35.6,
        "marian": 64.6,
        "nus": 66.3,
        "transformer": 15.9,
        "source+error": 0.1,
        "ref0": 19.0,
        "ref1": 17.6,
        "ref2": 19.1,
        "ref3": 24.5,
    },
}


@pytest.mark.shared
@pytest.mark.parametrize("corpus", ["fce", "wiki"])
def test_gmeg_dev_percent_unchanged_reproduces_reference(corpus: str) -> None:
    folder = shared_path("GMEG", "data", "dev", corpus)
    source = read_lines(folder / "source")
    got = {
        name: round(pct_unchanged(source, read_lines(folder / name)), 1) for name in GMEG_UNCHANGED[corpus]
    }
    assert got == GMEG_UNCHANGED[corpus]


@pytest.mark.shared
def test_gmeg_fce_amu_edit_stats_agree_with_percent_unchanged() -> None:
    folder = shared_path("GMEG", "data", "dev", "fce")
    stats = edit_stats(read_lines(folder / "source"), read_lines(folder / "amu"))
    assert (stats.n, stats.n_unchanged) == (968, 588)
    assert round(stats.pct_unchanged, 1) == 60.7
    assert stats.mean_char_ld > 0 and stats.mean_ster is not None and stats.mean_ster > 0
