"""ERRANT's parses equal spaCy's own with the faster attribute ruler (issue 43).

:mod:`geceval.metrics.errant.ruler` matches the model's attribute-ruler rules without spaCy's
``Matcher``; these tests hold every token's TAG, POS, MORPH, LEMMA, DEP and head, as
:func:`~geceval.metrics.errant.annotation.parse_lines` makes them, to ``nlp.pipe`` with the model's
own ``attribute_ruler`` on real lines (the CoNLL-14 source and system outputs, JFLEG), and check
that the faster ruler is the one in use.
"""

from __future__ import annotations

import pytest

from geceval.formats.text import read_lines
from geceval.metrics.errant import annotation
from geceval.metrics.errant.annotation import clear_caches, get_annotator, parse_lines
from geceval.metrics.errant.ruler import FastRuler, compile_ruler
from tests.shared_data import shared_path

pytest.importorskip("errant")


def _tokens(doc) -> list[tuple[str, str, str, str, str, int]]:
    return [(t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_, t.head.i) for t in doc]


def _assert_same_parses(lines: list[str]) -> int:
    from spacy.tokens import Doc

    nlp = get_annotator().nlp
    keys = list(dict.fromkeys(" ".join(line.split()) for line in lines if line.split()))
    clear_caches()
    ours = parse_lines(keys)
    theirs = nlp.pipe([Doc(nlp.vocab, words=k.split()) for k in keys], batch_size=annotation._BATCH)
    checked = 0
    for key, mine, own in zip(keys, ours, theirs, strict=True):
        assert _tokens(mine) == _tokens(own), key
        checked += 1
    return checked


def test_the_fast_ruler_is_in_use_and_compiles_every_rule_of_the_model() -> None:
    nlp = get_annotator().nlp
    ruler = nlp.get_pipe("attribute_ruler")
    assert isinstance(compile_ruler(ruler), FastRuler)
    assert [name for name, _ in annotation._PIPELINE] == nlp.pipe_names
    assert isinstance(dict(annotation._PIPELINE)["attribute_ruler"], FastRuler)
    # the model's rules use IN, NOT_IN, REGEX, IS_SPACE and a rule with two patterns
    kinds = {
        type(v).__name__ for rule in ruler.patterns for p in rule["patterns"] for t in p for v in t.values()
    }
    assert {"str", "dict", "bool"} <= kinds
    assert any(len(rule["patterns"]) > 1 for rule in ruler.patterns)


def test_a_rule_beyond_the_fast_ruler_leaves_spacys_in_use() -> None:
    from spacy.lang.en import English

    nlp = English()
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "a", "OP": "+"}]], {"LEMMA": "x"})
    assert compile_ruler(ruler) is None


@pytest.mark.parametrize("system", ["AMU", "CAMB", "CUUI", "IPN", "POST", "UMC"])
def test_parses_equal_spacys_on_conll14_system_outputs(system: str) -> None:
    folder = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    assert _assert_same_parses(read_lines(folder / system)[:400]) >= 390


def test_parses_equal_spacys_on_the_conll14_source_and_jfleg() -> None:
    conll = shared_path("gecmetrics", "data", "conll14st-test")
    jfleg = shared_path("jfleg", "test")
    lines = read_lines(conll / "conll14st-test.tok.src") + read_lines(jfleg / "test.src")
    lines += read_lines(jfleg / "test.ref0")
    assert _assert_same_parses(lines) == 2698  # distinct lines, every one checked
