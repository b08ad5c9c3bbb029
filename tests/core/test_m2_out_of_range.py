"""M2 edits past the end of their sentence, read as m2scorer 3.2 reads them (issue 34).

m2scorer's ``load_annotation`` keeps an edit only when ``0 <= start, end <= tokens``; the
annotator stays present (with no edit, if that was its only one). 5 of the 7 reference files of
../shared/data/grammaticality-metrics/references have such edits (8 in all); every file scores,
and AMU and CAMB match m2scorer's printed figures on all 14 (system, reference) pairs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geceval.errors import GecInputError
from geceval.formats.m2 import format_m2, out_of_range_count, parse_m2, read_m2
from geceval.formats.text import read_lines
from geceval.metrics.m2.scorer import m2_score
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]
M2SCORER = Path(__file__).parent / "fixtures" / "m2" / "m2scorer_grammaticality_metrics.json"

# Annotator 1's only edit in block 1 and its edit in block 2 run past the end of the sentence.
TINY = (
    "S a b c\nA 0 1|||R:X|||x|||REQUIRED|||-NONE-|||0\nA 5 5|||M:X|||y|||REQUIRED|||-NONE-|||1\n\n"
    "S d e\nA 1 2|||R:X|||f|||REQUIRED|||-NONE-|||0\nA 1 4|||R:X|||g|||REQUIRED|||-NONE-|||1\n\n"
)


def test_an_edit_past_the_end_is_kept_as_a_no_op_and_its_annotator_stays_present() -> None:
    blocks = parse_m2(TINY)
    assert out_of_range_count(blocks) == 2
    first = blocks[0]
    assert first.annotators() == [0, 1]
    assert first.edits_by_annotator() == {0: [first.edits[0]], 1: []}
    assert first.edits[1].is_noop and (first.edits[1].start, first.edits[1].end) == (5, 5)
    assert format_m2(blocks) == TINY  # written back verbatim


def test_m2_score_with_an_edit_past_the_end_equals_m2scorer() -> None:
    # m2scorer -v on these two blocks with hypotheses "a b c" / "d f" (run once, Python 2.7.18):
    # line 1 chooses annotator 1 (no gold edits: P = R = 1), line 2 annotator 0; TP 1, FP 0, FN 0.
    # Dropping annotator 1 along with its edit would leave FN 1 (R 0.5).
    res = m2_score(["a b c", "d f"], parse_m2(TINY))
    assert (res.tp, res.fp, res.fn) == (1, 0, 0)
    assert (res.p, res.r, res.f) == (1.0, 1.0, 1.0)
    assert [s.annotator for s in m2_score(["a b c", "d f"], parse_m2(TINY), sentence=True).sentences] == [
        1,
        0,
    ]


def test_spans_that_are_not_spans_are_still_refused() -> None:
    for span in ("2 1", "-2 1", "0 -3"):
        with pytest.raises(GecInputError, match=f"span {span} is not a span of the sentence"):
            parse_m2(f"S a b c\nA {span}|||R:X|||x|||REQUIRED|||-NONE-|||0\n")


def test_the_command_line_warns_once_with_the_count(tmp_path: Path) -> None:
    (tmp_path / "gold.m2").write_text(TINY, encoding="utf-8")
    (tmp_path / "hyp").write_text("a b c\nd f\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "geceval", "score", "m2", "--refs", str(tmp_path / "gold.m2"),
         "--hyp", str(tmp_path / "hyp"), "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {tmp_path / 'gold.m2'}: 2 edit(s) past the end of their sentence, ignored as m2scorer "
        "ignores them (their annotators stay present; ERRANT counts them, as errant_compare does)"
    ]
    assert json.loads(result.stdout)[0]["f"] == 1.0


def test_read_m2_prints_nothing_for_a_file_without_such_edits(tmp_path: Path, capsys) -> None:
    (tmp_path / "gold.m2").write_text("S a b\nA 0 1|||R:X|||x|||REQUIRED|||-NONE-|||0\n", encoding="utf-8")
    read_m2(tmp_path / "gold.m2")
    read_m2(tmp_path / "gold.m2", warn=False)
    assert capsys.readouterr().err == ""


def _m2scorer_figures() -> list[dict]:
    return json.loads(M2SCORER.read_text(encoding="utf-8"))["scores"]


@pytest.mark.shared
def test_every_reference_file_of_grammaticality_metrics_reads_with_the_conll14_sentence_count(capsys) -> None:
    folder = shared_path("grammaticality-metrics", "references", "EXPFLUENCY.m2").parent
    counts = {}
    for ref in ("NUCLE", "BN", "EXPFLUENCY", "EXPMIN", "TURKFLUENCY", "TURKMIN", "ALL"):
        blocks = read_m2(folder / f"{ref}.m2")
        assert len(blocks) == 1312  # the CoNLL-14 test set, as the system outputs
        counts[ref] = out_of_range_count(blocks)
    assert counts == {
        "NUCLE": 0, "BN": 0, "EXPFLUENCY": 1, "EXPMIN": 1, "TURKFLUENCY": 1, "TURKMIN": 2, "ALL": 2,
    }  # fmt: skip
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 5 and all(line.startswith("warning: ") for line in err)


@pytest.mark.shared
@pytest.mark.parametrize(
    "reference", ["NUCLE", "BN", "EXPFLUENCY", "EXPMIN", "TURKFLUENCY", "TURKMIN", "ALL"]
)
def test_amu_and_camb_match_m2scorer_on_each_grammaticality_metrics_reference(reference: str) -> None:
    gold = read_m2(shared_path("grammaticality-metrics", "references", f"{reference}.m2"), warn=False)
    subs = shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    expected = [row for row in _m2scorer_figures() if row["reference"] == reference]
    assert [row["system"] for row in expected] == ["AMU", "CAMB"]
    for row in expected:
        hyp = read_lines(subs / row["system"], allow_empty=True)
        assert len(hyp) == len(gold) == 1312
        res = m2_score(hyp, gold)
        ours = [f"{res.p:.4f}", f"{res.r:.4f}", f"{res.f:.4f}"]
        assert ours == [row["precision"], row["recall"], row["f0.5"]], (row["system"], reference)


def test_errant_keeps_an_edit_past_the_end_as_a_gold_edit_as_errant_compare_does() -> None:
    # errant_compare -hyp (A 0 1 x) -ref (A 0 1 x, A 5 5 y on "a b c") prints TP 1, FP 0, FN 1 (errant 3.0.2)
    from geceval.metrics.errant.scorer import errant_compare

    gold = parse_m2(
        "S a b c\nA 0 1|||R:X|||x|||REQUIRED|||-NONE-|||0\nA 5 5|||M:X|||y|||REQUIRED|||-NONE-|||0\n"
    )
    hyp = parse_m2("S a b c\nA 0 1|||R:X|||x|||REQUIRED|||-NONE-|||0\n")
    res = errant_compare(hyp, gold)
    assert (res.tp, res.fp, res.fn) == (1, 0, 1)
