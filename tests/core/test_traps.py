"""geceval.traps.hidden: the trap kinds, the checks a trap passes, and the sentence scorer's parity."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from geceval.metrics.gleu.plus import gleu_plus
from geceval.traps.hidden import (
    ADDED_CORRECTION,
    ADDED_ERROR,
    DEFAULT_MIN_DROP,
    MOVE_REACH,
    UNDONE_CORRECTION,
    SentenceScorer,
    careful_guards,
    edit_keys,
    errors_apart,
    half_of_a_move,
    kept_by,
    make_trap,
    normalise,
    reference_edit_check,
    reference_errors,
    source_trap,
    spelling_variant,
    tense_only,
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


def test_the_source_is_the_trap_of_a_corrected_base_only_when_worse():
    source = "He go to school yesterday ."
    refs = ["He went to school yesterday ."]
    trap = source_trap(refs[0], source, refs, min_drop=0.1)
    assert trap is not None and trap.text == source and trap.kind == UNDONE_CORRECTION
    assert source_trap(refs[0], source, refs, min_drop=0.99) is None
    assert source_trap(source, source, refs) is None  # nothing to undo
    # a base of several edits serves too (issue 41: looks with a source copy need the source as a
    # trap more often than one-edit bases give), one needless edit beside the correction
    two = "He went to the school yesterday ."
    trap = source_trap(two, source, refs, min_drop=0.1)
    assert trap is not None and trap.text == source and trap.base_quality - trap.quality >= 0.1
    # but never when what it undoes is optional: a reference keeps the learner's "go"
    assert source_trap(two, source, [*refs, "He go to the school yesterday ."], min_drop=0.0) is None


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
    assert reference_edit_check(base, "He went to school yesterdy .", ADDED_ERROR, source, refs)
    # an error right beside the base's correction "went" may show as one edit with it (h50)
    assert not reference_edit_check(base, "He went too school yesterday .", ADDED_ERROR, source, refs)


def test_the_edit_level_rule_takes_an_added_error_only_apart_from_the_bases_corrections():
    """Issue 41 (h50): an added error leaves every edit of its base whole and keeps at least a word away
    from it (more than ``MOVE_REACH`` words when they share a word: ERRANT reads a comma the base
    deleted and the error put back two words on as one moved comma), else the screen may show one edit
    that is part correction, part error."""
    source = "So many people in the crowds , that the mood was great ."
    refs = ["There were so many people in the crowds that the mood was great ."]
    base = refs[0]

    def check(trap: str) -> bool:
        return reference_edit_check(base, trap, ADDED_ERROR, source, refs)

    assert check("There were so many people in the crowds that the mood were great .")  # apart
    assert not check("There were so many people on the crowds that the , mood was great .")  # a comma back
    assert not check("There was so many people in the crowds that the mood was great .")  # over "were"
    assert not check("There were so many people in the crowds that that the mood was great .")  # touching
    assert not check("So many people in the crowds that the mood were great .")  # takes a correction back
    base_edits, trap_edits = edit_keys(source, base), edit_keys(source, refs[0].replace("mood", "mod"))
    assert errors_apart(source, base_edits, trap_edits) and MOVE_REACH == 2


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
    # one correction made, one missed; made at the end, as an added error right beside it is refused (h50)
    base = "He go to school yesterday and he liked it ."
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


def test_a_tense_only_correction_is_a_finite_verb_moved_between_tenses_that_agrees_with_its_subject():
    """Sentences the real judges of Napoles et al. (2015) met (CoNLL-14 test lines 1091, 1023) and
    GMEG dev FCE's: either tense makes a sentence of its own, so undoing the correction makes no
    trap (``careful_guards``); a verb that is not finite or does not agree stays one."""

    def tense(source: str, text: str) -> bool:
        (edit,) = edit_keys(source, text)
        return tense_only(source, edit)

    assert tense("Online friends become real life friends .", "Online friends became real life friends .")
    assert tense("People around the world could easily share .", "People around the world can easily share .")
    assert tense(
        "I would be glad if you consider my suggestions .",
        "I would be glad if you considered my suggestions .",
    )
    assert tense("She has a son .", "She had a son .")
    assert not tense("He go to school yesterday .", "He went to school yesterday .")  # "He go": agreement
    assert not tense("Online friends becomes real friends .", "Online friends became real friends .")
    assert not tense("He let the fish went .", "He let the fish go .")  # "went" after "let": not finite
    assert not tense("I like the social media .", "I like social media .")  # not a verb at all
    refs = ["Online friends became real life friends ."]
    source, base = "Online friends become real life friends .", refs[0]
    assert not careful_guards(base, source, UNDONE_CORRECTION, source, refs)
    source = "He go to school yesterday ."
    assert careful_guards(
        "He went to school yesterday .", source, UNDONE_CORRECTION, source, ["He went to school yesterday ."]
    )


FCE_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer")


def _faults(base: str, trap: str, kind: str, source: str, refs: list[str]) -> set[str]:
    """What a careful reader may rightly object to in a trap (h40's three faults of the edit-level
    rule, and an added "error" that only respells), each named; empty for a sound trap."""
    faults = set()
    if any(spelling_variant(base, edit) for edit in edit_keys(base, trap)):
        faults.add("respells")
    if kind == UNDONE_CORRECTION or edit_keys(source, trap) <= edit_keys(source, base):  # takes back
        if half_of_a_move(source, base, trap):
            faults.add("half of a move")
        made = set().union(*(edit_keys(source, r) for r in refs))
        why_not = [  # why each correction it takes back is not one every careful reader asks for
            {
                name
                for name, why in (
                    ("optional", any(kept_by(source, r, {e}) for r in refs)),
                    ("respells", spelling_variant(source, e)),
                    ("no reference makes it", e not in made),
                )
                if why
            }
            for e in edit_keys(source, base) - edit_keys(source, trap)
        ]
        if all(why_not):  # it takes back none that is
            faults |= set().union(*why_not)
    return faults


@pytest.mark.slow
def test_gleu_s_rule_no_longer_takes_traps_a_careful_reader_rightly_fails_on_gmeg_dev_fce():
    """Issue 41: h40 found, by the edit-level rule, three kinds of trap that careful workers rightly
    fail (half of a move undone, a correction some reference leaves undone, a British spelling put
    back); PRWS and ranking traps (GLEU+'s rule alone) were made of the same drafts. On GMEG dev FCE
    (every system output as a base, default drop) GLEU+ alone takes many such undone corrections;
    ``make_trap`` and ``source_trap`` now take none, of either kind, and still make traps."""
    fce = shared_path("GMEG", "data", "dev", "fce")
    sources = _lines(fce / "source")
    references = [_lines(fce / f"ref{i}") for i in range(4)]
    systems = [_lines(fce / name) for name in FCE_SYSTEMS]
    before, after, made = Counter(), Counter(), Counter()
    for i, source in enumerate(sources):
        refs = [r[i] for r in references]
        score = SentenceScorer(source, refs)
        for k, system in enumerate(systems):
            base = system[i]
            if not word_edits(source, base):
                continue
            quality = score(base)
            # GLEU+'s rule alone, as PRWS and ranking took undone corrections (and the source) before
            for text in {*undone_corrections(base, source, random.Random(0)), normalise(source)}:
                if quality - score(text) >= DEFAULT_MIN_DROP:
                    before.update(_faults(base, text, UNDONE_CORRECTION, source, refs))
            for kind in (ADDED_ERROR, UNDONE_CORRECTION):
                trap = make_trap(base, source, refs, seed=f"h46:{i}:{k}", kinds=(kind,))
                if trap is not None:
                    made[kind] += 1
                    after.update(f"{kind}: {x}" for x in _faults(base, trap.text, kind, source, refs))
            trap = source_trap(base, source, refs)
            if trap is not None:
                made["source"] += 1
                after.update(f"source: {x}" for x in _faults(base, trap.text, trap.kind, source, refs))
    assert before["optional"] >= 20 and before["respells"] >= 5 and before["half of a move"] >= 5, before
    assert not after, after
    assert min(made.values()) >= 100, made


def test_no_trap_only_respells_a_word_of_its_base_the_other_side_of_the_atlantic_s_way():
    """GMEG dev FCE line 73: every reference writes "theater" for the learner's "theatre". Neither an
    added "error" nor an undone correction that only puts "theatre" back is a trap, in any protocol: a
    careful reader may rightly rank the two level. A misspelling there still is."""
    fce = shared_path("GMEG", "data", "dev", "fce")
    source = _lines(fce / "source")[72]
    refs = [_lines(fce / f"ref{i}")[72] for i in range(4)]
    assert "theatre" in source and all("theater" in r for r in refs)
    base = refs[0]
    back = base.replace("theater", "theatre")
    assert not careful_guards(base, back, ADDED_ERROR, source, refs)
    assert not careful_guards(base, back, UNDONE_CORRECTION, source, refs)
    assert careful_guards(base, base.replace("theater", "theatr"), ADDED_ERROR, source, refs)
    for k in range(20):
        trap = make_trap(base, source, refs, seed=f"t{k}", min_drop=0.05)
        assert trap is None or "theatre" not in trap.text, trap


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


def test_an_added_correction_keeps_clear_of_every_edit_another_candidate_makes():
    """CI (2026-11-27), GMEG dev FCE: the word-level aligner reads "cassual" -> "casual clothes" as
    one edit, so "casual" alone looked lone; the screen shows ERRANT's edits, which split it, and a
    worker who calls lone edits bad passed the trap that added "casual". Another candidate's edit
    over or next to the span now rules the correction out, whatever the aligner."""
    from geceval.traps.hidden import agreed_corrections

    source = "I think you can wear very cassual at the party ."
    refs = ["I think you can wear very casual at the party ."] * 2 + [
        "I think you can wear very casual clothes at the party ."
    ]
    base = "I think , you can wear very cassual at the party ."
    assert agreed_corrections(source, refs, base) == [(6, 7, ("casual",))]
    for other in (
        "I think you can wear very casual clothes at the party .",
        "I think you can wear cassual at the party .",
    ):
        assert agreed_corrections(source, refs, base, [other]) == []
    assert agreed_corrections(source, refs, base, ["I think you can wear very cassual at a party ."]) == [
        (6, 7, ("casual",))
    ]


def test_the_room_for_an_added_correction_is_the_one_text_that_makes_it_or_any_when_none_does():
    """Where the references are judged, a correction most of them make is on the screen already; a
    trap copy has room for it only by displacing the one text that makes it (issue 41: drawn at
    random, few pairs did)."""
    from geceval.traps.hidden import correction_room

    base = "He went to school yesterday and he like it ."
    liked = "He go to school yesterday and he liked it ."
    plain = "He go to the school yesterday and he like it ."
    # only ``liked`` (index 1) makes "liked": displace it, and nothing else
    assert correction_room(ADDED_SOURCE, ADDED_REFS, [base, liked, plain], 0) == {1}
    # two texts make it: no displacement leaves it lone
    assert correction_room(ADDED_SOURCE, ADDED_REFS, [base, liked, plain, ADDED_REFS[0]], 0) == set()
    # none does: any other candidate
    assert correction_room(ADDED_SOURCE, ADDED_REFS, [plain, base, ADDED_SOURCE], 1) == {0, 2}
    # a base that makes every agreed correction has none to add
    assert correction_room(ADDED_SOURCE, ADDED_REFS, [ADDED_REFS[0], base], 0) == set()
    # the trap may be the displaced text itself (a natural added correction): the planner drafts it
    # avoiding only the texts the copy keeps
    trap = make_trap(
        base, ADDED_SOURCE, ADDED_REFS, seed="c", kinds=(ADDED_CORRECTION,), avoid=[base], shown=[base]
    )
    assert trap is not None and trap.text == ADDED_REFS[0]


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
