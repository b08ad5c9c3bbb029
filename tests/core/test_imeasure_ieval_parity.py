"""I-measure against ieval.py's own output on the cases where our first reading differed from it.

The benchmark (bench/bench_shared_task.py) found full CoNLL-14 AMU ``-nomix`` at detection TP/TN/FP
624/27348/748 for ours and 620/27350/752 for ieval.py. Two causes, read from the tool's code:

* the 3-way alignment cost sums the three pairwise costs unweighted (``align.py``), where we counted the
  hypothesis-reference pair twice (CoNLL-14 sentences 659 and 1266; fixture sentences 1 and 2);
* ``candgen.py`` skips a correction that would delete the whole sentence ("WORKAROUND FOR NUCLE",
  sentences 24, 538, 574; fixture sentence 3), where we produced an empty reference.

Fixture sentence 4 pins ``compute_i``: system and baseline both perfect give I = 100, not 0; sentence 5
``compare_scores``: two references tie on correction WAcc, I and Acc, and the tool keeps the one with the
better detection WAcc (we kept the first).
The expected figures are ieval.py's printed rows, stored with the command that produced them in
``fixtures/imeasure/ieval_parity.ieval.txt``; the sentences are made up (no shared data).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from geceval.formats.ixml import ICorrection, read_ixml
from geceval.formats.text import read_lines
from geceval.metrics.imeasure import align as imeasure_align
from geceval.metrics.imeasure.align import align3, count_columns
from geceval.metrics.imeasure.scorer import apply_corrections, candidate_references, imeasure
from tests.shared_data import shared_path

FIX = Path(__file__).parent / "fixtures" / "imeasure"


def _ieval_rows() -> dict[tuple[str, str], list[float]]:
    """(sentence id or 'Detection'/'Correction', aspect) -> TP TN FP FN FPN P R F1 Acc Acc_b WAcc WAcc_b I."""
    rows = {}
    for line in (FIX / "ieval_parity.ieval.txt").read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 15 and parts[1] in ("Det", "Cor"):
            rows[parts[0], parts[1]] = [float(x) for x in parts[2:]]
        elif len(parts) == 14 and parts[0] in ("Detection", "Correction"):
            rows[parts[0], parts[0][:3]] = [float(x) for x in parts[1:]]
    return rows


def _ours(scores) -> list[float]:
    d = scores.as_dict()
    rates = (d["p"], d["r"], d["f"], d["acc"], d["wacc"], d["baseline_wacc"], d["i"])
    return [d["tp"], d["tn"], d["fp"], d["fn"], d["fpn"], *(round(x, 2) for x in rates)]


def _drop_acc_b(row: list[float]) -> list[float]:
    return row[:9] + row[10:]  # Acc_b: the baseline's Acc, which IScores does not carry


@pytest.fixture(scope="module")
def result():
    hyps = read_lines(FIX / "ieval_parity.hyp")
    return imeasure(hyps, read_ixml(FIX / "ieval_parity.xml"), mix=False, beta=1.0)


def test_the_stored_ieval_output_has_every_sentence_and_the_totals():
    rows = _ieval_rows()
    assert {sid for sid, _a in rows} == {"1", "2", "3", "4", "5", "Detection", "Correction"}


@pytest.mark.parametrize("sid", ["1", "2", "3", "4", "5"])
def test_each_sentence_counts_and_scores_equal_ieval(result, sid):
    rows = _ieval_rows()
    cor, det = result.sentences[int(sid) - 1].scores(beta=1.0)
    assert _ours(cor) == _drop_acc_b(rows[sid, "Cor"])
    assert _ours(det) == _drop_acc_b(rows[sid, "Det"])


def test_corpus_counts_and_scores_equal_ieval(result):
    rows = _ieval_rows()
    assert _ours(result.correction) == _drop_acc_b(rows["Correction", "Cor"])
    assert _ours(result.detection) == _drop_acc_b(rows["Detection", "Det"])


def test_alignment_weights_the_three_pairs_equally():
    # sentence 1: weighting hypothesis-reference twice aligns 'the' with 'cats' (one FPN column)
    cols = align3(["the", "cats"], ["the"], ["cats", "sleep"])
    assert cols == [("the", "the", None), ("cats", None, "cats"), (None, None, "sleep")]


def test_columns_of_sentence_2_are_two_fp_and_one_fn():
    src, hyp, ref = ["dogs", "bark"], ["loud", "dogs"], ["bark"]
    path = imeasure_align.align_many([(src, hyp, ref)])[0]
    corr, det = count_columns(src, hyp, ref, path)
    assert corr == (0, 0, 2, 1, 0) and det == (0, 0, 2, 1, 0)


def test_a_correction_deleting_the_whole_sentence_is_skipped():
    toks = ["Thanks", "for", "reading", "."]
    assert apply_corrections(toks, [ICorrection(0, 4, "")]) == toks
    # the deletion that would empty what is left is skipped; the others still apply (right to left)
    assert apply_corrections(toks, [ICorrection(3, 4, "!"), ICorrection(0, 4, "")]) == [*toks[:3], "!"]
    assert apply_corrections(toks, [ICorrection(0, 2, ""), ICorrection(2, 4, "")]) == toks[:2]
    gold = read_ixml(FIX / "ieval_parity.xml")
    assert candidate_references(gold[2], mix=False) == [toks]


def test_a_tie_on_correction_goes_to_the_better_detection_not_to_the_first_reference(result):
    gold = read_ixml(FIX / "ieval_parity.xml")[4]
    assert candidate_references(gold, mix=False) == [["c", "c"], ["a", "c", "b"]]
    assert result.sentences[4].reference == ["a", "c", "b"]


def test_corrections_of_one_span_are_joined_in_order():
    toks = ["a", "b", "c"]
    two_insertions = [ICorrection(1, 1, "x"), ICorrection(1, 1, "y")]
    assert apply_corrections(toks, two_insertions) == ["a", "x", "y", "b", "c"]
    assert apply_corrections(toks, [ICorrection(1, 2, "x"), ICorrection(1, 2, "y")]) == ["a", "x", "y", "c"]


@pytest.mark.shared
def test_conll14_amu_nomix_counts_equal_ieval():
    """Full CoNLL-14 AMU against NUCLE.m2.ieval.xml: ieval.py -nomix printed detection 620/27350/752/2158,
    correction 484/27350/888/2294/136, I -3.30 (the command in the module doc of bench_shared_task.py)."""
    gold = read_ixml(shared_path("grammaticality-metrics", "references", "NUCLE.m2.ieval.xml"))
    hyps = read_lines(
        shared_path("grammatical-evaluation", "data", "original", "official_submissions", "AMU")
    )[: len(gold)]
    res = imeasure(hyps, gold, mix=False)
    c, d = res.correction, res.detection
    assert (d.tp, d.tn, d.fp, d.fn) == (620, 27350, 752, 2158)
    assert (c.tp, c.tn, c.fp, c.fn, c.fpn) == (484, 27350, 888, 2294, 136)
    assert round(100 * c.i, 2) == -3.30
