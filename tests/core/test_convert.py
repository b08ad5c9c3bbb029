"""Text references to M2: ERRANT-typed and Levenshtein-aligned (dummy type)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Edit, format_m2
from geceval.formats.text import read_lines
from geceval.metrics.errant.scorer import errant_score, reference_set_from_m2
from geceval.metrics.references import LEVENSHTEIN_TYPE, levenshtein_edits, references_to_m2

FIX = Path(__file__).parent / "fixtures" / "errant"


def test_substitution_deletion_and_insertion_each_give_one_edit() -> None:
    assert levenshtein_edits(["he", "go", "home"], ["he", "goes", "home"]) == [(1, 2, ["goes"])]
    assert levenshtein_edits(["he", "go", "to", "home"], ["he", "go", "home"]) == [(2, 3, [])]
    assert levenshtein_edits(["he", "go", "home"], ["he", "go", "to", "home"]) == [(2, 2, ["to"])]


def test_adjacent_non_matches_merge_into_one_edit_and_matches_split_them() -> None:
    # sub + insertion side by side -> one edit; a match between two changes -> two edits.
    assert levenshtein_edits(["a", "b", "c", "d"], ["a", "x", "y", "c", "d"]) == [(1, 2, ["x", "y"])]
    assert levenshtein_edits(["a", "b", "c", "d", "e"], ["a", "x", "c", "y", "e"]) == [
        (1, 2, ["x"]),
        (3, 4, ["y"]),
    ]
    assert levenshtein_edits(["a", "b", "c", "d"], ["a", "b", "y", "z", "c", "d", "e"]) == [
        (2, 2, ["y", "z"]),
        (4, 4, ["e"]),
    ]


def test_empty_sides_and_identity() -> None:
    assert levenshtein_edits([], ["x", "y"]) == [(0, 0, ["x", "y"])]
    assert levenshtein_edits(["x", "y"], []) == [(0, 2, [])]
    assert levenshtein_edits(["a", "b"], ["a", "b"]) == []
    assert levenshtein_edits([], []) == []


def test_alignment_is_case_sensitive() -> None:
    assert levenshtein_edits(["The", "cat"], ["the", "cat"]) == [(0, 1, ["the"])]


def _apply(source: list[str], edits: list[tuple[int, int, list[str]]]) -> list[str]:
    out, pos = [], 0
    for start, end, tokens in edits:
        out += source[pos:start] + tokens
        pos = end
    return out + source[pos:]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=9),
    st.lists(st.sampled_from("abcde"), max_size=9),
)
def test_property_levenshtein_edits_rebuild_the_reference_and_are_separated(src, ref) -> None:  # type: ignore[no-untyped-def]
    edits = levenshtein_edits(src, ref)
    assert _apply(src, edits) == ref
    for (_, e1, _), (s2, _, _) in itertools.pairwise(edits):
        assert s2 > e1  # at least one matched token between two edits
    for s, e, tokens in edits:
        assert src[s:e] != tokens


def test_references_to_m2_levenshtein_gives_annotator_ids_noops_and_dummy_type() -> None:
    src = ["He go  home .", "Fine ."]
    refs = [["He goes home .", "Fine ."], ["He went home .", "Fine !"]]
    m2 = references_to_m2(src, refs, align="levenshtein")
    assert [s.source for s in m2] == ["He go home .", "Fine ."]
    assert m2[0].edits == [M2Edit(1, 2, "X", ("goes",), 0), M2Edit(1, 2, "X", ("went",), 1)]
    assert m2[1].edits == [M2Edit(-1, -1, "noop", ("",), 0), M2Edit(1, 2, "X", ("!",), 1)]
    assert LEVENSHTEIN_TYPE == "X"
    assert format_m2(m2).startswith("S He go home .\nA 1 2|||X|||goes|||REQUIRED|||-NONE-|||0\n")


def test_references_to_m2_levenshtein_deletion_is_empty_correction() -> None:
    m2 = references_to_m2(["a very big dog"], [["a big dog"]], align="levenshtein")
    assert "A 1 2|||X||||||REQUIRED|||-NONE-|||0" in format_m2(m2)


def test_references_to_m2_errant_is_the_errant_annotation() -> None:
    src = read_lines(FIX / "source.txt")
    refs = [read_lines(FIX / f"ref{i}.txt") for i in range(2)]
    assert format_m2(references_to_m2(src, refs)) == (FIX / "expected_refs.m2").read_text()


def test_references_to_m2_rejects_unknown_alignment_and_misaligned_references() -> None:
    with pytest.raises(ValueError, match="align must be one of"):
        references_to_m2(["a"], [["a"]], align="tercom")
    with pytest.raises(GecInputError, match="reference 1 has 1 lines but the source has 2"):
        references_to_m2(["a", "b"], [["a", "b"], ["a"]], align="levenshtein")


def test_errant_against_levenshtein_references_reports_the_dummy_category() -> None:
    src = read_lines(FIX / "source.txt")
    refs = [read_lines(FIX / f"ref{i}.txt") for i in range(2)]
    ref_set = reference_set_from_m2(references_to_m2(src, refs, align="levenshtein"))
    result = errant_score(ref_set, refs[0])
    # On these sentences ERRANT's spans coincide with the Levenshtein runs, so a hypothesis
    # equal to reference 0 matches every edit of annotator 0, all counted under "X".
    assert (result.fp, result.fn) == (0, 0)
    assert result.per_category["X"].tp == result.tp > 0
