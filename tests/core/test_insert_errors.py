"""Source+error trap inserter: guarantees (hypothesis), each rule on hand-written sentences, the CLI."""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geceval.errors import GecInputError
from geceval.formats.text import read_lines
from geceval.traps.inserter import (
    ERROR_TYPES,
    InsertedEdit,
    TrapResult,
    insert_errors,
    insert_errors_lines,
    line_seed,
)
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]

_WORDS = [
    "I",
    "you",
    "he",
    "she",
    "it",
    "we",
    "they",
    "the",
    "a",
    "an",
    "my",
    "this",
    "these",
    "many",
    "two",
    "people",
    "friend",
    "friends",
    "book",
    "books",
    "is",
    "are",
    "was",
    "were",
    "has",
    "have",
    "do",
    "does",
    "will",
    "can",
    "to",
    "go",
    "goes",
    "went",
    "gone",
    "going",
    "like",
    "likes",
    "liked",
    "in",
    "on",
    "at",
    "of",
    "for",
    "with",
    "from",
    "very",
    "nice",
    "information",
    "child",
    "children",
    ",",
    ".",
    "!",
    "?",
    ";",
    ":",
    '"',
    "'",
    "n't",
    "'s",
]

sentences_of_words = st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join)
any_text = st.text(max_size=40)
punctuation_only = st.text(alphabet=string.punctuation + " \t", max_size=12)
one_letter = st.characters(blacklist_categories=("Cs",))
untokenised = st.lists(
    st.tuples(st.sampled_from(_WORDS[:40]), st.sampled_from(["", "", ",", ".", "!", "?", '"'])),
    min_size=1,
    max_size=10,
).map(lambda ws: " ".join(w + p for w, p in ws))
seeds = st.one_of(st.integers(min_value=-(2**40), max_value=2**40), st.text(max_size=8))
all_sentences = st.one_of(sentences_of_words, any_text, punctuation_only, one_letter, untokenised)


def replay_edits(source: str, result: TrapResult) -> tuple[list[str], list[str]]:
    """(output rebuilt from the source and the edits, source rebuilt from the output and the edits)."""
    src, out = source.split(), result.text.split()
    forward, backward = [], []
    si = oi = 0
    for e in result.edits:
        assert e.start >= oi and e.end >= e.start
        gap = e.start - oi
        forward += src[si : si + gap]
        backward += out[oi : e.start]
        si += gap
        original = e.original.split()
        assert src[si : si + len(original)] == original
        assert out[e.start : e.end] == e.inserted.split()
        forward += e.inserted.split()
        backward += original
        si += len(original)
        oi = e.end
    forward += src[si:]
    backward += out[oi:]
    return forward, backward


def check_result(source: str, result: TrapResult, n_errors: int | None = None) -> None:
    assert result.text != source
    assert " ".join(result.text.split()) != " ".join(source.split())
    assert result.text == " ".join(result.text.split())
    assert 1 <= len(result.edits) <= (n_errors or 2)
    assert all(e.type in ERROR_TYPES for e in result.edits)
    for a, b in zip(result.edits, result.edits[1:]):
        assert a.end < b.start, "edits are sorted and never touch"
    forward, backward = replay_edits(source, result)
    assert forward == result.text.split()
    assert backward == source.split()


# --------------------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(sentence=all_sentences, seed=seeds)
def test_never_returns_the_source_and_edits_replay_exactly(sentence, seed):
    check_result(sentence, insert_errors(sentence, seed=seed))


@settings(max_examples=150, deadline=None)
@given(
    sentence=all_sentences,
    seed=st.integers(0, 10**6),
    n_errors=st.sampled_from([1, 2]),
    types=st.lists(st.sampled_from(ERROR_TYPES), min_size=1, max_size=3, unique=True),
)
def test_restricted_types_still_never_identity_and_use_only_those_types_or_spell(
    sentence, seed, n_errors, types
):
    result = insert_errors(sentence, seed=seed, n_errors=n_errors, types=types)
    check_result(sentence, result, n_errors)
    if sentence.strip():
        assert {e.type for e in result.edits} <= {*types, "SPELL"}


@settings(max_examples=100, deadline=None)
@given(sentence=all_sentences, seed=seeds)
def test_same_seed_and_sentence_give_the_same_trap(sentence, seed):
    assert insert_errors(sentence, seed=seed) == insert_errors(sentence, seed=seed)


@settings(max_examples=60, deadline=None)
@given(lines=st.lists(all_sentences, min_size=2, max_size=6), other=all_sentences, seed=st.integers(0, 99))
def test_a_line_trap_depends_only_on_seed_index_and_its_own_text(lines, other, seed):
    results = insert_errors_lines(lines, seed=seed)
    assert results == [insert_errors(s, seed=line_seed(seed, i)) for i, s in enumerate(lines)]
    changed = [other, *lines[1:]]
    assert insert_errors_lines(changed, seed=seed)[1:] == results[1:]


def test_int_and_string_seeds_with_the_same_digits_are_the_same_seed():
    s = "Anna prepared the cake and Peter organized the music ."
    assert insert_errors(s, seed=5) == insert_errors(s, seed="5")
    assert line_seed(5, 3) == "5/3"


def test_different_seeds_give_different_traps_on_a_rich_sentence():
    s = "At first , there are now a lot of things that most people use at home ."
    assert len({insert_errors(s, seed=k).text for k in range(40)}) > 30


def test_two_errors_on_a_rich_sentence_are_two_different_types():
    s = "I think we should go to the cinema with my friends on Friday ."
    for k in range(30):
        result = insert_errors(s, seed=k, n_errors=2)
        check_result(s, result, 2)
        assert len(result.edits) == 2
        assert result.edits[0].type != result.edits[1].type


# --------------------------------------------------------------------------- edge lines


@pytest.mark.parametrize("line", ["", "   ", "\t \u00a0"])
def test_empty_or_whitespace_line_becomes_a_single_period(line):
    assert insert_errors(line, seed=1) == TrapResult(".", [InsertedEdit("PUNCT", 0, 1, "", ".")])


def test_one_letter_line_gets_its_character_doubled():
    assert insert_errors("a", seed=0) == TrapResult("aa", [InsertedEdit("SPELL", 0, 1, "a", "aa")])
    assert insert_errors("!", seed=0) == TrapResult("!!", [InsertedEdit("SPELL", 0, 1, "!", "!!")])


def test_no_applicable_rule_falls_back_to_a_spelling_edit():
    result = insert_errors("Hello", seed=3, types=["PREP"])
    assert [e.type for e in result.edits] == ["SPELL"]
    assert result.edits[0].original == "Hello"
    assert _one_char_edit("Hello", result.text)


def test_whitespace_is_normalised_in_the_output():
    result = insert_errors("  The   weather  is nice \t today .  ", seed=0, types=["VERB:SVA"])
    assert result.text == "The weather are nice today ."


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="unknown error types"):
        insert_errors("a b", seed=0, types=["NOPE"])
    with pytest.raises(ValueError, match="n_errors"):
        insert_errors("a b", seed=0, n_errors=3)


# --------------------------------------------------------------------------- rules


def _outputs(sentence: str, type_: str, seeds: int = 60) -> set[str]:
    texts = set()
    for k in range(seeds):
        result = insert_errors(sentence, seed=k, n_errors=1, types=[type_])
        check_result(sentence, result, 1)
        assert [e.type for e in result.edits] == [type_]
        texts.add(result.text)
    return texts


def _one_char_edit(a: str, b: str) -> bool:
    if len(a) == len(b):
        diff = [k for k in range(len(a)) if a[k] != b[k]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]])
    short, long_ = sorted((a, b), key=len)
    return len(long_) == len(short) + 1 and any(
        long_[:k] + long_[k + 1 :] == short for k in range(len(long_))
    )


def test_sva_swaps_be_forms():
    assert _outputs("The weather is nice today .", "VERB:SVA") == {"The weather are nice today ."}
    assert _outputs("They were happy", "VERB:SVA") == {"They was happy"}
    assert _outputs("I am late", "VERB:SVA") == {"I is late"}
    assert _outputs("He does n't know", "VERB:SVA") == {"He do n't know"}
    assert _outputs("She doesn't care", "VERB:SVA") == {"She don't care"}


def test_sva_adds_and_removes_third_person_s_after_pronouns_and_nouns():
    assert _outputs("She likes music", "VERB:SVA") == {"She like music"}
    assert _outputs("They play football", "VERB:SVA") == {"They plays football"}
    assert _outputs("The children study hard", "VERB:SVA") == {"The children studies hard"}
    assert _outputs("My friend goes home", "VERB:SVA") == {"My friend go home"}
    assert _outputs("We have time", "VERB:SVA") == {"We has time"}


def test_sva_leaves_have_after_to_and_modals_alone():
    result = insert_errors("to have and will do", seed=0, n_errors=1, types=["VERB:SVA"])
    assert result.edits[0].type == "SPELL"


def test_det_a_an_swap_or_deletion():
    assert _outputs("I ate an apple", "DET") == {"I ate a apple", "I ate apple"}


def test_det_deletion_at_sentence_start_moves_the_capital():
    assert _outputs("The cat sleeps .", "DET") == {"Cat sleeps ."}
    result = insert_errors("The cat sleeps .", seed=0, types=["DET"], n_errors=1)
    assert result.edits == [InsertedEdit("DET", 0, 1, "The cat", "Cat")]


def test_det_inserts_a_before_plural_and_the_before_possessive():
    assert _outputs("I like dogs", "DET") == {"I like a dogs"}
    assert _outputs("Apples grow", "DET") == {"An apples grow"}
    result = insert_errors("I lost my keys", seed=0, n_errors=1, types=["DET"])
    assert result.text in {"I lost the my keys"}
    assert result.edits == [InsertedEdit("DET", 2, 3, "", "the")]


def test_det_does_not_delete_the_before_a_plural_noun():
    result = insert_errors("the books", seed=0, n_errors=1, types=["DET"])
    assert result.edits[0].type == "SPELL"


def test_prep_swaps_for_every_other_preposition_keeping_case_and_punctuation():
    outs = _outputs("We met in Paris", "PREP", seeds=200)
    assert outs == {
        f"We met {p} Paris" for p in ("on", "at", "of", "for", "to", "with", "from", "by", "about", "into")
    }
    assert _outputs("In (the) end", "PREP", seeds=200) >= {"On (the) end", "At (the) end"}


def test_verb_form_after_modal_to_and_do_support():
    assert _outputs("I will go home", "VERB:FORM") == {
        "I will goes home",
        "I will went home",
        "I will going home",
    }
    assert _outputs("to take", "VERB:FORM") == {"to takes", "to took"}
    assert _outputs("did not see", "VERB:FORM") == {"did not sees", "did not saw", "did not seeing"}


def test_verb_form_after_be_have_and_subject():
    assert _outputs("She is going", "VERB:FORM") == {"She is go", "She is goes"}
    assert _outputs("It was taken", "VERB:FORM") == {"It was take", "It was took"}
    assert _outputs("They have gone", "VERB:FORM") == {
        "They have go",
        "They have going",
        "They have went",
        "They having gone",
    }
    assert _outputs("I went", "VERB:FORM") == {"I going", "I gone"}
    assert _outputs("We stopped", "VERB:FORM") == {"We stopping"}


def test_noun_number_in_agreement_contexts_and_uncountables():
    assert _outputs("I have a friend", "NOUN:NUM") == {"I have a friends"}
    assert _outputs("These books are old", "NOUN:NUM") == {"These book are old"}
    assert _outputs("The child is here", "NOUN:NUM") == {"The children is here"}
    assert _outputs("Thanks for the information .", "NOUN:NUM") == {"Thanks for the informations ."}
    result = insert_errors("I like books", seed=0, n_errors=1, types=["NOUN:NUM"])
    assert result.edits[0].type == "SPELL"


def test_word_order_swaps_adjacent_words_and_keeps_punctuation_in_place():
    assert _outputs("I like green tea", "WO") == {"I green like tea", "I like tea green"}
    assert _outputs("He said: go home.", "WO") == {"He go: said home.", "He said: home go."}


def test_spelling_edit_is_one_character_operation_inside_a_long_word():
    outs = _outputs("on elephant", "SPELL", seeds=200)
    assert all(o.startswith("on ") and _one_char_edit("elephant", o[3:]) for o in outs)
    ops = Counter()
    for o in outs:
        word = o[3:]
        if len(word) == 7:
            ops["delete"] += 1
        elif len(word) == 9:
            ops["duplicate"] += 1
        elif sorted(word) == sorted("elephant"):
            ops["transpose"] += 1
        else:
            ops["substitute"] += 1
    assert set(ops) == {"delete", "duplicate", "transpose", "substitute"}


def test_spelling_edit_keeps_the_attached_punctuation_and_capitals():
    for text in _outputs('"Hello!"', "SPELL", seeds=100):
        assert text.startswith('"') and text.endswith('!"')
        assert _one_char_edit("Hello", text[1:-2])


def test_punctuation_drops_final_period_and_inserts_comma_after_function_word():
    assert _outputs("I am here .", "PUNCT") == {"I am here", "I , am here ."}
    assert _outputs("I am here.", "PUNCT") == {"I am here", "I, am here."}


def test_punctuation_drops_a_comma():
    assert _outputs("Yes , she can swim", "PUNCT") == {
        "Yes she can swim",
        "Yes , she , can swim",
        "Yes , she can , swim",
    }
    assert _outputs("Well, nothing", "PUNCT") == {"Well nothing"}


# --------------------------------------------------------------------------- command line


def _cli(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "geceval", "insert-errors", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        env=env,
        check=False,
    )


SAMPLE = [
    "I have just received your letter .",
    "",
    "He goes to school every day.",
    "a",
    "Thank you a lot for your kind letter .",
]


def test_cli_json_writes_one_object_per_line_matching_the_api(tmp_path):
    path = tmp_path / "src.txt"
    path.write_text("\n".join(SAMPLE) + "\n", encoding="utf-8")
    proc = _cli(str(path), "--seed", "7", "--json", env_extra={"PYTHONHASHSEED": "123"})
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    expected = [r.to_dict() for r in insert_errors_lines(SAMPLE, seed=7)]
    assert rows == expected
    for row, src in zip(rows, SAMPLE):
        assert set(row) == {"text", "edits"}
        assert all(set(e) == {"type", "start", "end", "original", "inserted"} for e in row["edits"])
        assert " ".join(row["text"].split()) != " ".join(src.split())
    assert rows[1] == {
        "text": ".",
        "edits": [{"type": "PUNCT", "start": 0, "end": 1, "original": "", "inserted": "."}],
    }

    plain = _cli(str(path), "--seed", "7", env_extra={"PYTHONHASHSEED": "999"})
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines() == [r["text"] for r in rows]


def test_cli_types_and_errors_options(tmp_path):
    path = tmp_path / "src.txt"
    path.write_text("The weather is nice today .\n", encoding="utf-8")
    proc = _cli(str(path), "--seed", "1", "--json", "--types", "VERB:SVA", "--errors", "1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "text": "The weather are nice today .",
        "edits": [{"type": "VERB:SVA", "start": 2, "end": 3, "original": "is", "inserted": "are"}],
    }
    bad = _cli(str(path), "--seed", "1", "--types", "NOPE")
    assert bad.returncode == 2 and "unknown type" in bad.stderr


def test_cli_bad_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nalso fine\nbroken \xff here\n")
    proc = _cli(str(path), "--seed", "1")
    assert proc.returncode == 2
    assert f"{path}:3: not valid UTF-8" in proc.stderr
    with pytest.raises(GecInputError) as info:
        read_lines(path)
    assert info.value.line == 3


def test_cli_empty_file_prints_nothing(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    proc = _cli(str(path), "--seed", "1")
    assert proc.returncode == 0 and proc.stdout == ""


# --------------------------------------------------------------------------- GMEG FCE dev


# Seed-0 type counts on GMEG dev/fce/source: a change to a word list or rule shows up here.
FCE_SEED0_TYPES = {
    "SPELL": 263,
    "PUNCT": 251,
    "WO": 234,
    "PREP": 187,
    "DET": 174,
    "VERB:SVA": 162,
    "VERB:FORM": 150,
    "NOUN:NUM": 48,
}


def test_gmeg_fce_dev_source_every_line_altered_and_every_type_used():
    lines = read_lines(shared_path("GMEG", "data", "dev", "fce", "source"))
    results = insert_errors_lines(lines, seed=0)
    assert len(results) == len(lines) == 968
    for line, result in zip(lines, results):
        check_result(line, result)
    counts = Counter(e.type for r in results for e in r.edits)
    print("insert-errors type distribution on GMEG dev/fce (seed 0):", dict(counts.most_common()))
    assert set(counts) == set(ERROR_TYPES)
    assert dict(counts) == FCE_SEED0_TYPES
