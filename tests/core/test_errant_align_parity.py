"""geceval's ERRANT alignment equals errant 3.0.2's own, cell for cell (issue 43).

:mod:`geceval.metrics.errant.align` re-runs ``errant.alignment.Alignment.align`` on token attributes
read once; these tests hold its cost and operation matrices, and the typed edits errant's merger and
classifier make from them, to errant's own on real system outputs (CoNLL-14, JFLEG) and on token
sequences built to hit transpositions, case-only changes and ties.
"""

from __future__ import annotations

import random

import pytest

from geceval.formats.text import read_lines
from geceval.metrics.errant import align
from geceval.metrics.errant.annotation import get_annotator, parse_lines
from tests.shared_data import shared_path

pytest.importorskip("errant")


def _errant_own(orig, cor):
    from errant.alignment import Alignment

    return Alignment(orig, cor)


def _edits(edits) -> list[tuple[int, int, int, int, str]]:
    return [(e.o_start, e.o_end, e.c_start, e.c_end, e.type) for e in edits]


def _assert_same(pairs: list[tuple[str, str]]) -> int:
    annotator = get_annotator()
    docs = parse_lines([line for pair in pairs for line in pair])
    checked = 0
    for n in range(0, len(docs), 2):
        orig, cor = docs[n], docs[n + 1]
        theirs = _errant_own(orig, cor)
        cost, ops = align.alignment_matrices(orig, cor)
        assert cost == theirs.cost_matrix, pairs[n // 2]
        assert ops == theirs.op_matrix, pairs[n // 2]
        assert align.alignment(orig, cor).align_seq == theirs.align_seq
        ours = _edits(align.annotate(annotator, orig, cor))
        assert ours == _edits(annotator.annotate(orig, cor)), pairs[n // 2]
        checked += 1
    return checked


def _changed(source: list[str], output: list[str], limit: int) -> list[tuple[str, str]]:
    pairs = [(s, o) for s, o in zip(source, output) if " ".join(s.split()) != " ".join(o.split())]
    return pairs[:limit]


@pytest.mark.parametrize("system", ["AMU", "CAMB", "CUUI", "POST", "UMC"])
def test_alignment_equals_errant_on_conll14_system_outputs(system: str) -> None:
    source = read_lines(shared_path("gecmetrics", "data", "conll14st-test", "conll14st-test.tok.src"))
    folder = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    output = read_lines(folder / system)
    assert _assert_same(_changed(source, output, 120)) == 120


def test_alignment_equals_errant_on_conll14_references() -> None:
    conll = shared_path("gecmetrics", "data", "conll14st-test")
    source = read_lines(conll / "conll14st-test.tok.src")
    for i in (0, 1):
        reference = read_lines(conll / "refs" / f"conll14st-test.tok.trg{i}")
        assert _assert_same(_changed(source, reference, 100)) == 100


def test_alignment_equals_errant_on_jfleg_spellchecked_source_and_references() -> None:
    jfleg = shared_path("jfleg", "test")
    source = read_lines(jfleg / "test.src")
    for other in ("test.spellchecked.src", "test.ref0", "test.ref1"):
        assert _assert_same(_changed(source, read_lines(jfleg / other), 100)) == 100


def test_alignment_equals_errant_on_transpositions_case_and_ties() -> None:
    words = [
        "the",
        "a",
        "cat",
        "Cat",
        "sat",
        "on",
        "mat",
        "The",
        "ran",
        "quickly",
        "quick",
        "runs",
        "run",
        ",",
        ".",
        "is",
        "are",
        "be",
        "was",
    ]
    rng = random.Random(43)
    pairs = [
        ("I saw the cat on the mat .", "I saw on the mat the cat ."),  # transposition of a span
        ("He quickly ran home .", "He ran quickly home ."),
        ("the The THE the", "The the the THE"),  # case-only substitutions (cost 0)
        ("a b c d", "d c b a"),
        ("", "Hello ."),
    ]
    for _ in range(150):
        orig = [rng.choice(words) for _ in range(rng.randint(1, 12))]
        cor = list(orig)
        for _ in range(rng.randint(1, 4)):
            move = rng.randrange(4)
            at = rng.randrange(len(cor) + 1)
            if move == 0:
                cor.insert(at, rng.choice(words))
            elif move == 1 and len(cor) > 1:
                del cor[min(at, len(cor) - 1)]
            elif move == 2 and len(cor) > 1:
                a = min(at, len(cor) - 2)
                cor[a], cor[a + 1] = cor[a + 1], cor[a]
            elif cor:
                cor[min(at, len(cor) - 1)] = rng.choice(words)
        pairs.append((" ".join(orig), " ".join(cor)))
    pairs = [(o, c) for o, c in pairs if o.strip() and c.strip()]
    assert _assert_same(pairs) == len(pairs)
