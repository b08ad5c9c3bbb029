"""Sakaguchi et al. 2016 Table 4 (sTER in edits per sentence) from the released rewrites (issue 34)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geceval.errors import GecInputError
from geceval.papers.sakaguchi2016 import PUBLISHED, read_skip_lines, table4
from tests.shared_data import shared_path

REPO = Path(__file__).resolve().parents[2]

# Ours, pinned (1278 sentences: 1312 less the 34 of merged_ids): cell -> (% identical, sTER, TER x 100).
OURS = {
    "Fluency E1 v. E2": (15.258215962441314, 5.135367762128325, 22.810295083115562),
    "Fluency N1 v. N2": (5.868544600938967, 10.024256651017215, 44.9563450177464),
    "Fluency E v. N": (8.54851330203443, 7.892018779342722, 34.449418695385006),
    "Minimal E1 v. E2": (38.65414710485133, 1.6737089201877935, 6.816155314465263),
    "Minimal N1 v. N2": (21.752738654147105, 2.87245696400626, 12.270381662492227),
    "Minimal E v. N": (25.86071987480438, 2.434467918622848, 10.040612018588496),
    "NUCLE A v. B": (18.779342723004696, 3.331768388106416, 14.832023667973097),
}


def _root() -> Path:
    return shared_path("reassess-gec", "annotations", "merged_ids").parents[2]


@pytest.mark.shared
@pytest.mark.slow
def test_table4_all_seven_cells_round_to_the_published_identical_and_ster() -> None:
    shared_path("grammaticality-metrics", "references", "NUCLEA")
    cells = table4(_root())
    assert [c.cell for c in cells] == [p[0] for p in PUBLISHED]
    for c, (_, identical, ster) in zip(cells, PUBLISHED):
        assert c.n == 1278
        assert round(c.pct_identical, 1) == identical, c.cell
        assert round(c.mean_ster, 1) == ster, c.cell  # edits per sentence, the paper's unit
        assert (c.pct_identical, c.mean_ster, c.mean_ter_x100) == pytest.approx(OURS[c.cell], abs=1e-9)
        # TER x 100 (what edit-stats printed as sTER before) is 4.2-4.7 times the paper's figure
        assert 4.0 < c.mean_ter_x100 / ster < 4.8
    assert [c.pairs for c in cells] == [1, 1, 4, 1, 1, 4, 1]


def test_skip_lines_are_one_based_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "ids").write_text("76\n77 3\n", encoding="utf-8")
    assert read_skip_lines(tmp_path / "ids") == {75, 76, 2}
    (tmp_path / "bad").write_text("0\n", encoding="utf-8")
    with pytest.raises(GecInputError, match="not a 1-based line number"):
        read_skip_lines(tmp_path / "bad")


def _geceval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=600
    )


def test_edit_stats_prints_ster_in_edits_per_sentence_and_ter_x100_under_its_own_name(tmp_path: Path) -> None:
    (tmp_path / "src").write_text("a b c d\nthe cat sat on the mat\nx y\n", encoding="utf-8")
    (tmp_path / "r1").write_text("a c d b\nThe cat sat on a mat\nx y\n", encoding="utf-8")
    (tmp_path / "r2").write_text("a b c d\nthe cat sat on the mat\nz y\n", encoding="utf-8")
    (tmp_path / "skip").write_text("3\n", encoding="utf-8")
    files = [str(tmp_path / "r1"), str(tmp_path / "r2")]
    result = _geceval("edit-stats", "--source", str(tmp_path / "src"), "--corrections", *files, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    f1 = out["files"][0]
    # r1: one shift (1 edit / 4 tokens); "The" (case: no sTER edit, a TER x 100 edit) + "a": 1 and 2 / 6
    assert f1["mean_ster"] == pytest.approx((1 + 1 + 0) / 3)
    assert f1["mean_ter_x100"] == pytest.approx((25 + 200 / 6 + 0) / 3)
    assert out["units"]["mean_ster"].startswith("edits per sentence")
    assert out["units"]["mean_ter_x100"].startswith("edits per 100 reference tokens")
    assert out["pairs"][0]["mean_ster"] == pytest.approx((1 + 1 + 1) / 3)
    skipped = _geceval(
        "edit-stats", "--source", str(tmp_path / "src"), "--corrections", *files,
        "--skip-lines", str(tmp_path / "skip"), "--json",
    )  # fmt: skip
    out = json.loads(skipped.stdout)
    assert out["skipped"] == 1 and out["files"][1]["n"] == 2 and out["files"][1]["mean_ster"] == 0.0
    text = _geceval("edit-stats", "--source", str(tmp_path / "src"), "--corrections", *files).stdout
    assert "sTER 1.00 edits/sentence" in text and "TER x 100" in text and "edits/100 tokens" in text
    assert "sTER: edits per sentence" in text and "% of sentences" in text
