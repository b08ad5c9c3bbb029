"""MTurk batch results CSVs as MTurk writes them, read by the core (shared with the web import)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from geceval.cli import main
from geceval.errors import GecInputError
from geceval.formats.judgments import expand_pairwise
from geceval.formats.mturk import detect_mturk_mapping, parse_mturk_csv, rankings_of

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "mturk-batch-results.csv"

BASE = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds"


def batch(item_col: str = "Input.sentID", text: str = "sentence", rows: list[str] | None = None) -> bytes:
    header = (
        f"{BASE},{item_col},Input.system1,Input.{text}1,Input.system2,Input.{text}2,"
        "Answer.rank_1,Answer.rank_2,Approve,Reject"
    )
    rows = rows or ["H1,A1,W1,Submitted,30,7,amu,Good .,camb,Bad .,1,2"]
    return ("\n".join([header, *rows]) + "\n").encode()


def test_short_rows_without_mturks_empty_approve_and_reject_are_read():
    parsed = parse_mturk_csv(batch(), name="b.csv")
    [j] = parsed.judgments
    assert (j.item, j.worker, j.hit, j.seconds) == ("7", "W1", "H1", 30.0)
    assert [(e.systems, e.rank, e.text) for e in j.entries] == [
        (("amu",), 1, "Good ."),
        (("camb",), 2, "Bad ."),
    ]


def test_a_row_short_by_more_than_approve_and_reject_is_an_error_naming_the_line():
    with pytest.raises(GecInputError, match=re.escape("b.csv:2: 11 fields, the header has 14")):
        parse_mturk_csv(batch(rows=["H1,A1,W1,Submitted,30,7,amu,Good .,camb,Bad .,1"]), name="b.csv")


@pytest.mark.parametrize(
    "item_col",
    ["Input.sentID", "Input.sent_id", "Input.segment_id", "Input.item_id", "Input.id", "Input.hit_item"],
)
@pytest.mark.parametrize("text", ["sentence", "text", "output"])
def test_item_id_and_text_columns_are_detected_in_every_layout_mturk_files_use(item_col, text):
    mapping = detect_mturk_mapping(batch(item_col, text).decode().splitlines()[0].split(","))
    assert mapping["item"] == item_col
    assert mapping["texts"] == [f"Input.{text}1", f"Input.{text}2"]
    assert mapping["answers"] == ["Answer.rank_1", "Answer.rank_2"]
    assert [e.text for e in parse_mturk_csv(batch(item_col, text)).judgments[0].entries] == [
        "Good .",
        "Bad .",
    ]


def test_an_ambiguous_layout_asks_for_a_mapping_naming_the_columns_found_and_needed():
    header = f"{BASE},Input.sentID,Input.item_id,Input.system1,Input.system2,Answer.rank_1,Answer.rank_2"
    with pytest.raises(GecInputError) as caught:
        parse_mturk_csv((header + "\n").encode(), name="b.csv")
    assert str(caught.value) == (
        "b.csv: cannot detect the MTurk layout: several item id columns (Input.sentID, Input.item_id). "
        "Columns found: Input.sentID, Input.item_id, Input.system1, Input.system2, Answer.rank_1, "
        "Answer.rank_2. Needed: an item id (one of Input.sentID, Input.sent_id, Input.segment_id, "
        "Input.item_id, Input.id, Input.hit_item), Input.system<k> and Answer.rank_<k> or "
        "Answer.score_<k> for each k; texts optional (Input.sentence<k>, Input.text<k> or "
        "Input.output<k>). Give a column mapping (JSON) to read this file"
    )


def test_rejected_assignments_are_dropped_unless_included():
    assert parse_mturk_csv(EXAMPLE.read_bytes()).skipped == {"rejected assignment": 1}
    assert len(parse_mturk_csv(EXAMPLE.read_bytes()).judgments) == 3
    assert len(parse_mturk_csv(EXAMPLE.read_bytes(), include_rejected=True).judgments) == 4


def test_collapsed_candidates_give_their_rank_to_each_system_before_pairing():
    data = batch(rows=["H1,A1,W1,Submitted,30,7,amu camb,Good .,src,Bad .,1,2"])
    pairs = expand_pairwise(rankings_of(parse_mturk_csv(data)))
    assert [(p.sys1, p.rank1, p.sys2, p.rank2) for p in pairs] == [
        ("amu", 1, "camb", 1),
        ("amu", 1, "src", 2),
        ("camb", 1, "src", 2),
    ]


def test_rank_cli_reads_mturk_csv_with_the_same_detection(capsys):
    assert main(["rank", str(EXAMPLE), "--format", "mturk-csv", "--runs", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["judgments"] == 9
    assert [s["name"] for s in result["systems"]] == ["amu", "camb", "src"]
    assert (
        main(["rank", str(EXAMPLE), "--format", "mturk-csv", "--runs", "3", "--json", "--include-rejected"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["judgments"] == 12


def test_rank_cli_names_the_columns_of_an_undetectable_mturk_file(tmp_path, capsys):
    path = tmp_path / "b.csv"
    path.write_text(f"{BASE},Input.item_id,Input.system1,Answer.choice\n")
    assert main(["rank", str(path), "--format", "mturk-csv"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"error: {path}: cannot detect the MTurk layout: no answer column for Input.system1. "
        "Columns found: Input.item_id, Input.system1, Answer.choice."
    )
