"""GoToScorer (Gotou et al. 2020) on an example worked by hand in the comments."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from geceval.formats.m2 import M2Edit, M2Sentence, write_m2
from geceval.metrics.gotoscorer import (
    Chunk,
    cli_gotoscorer,
    gotoscorer,
    gotoscorer_sentences,
    outcome,
    reference_chunks,
)

SRC = "a b c"


def _sent(*edits: tuple[int, int, str]) -> M2Sentence:
    return M2Sentence(SRC, [M2Edit(s, e, "R:OTHER", (c,)) for s, e, c in edits])


# The reference (annotator 0) replaces b -> B and inserts d at the end:
GOLD = [_sent((1, 2, "B"), (3, 3, "d"))]
# S1 does both; S2 replaces b with X and inserts nothing; S3 changes nothing; S4 gets b -> B
# right but also changes c -> C.
SYSTEMS = [
    [_sent((1, 2, "B"), (3, 3, "d"))],
    [_sent((1, 2, "X"))],
    [_sent()],
    [_sent((1, 2, "B"), (2, 3, "C"))],
]


def test_chunks_are_edits_tokens_and_insertion_slots() -> None:
    # slot 0 | a | slot 1 | b->B | slot 2 | c | insert d (takes the place of slot 3)
    assert reference_chunks(SRC.split(), [(1, 2, "B"), (3, 3, "d")]) == [
        Chunk(0, 0, "", False),
        Chunk(0, 1, "a", False),
        Chunk(1, 1, "", False),
        Chunk(1, 2, "B", True),
        Chunk(2, 2, "", False),
        Chunk(2, 3, "c", False),
        Chunk(3, 3, "d", True),
    ]


def test_hand_worked_example() -> None:
    # Who is right on each chunk (4 systems), and the weight 1 - right/4:
    #   slots 0, 1, 2 and token a: nobody edits them, all 4 right   -> weight 0
    #   b->B:      S1 and S4 right (S2 wrong correction, S3 missed) -> 1 - 2/4 = 0.5
    #   token c:   S1, S2, S3 leave it (right), S4 changes it       -> 1 - 3/4 = 0.25
    #   insert d:  only S1                                          -> 1 - 1/4 = 0.75
    # S1: TP 0.5 + 0.75 = 1.25, nothing else: P = R = F = 1.
    # S2: b->X tried and wrong: FP 0.5 and (a reference edit) FN 0.5; c left alone: TN 0.25;
    #     d missed: FN 0.75. TP 0 -> P 0, R 0, F 0.
    # S3: TN 0.25 (c), FN 0.5 + 0.75 = 1.25; TP 0 and no TP+FP -> P 1, R 0, F 0.
    # S4: TP 0.5 (B), FP 0.25 (c -> C), FN 0.75 (d). P = 0.5/0.75 = 2/3, R = 0.5/1.25 = 2/5,
    #     F0.5 = 1.25 * (2/3)(2/5) / (0.25 * 2/3 + 2/5) = (1/3) / (17/30) = 10/17.
    s1, s2, s3, s4 = gotoscorer(GOLD, SYSTEMS)
    assert (s1.counts.tp, s1.counts.fp, s1.counts.fn, s1.f) == (1.25, 0.0, 0.0, 1.0)
    assert (s2.counts.tp, s2.counts.fp, s2.counts.fn, s2.counts.tn, s2.f) == (0.0, 0.5, 1.25, 0.25, 0.0)
    assert (s3.counts.fn, s3.counts.tn, s3.p, s3.r, s3.f) == (1.25, 0.25, 1.0, 0.0, 0.0)
    assert (s4.counts.tp, s4.counts.fp, s4.counts.fn) == (0.5, 0.25, 0.75)
    assert (s4.p, s4.r) == (pytest.approx(2 / 3), pytest.approx(2 / 5))
    assert s4.f == pytest.approx(10 / 17)
    # one sentence: the sentence scores are the corpus scores
    assert gotoscorer_sentences(GOLD, SYSTEMS) == [[1.0], [0.0], [0.0], [pytest.approx(10 / 17)]]


def test_the_weights_depend_on_the_systems_scored_together() -> None:
    # S4 alone: every chunk it gets right weighs 0 and every chunk it gets wrong weighs 1:
    # TP 0, FP 1 (c), FN 1 (d) -> F 0.
    (alone,) = gotoscorer(GOLD, [SYSTEMS[3]])
    assert (alone.counts.tp, alone.counts.fp, alone.counts.fn, alone.f) == (0.0, 1.0, 1.0, 0.0)


def test_partial_overlap_and_insertion_inside_count_as_tried_and_wrong() -> None:
    chunk = Chunk(1, 3, "B C", True)
    assert outcome(chunk, [(1, 2, "B")]) == (True, False)
    assert outcome(chunk, [(2, 2, "x")]) == (True, False)
    assert outcome(chunk, [(1, 1, "x")]) == (False, False)  # an insertion before it is another chunk's
    assert outcome(chunk, [(1, 3, "B C")]) == (True, True)
    assert outcome(Chunk(2, 2, "", False), [(1, 3, "B C")]) == (False, True)


def test_cli_scores_m2_hypotheses_as_one_set(tmp_path: Path) -> None:
    pytest.importorskip("errant")
    gold = tmp_path / "gold.m2"
    write_m2(gold, GOLD)
    hyps = []
    for i, system in enumerate(SYSTEMS, start=1):
        path = tmp_path / f"S{i}.m2"
        write_m2(path, system)
        hyps.append(str(path))
    args = argparse.Namespace(refs=[str(gold)], hyp=hyps, beta=None, source=None, align="errant")
    rows = cli_gotoscorer(args)
    assert [r["metric"] for r in rows] == ["gotoscorer"] * 4
    assert [r["score"] for r in rows] == [1.0, 0.0, 0.0, pytest.approx(10 / 17)]
    assert rows[0]["n_systems"] == 4
