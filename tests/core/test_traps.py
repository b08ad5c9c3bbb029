"""geceval.traps.hidden: the trap kinds, the checks a trap passes, and the sentence scorer's parity."""

from __future__ import annotations

import random

import pytest

from geceval.metrics.gleu.plus import gleu_plus
from geceval.traps.hidden import (
    ADDED_CORRECTION,
    ADDED_ERROR,
    UNDONE_CORRECTION,
    SentenceScorer,
    make_trap,
    reference_edit_check,
    reference_errors,
    source_trap,
    undone_corrections,
    word_edits,
)
from tests.shared_data import shared_path


def _lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_sentence_scorer_equals_the_corpus_scorer_per_sentence():
    """The plain-Python scorer against gleu_plus(sentence=True) on JFLEG dev: the sources, their
    4 references, and each reference scored as a hypothesis against the others."""
    jfleg = shared_path("jfleg", "dev")
    sources = _lines(jfleg / "dev.src")[:300]
    refs = [_lines(jfleg / f"dev.ref{i}")[:300] for i in range(4)]
    for hyp in (sources, refs[0], [s.replace(" ", "  ") + " é" for s in sources]):
        expected = gleu_plus(sources, refs, hyp, sentence=True, iterations=1).sentence_scores
        got = [SentenceScorer(s, [r[i] for r in refs])(h) for i, (s, h) in enumerate(zip(sources, hyp))]
        assert got == pytest.approx(expected, abs=1e-12)


def test_an_undone_correction_reverts_one_edit():
    source = "He go to school yesterday and he like it ."
    base = "He went to school yesterday and he liked it ."
    assert len(word_edits(source, base)) == 2
    undone = undone_corrections(base, source, random.Random(1))
    assert sorted(undone) == sorted(
        ["He go to school yesterday and he liked it .", "He went to school yesterday and he like it ."]
    )
    assert undone_corrections(source, source, random.Random(1)) == []


def test_a_trap_differs_from_its_base_the_source_and_the_avoided_texts():
    source = "He go to school yesterday and he like it ."
    base = "He went to school yesterday and he liked it ."
    other = "He go to school yesterday and he liked it ."
    for k in range(40):
        trap = make_trap(base, source, seed=f"s{k}", avoid=[other])
        assert trap is not None and trap.quality is None
        assert trap.text not in {base, source, other}
        assert trap.kind in (ADDED_ERROR, UNDONE_CORRECTION)
    kinds = {make_trap(base, source, seed=f"s{k}").kind for k in range(40)}
    assert kinds == {ADDED_ERROR, UNDONE_CORRECTION}
    with pytest.raises(ValueError):
        make_trap(base, source, seed="x", kinds=("typo",))


def test_with_references_a_trap_loses_at_least_the_drop_or_is_not_made():
    source = "He go to school yesterday ."
    refs = ["He went to school yesterday .", "He went to the school yesterday ."]
    score = SentenceScorer(source, refs)
    base = refs[0]
    for k in range(30):
        trap = make_trap(base, source, refs, seed=f"r{k}", min_drop=0.25)
        if trap is not None:
            assert score(trap.text) <= score(base) - 0.25
            assert trap.quality == pytest.approx(score(trap.text))
    assert make_trap(base, source, refs, seed="r", min_drop=1.0) is None


def test_the_source_is_the_trap_of_a_one_edit_base_only_when_worse():
    source = "He go to school yesterday ."
    refs = ["He went to school yesterday ."]
    trap = source_trap(refs[0], source, refs, min_drop=0.1)
    assert trap is not None and trap.text == source and trap.kind == UNDONE_CORRECTION
    assert source_trap("He went to the school today .", source, refs) is None  # more than one edit
    assert source_trap(refs[0], source, refs, min_drop=0.99) is None


def test_reference_errors_count_needless_wrong_and_missed_edits_against_the_closest_reference():
    source = "He go to school yesterday ."
    refs = ["He went to school yesterday .", "He went to the school yesterday ."]
    assert reference_errors(source, refs, refs[0]) == 0
    assert reference_errors(source, refs, source) == 1  # the missed "go -> went"
    assert reference_errors(source, refs, "He goes to school today .") == 3  # wrong, missed, needless


def test_the_edit_level_rule_refuses_an_added_error_a_reference_or_another_base_makes():
    source = "He go to school yesterday ."
    refs = ["He went to school yesterday .", "He went to the school yesterday ."]
    base = "He went to school yesterday ."
    # "the" is a reference's edit: a careful reader of the references marks it good
    assert not reference_edit_check(base, "He went to the school yesterday .", ADDED_ERROR, source, refs)
    # an edit another candidate of the sentence makes is no added error either
    other = "He went to school today ."
    assert not reference_edit_check(base, other, ADDED_ERROR, source, refs, bases=[other])
    assert reference_edit_check(base, "He went too school yesterday .", ADDED_ERROR, source, refs)


def test_the_edit_level_rule_takes_an_undone_correction_only_when_a_reference_makes_it():
    source = "He go to school yesterday ."
    refs = ["He went to school yesterday ."]
    assert reference_edit_check("He went to school yesterday .", source, UNDONE_CORRECTION, source, refs)
    # "today" is no reference's correction: undoing it makes the text no worse by the references
    base = "He went to school today ."
    assert not reference_edit_check(base, "He went to school yesterday .", UNDONE_CORRECTION, source, refs)


def test_with_the_edit_level_rule_every_trap_is_worse_by_the_references_edits():
    source = "He go to school yesterday and he like it ."
    refs = ["He went to school yesterday and he liked it .", "He went to school yesterday and liked it ."]
    base = "He went to school yesterday and he like it ."
    made = 0
    for k in range(40):
        trap = make_trap(base, source, refs, seed=f"e{k}", min_drop=0.1, reference_edits=True)
        if trap is None:
            continue
        made += 1
        assert reference_errors(source, refs, trap.text) > reference_errors(source, refs, base)
        assert reference_edit_check(base, trap.text, trap.kind, source, refs)
    assert made >= 20


def test_half_of_a_move_is_an_insertion_or_deletion_the_base_pairs_with_the_other_kind():
    """Issue 41: undoing one half of a move leaves the old words beside the new (or drops both)."""
    from geceval.traps.hidden import half_of_a_move

    source = "There are ways of behaviour to make more fun of it ."
    base = "There are ways to make it more fun ."  # "it" moved: an insertion and a deletion sharing it
    assert half_of_a_move(source, base, "There are ways to make it more fun of it .")
    assert half_of_a_move(source, base, "There are ways to make more fun .")
    assert not half_of_a_move(source, base, "There are ways of behaviour to make it more fun .")
    source, base = (
        "Famous people diserve also to have a private life .",
        "Famous people also deserve to have a private life .",
    )
    assert half_of_a_move(source, base, "Famous people diserve also deserve to have a private life .")
    assert not half_of_a_move("He go to school .", "He went to school .", "He go to school .")
    assert not half_of_a_move(source, base, "Somebody else entirely .")  # not the base with one edit undone


def test_kept_by_a_reference_that_leaves_the_source_s_words_where_the_correction_changes_them():
    from geceval.traps.hidden import kept_by

    source = "He go to school yesterday ."
    assert kept_by(source, "He go to school today .", {(1, 2, ("went",))})  # "go" left as it is
    assert not kept_by(source, "He went to school .", {(1, 2, ("went",))})
    assert not kept_by(source, "He has gone to school .", {(1, 2, ("went",))})
    assert kept_by(source, "He go to the school yesterday .", {(2, 2, ("really",))})  # nothing put there
    assert not kept_by(source, "He go really to school yesterday .", {(2, 2, ("really",))})


def test_a_spelling_variant_is_a_respelling_the_british_or_american_way():
    from geceval.traps.hidden import spelling_variant

    source = "I went to the theatre with my favourite colour and we were travelling , it was closed ."
    for i, word in ((4, "theater"), (7, "favorite"), (8, "color"), (12, "traveling")):
        assert spelling_variant(source, (i, i + 1, (word,)))
    assert not spelling_variant(source, (4, 5, ("cinema",)))
    assert not spelling_variant(source, (16, 17, ("close",)))  # a correction, not a respelling
    assert not spelling_variant(source, (4, 5, ("theatre",)))  # no change
    assert not spelling_variant(source, (4, 5, ()))  # a deletion


ADDED_SOURCE = "He go to school yesterday and he like it ."
ADDED_REFS = [
    "He went to school yesterday and he liked it .",
    "He went to school yesterday and he liked it .",
    "He went to the school yesterday and he liked it .",
]


def test_an_added_correction_is_one_edit_most_references_make_and_no_other_candidate_makes():
    """Issue 41's positive control: the base with one correction more than half of the references
    make and no candidate of the screen makes (a lone edit on the screen), better than the base."""
    from geceval.traps.hidden import agreed_corrections

    base = "He went to school yesterday and he like it ."
    # "went" the base makes already; "the" one reference of three makes: not agreed
    assert agreed_corrections(ADDED_SOURCE, ADDED_REFS, base) == [(7, 8, ("liked",))]
    trap = make_trap(base, ADDED_SOURCE, ADDED_REFS, seed="c", kinds=(ADDED_CORRECTION,))
    assert trap is not None and trap.kind == ADDED_CORRECTION
    assert trap.text == "He went to school yesterday and he liked it ."
    assert trap.quality > trap.base_quality
    assert reference_errors(ADDED_SOURCE, ADDED_REFS, trap.text) < reference_errors(
        ADDED_SOURCE, ADDED_REFS, base
    )
    assert reference_edit_check(base, trap.text, ADDED_CORRECTION, ADDED_SOURCE, ADDED_REFS)
    # another candidate of the screen makes it: not a lone edit, no trap
    other = "He go to school yesterday and he liked it ."
    assert (
        make_trap(base, ADDED_SOURCE, ADDED_REFS, seed="c", kinds=(ADDED_CORRECTION,), avoid=[other]) is None
    )
    assert not reference_edit_check(
        base, trap.text, ADDED_CORRECTION, ADDED_SOURCE, ADDED_REFS, bases=[other]
    )
    # ... unless that candidate is the one the trap displaces: lone among the texts the copy keeps
    kept = make_trap(
        base, ADDED_SOURCE, ADDED_REFS, seed="c", kinds=(ADDED_CORRECTION,), avoid=[base, other], shown=[base]
    )
    assert kept is not None and kept.text == trap.text
    # nothing says what a correction is without references
    assert make_trap(base, ADDED_SOURCE, seed="c", kinds=(ADDED_CORRECTION,)) is None


def test_the_edit_level_rule_refuses_an_added_correction_of_a_minority_or_of_two_edits():
    base = "He went to school yesterday and he like it ."
    one_reference = "He went to the school yesterday and he like it ."
    assert not reference_edit_check(base, one_reference, ADDED_CORRECTION, ADDED_SOURCE, ADDED_REFS)
    two = "He went to the school yesterday and he liked it ."
    assert not reference_edit_check(base, two, ADDED_CORRECTION, ADDED_SOURCE, ADDED_REFS)
    assert not reference_edit_check(base, ADDED_SOURCE, ADDED_CORRECTION, ADDED_SOURCE, ADDED_REFS)


def test_an_added_correction_never_touches_the_base_s_edits_nor_respells_nor_moves():
    from geceval.traps.hidden import agreed_corrections

    source = "She go to the theatre with her friends alot ."
    refs = ["She goes to the theater with her friends a lot ."] * 3
    # "goes" overlaps the base's "went"; "theater" only respells; "a lot" is a correction
    assert agreed_corrections(source, refs, "She went to the theatre with her friends alot .") == [
        (8, 9, ("a", "lot"))
    ]
    # "a lot" right after the base's "pals": no room, it would touch the base's edit
    assert agreed_corrections(source, refs, "She went to the theatre with her pals alot .") == []
    moved = "There are ways of behaviour to make more fun of it ."
    refs = ["There are ways to make it more fun ."] * 3  # "it" moved: half of it alone drops or doubles it
    assert agreed_corrections(moved, refs, moved) == [(3, 5, ())]
