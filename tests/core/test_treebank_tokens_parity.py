"""Parity of geceval's Treebank tokeniser (the I-measure converter's, ``geceval.formats.ixml``) with
NLTK's ``TreebankWordTokenizer``, the library ``m2_to_ixml.py`` runs on every correction. nltk is a
test requirement only (requirements-dev.txt), as ``trueskill`` is TrueSkill's oracle."""

from __future__ import annotations

import pytest
from nltk.tokenize import TreebankWordTokenizer

from geceval.formats.ixml import treebank_tokens
from geceval.formats.m2 import read_m2
from tests.shared_data import shared_path

TEXTS = [
    "known,the",
    "dilemma.",
    'He said, "I cannot go."',
    "U.S.A. is big; isn't it?",
    "It's the children's toys -- 'really' (not) [mine] {yours} <b>&amp;</b>",
    "Gonna wanna gimme lemme 'tis 'twas d'ye more'n",
    "$3.50 costs 10% ... who'd've thought?! ``quoted'' end",
    "",
    "   ",
    "a...b , c: d@e #f & g",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_port_splits_as_nltk_treebank(text):
    assert treebank_tokens(text) == TreebankWordTokenizer().tokenize(text)


@pytest.mark.shared
def test_every_correction_of_the_conll14_and_jfleg_gold_splits_as_nltk_does():
    nltk = TreebankWordTokenizer()
    corrections = set()
    for parts in (
        ("gecmetrics", "data", "conll14st-test", "conll14st-test.m2"),
        ("grammaticality-metrics", "references", "NUCLE.m2"),
    ):
        for sentence in read_m2(str(shared_path(*parts, required_in_ci=True))):
            corrections.update(c for e in sentence.edits if not e.is_noop for c in e.corrections if c)
    assert len(corrections) > 1000
    differ = [c for c in corrections if treebank_tokens(c) != nltk.tokenize(c)]
    assert differ == []
