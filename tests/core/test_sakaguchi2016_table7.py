"""Sakaguchi et al. 2016 Table 7: kappa of pairwise judgments from MTurk CSV, over candidates as shown."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from geceval.papers.sakaguchi2016_table7 import table7
from tests.shared_data import REPO, shared_path

COLUMNS = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds", "Input.sentID"]
COLUMNS += [f"Input.system{k}" for k in (1, 2, 3)] + [f"Answer.rank_{k}" for k in (1, 2, 3)]


def _batch(path: Path) -> Path:
    """Two HITs, two workers each; "B C" is one candidate standing for two systems; one rejected row."""
    rows = [
        ("H1", "a1", "w1", "Approved", "30", "0", "A", "B C", "D", "1", "2", "3"),
        ("H1", "a2", "w2", "Approved", "30", "0", "A", "B C", "D", "2", "1", "3"),
        ("H2", "a3", "w1", "Approved", "30", "5", "A", "D", "E", "1", "1", "2"),
        ("H2", "a4", "w2", "Approved", "30", "5", "A", "D", "E", "1", "2", "3"),
        ("H2", "a5", "w3", "Rejected", "3", "5", "A", "D", "E", "3", "2", "1"),
    ]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, quoting=csv.QUOTE_ALL)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_agreement_reads_mturk_csv_and_labels_candidates_as_shown(tmp_path) -> None:
    path = _batch(tmp_path / "batch.csv")
    proc = _run("agreement", str(path), "--format", "mturk-csv", "--unit", "shown", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["annotators"] == ["w1", "w2"]  # the rejected assignment is left out
    (row,) = data["groups"]
    # by hand, pairs sorted by name: (A, B C), (A, D), (B C, D) of item 0; (A, D), (A, E), (D, E) of item 5
    w1 = [-1, -1, -1, 0, -1, -1]
    w2 = [1, -1, -1, -1, -1, -1]
    assert row["n"] == 6
    assert row["kappa"] == pytest.approx(cohen_kappa_score(w1, w2), abs=1e-12)
    assert row["weighted_kappa"] == pytest.approx(cohen_kappa_score(w1, w2, weights="quadratic"), abs=1e-12)
    # systems expanded: B and C become two entries, so item 0 has 6 pairs, (B, C) an agreed tie
    systems = json.loads(_run("agreement", str(path), "--format", "mturk-csv", "--json").stdout)
    assert systems["groups"][0]["n"] == 9
    rejected = json.loads(
        _run("agreement", str(path), "--format", "mturk-csv", "--include-rejected", "--json").stdout
    )
    assert rejected["annotators"] == ["w1", "w2", "w3"]


def test_agreement_refuses_mturk_only_options_with_other_formats(tmp_path) -> None:
    path = _batch(tmp_path / "batch.csv")
    proc = _run("agreement", str(path), "--format", "wmt-csv", "--include-rejected")
    assert proc.returncode == 2
    assert "--include-rejected and --mapping apply to --format mturk-csv only" in proc.stderr


@pytest.mark.shared
def test_table7_non_experts_from_ctrl_merged_csv() -> None:
    root = shared_path("reassess-gec", "inter_annotator_agreements", "Ctrl_merged.csv").parents[2]
    rows = {r.row: r for r in table7(root)}
    crowd = rows["Non-experts"]
    # Section 5: "The 588 system rankings yield 26,265 pairwise judgments"
    assert crowd.pairwise_judgments == 26265
    assert (crowd.labels, crowd.annotator_pairs) == (2828, 16)
    assert round(crowd.kappa, 2) == 0.29  # published 0.29
    assert crowd.kappa == pytest.approx(0.28760, abs=5e-5)
    assert crowd.weighted_kappa == pytest.approx(0.41572, abs=5e-5)  # published 0.43: unexplained
    if not root.joinpath("grammatical-evaluation", "data", "judgments.xml").exists():
        assert rows["Experts"].kappa is None and "judgments.xml not found" in rows["Experts"].missing
    napoles = rows["Napoles et al. 2015 judges (gec-ranking, not the paper's experts)"]
    assert napoles.pairwise_judgments == 28146 and napoles.kappa == pytest.approx(0.55027, abs=5e-5)
    merged = {r.row: r for r in table7(root, skip_merged=True)}["Non-experts"]
    assert merged.pairwise_judgments == 25759  # 8 of the 294 sentences are merged ones


@pytest.mark.shared
def test_table7_experts_and_between_from_a_grundkiewicz_layout(tmp_path) -> None:
    """Experts' Appraise XML (src-id 0-based) beside the non-experts: within and between rows."""
    ctrl = shared_path("reassess-gec", "inter_annotator_agreements", "Ctrl_merged.csv")
    root = tmp_path
    (root / "reassess-gec" / "inter_annotator_agreements").mkdir(parents=True)
    (root / "reassess-gec" / "inter_annotator_agreements" / "Ctrl_merged.csv").write_bytes(ctrl.read_bytes())
    (root / "reassess-gec" / "annotations").mkdir()
    (root / "reassess-gec" / "annotations" / "merged_ids").write_text("764\n", encoding="utf-8")
    xml = root / "grammatical-evaluation" / "data"
    xml.mkdir(parents=True)
    # Ctrl_merged.csv's first row: sentence 763, CAMB 5, POST 2, AMU 2, ... ; two experts on that sentence
    (xml / "judgments.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<appraise-results><error-correction-ranking-result>'
        '<ranking-item src-id="763" id="0" user="e1"><translation rank="1" system="CAMB"/>'
        '<translation rank="2" system="POST"/><translation rank="3" system="AMU"/></ranking-item>'
        '<ranking-item src-id="763" id="1" user="e2"><translation rank="1" system="CAMB"/>'
        '<translation rank="3" system="POST"/><translation rank="2" system="AMU"/></ranking-item>'
        '<ranking-item src-id="1311" id="2" user="e2"><translation rank="1" system="CAMB"/>'
        '<translation rank="2" system="POST"/></ranking-item>'
        "</error-correction-ranking-result></appraise-results>\n",
        encoding="utf-8",
    )
    rows = {r.row: r for r in table7(root)}
    experts = rows["Experts"]
    # (AMU, CAMB), (AMU, POST), (CAMB, POST): e1 > < <, e2 > > <
    assert experts.labels == 3
    assert experts.kappa == pytest.approx(cohen_kappa_score([1, -1, -1], [1, 1, -1]), abs=1e-12)
    assert rows["Non-experts and Experts"].labels > 0
    skipped = {r.row: r for r in table7(root, skip_merged=True)}
    assert skipped["Experts"].labels == 0  # line 764 (1-based) is sentence 763
