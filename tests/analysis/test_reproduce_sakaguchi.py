"""``manage.py reproduce sakaguchi2016``: Table 4 with units, published | ours | difference (issue 34)."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from geceval.sakaguchi2016 import SETS
from tests.shared_data import shared_path


def _root():
    shared_path("grammaticality-metrics", "references", "NUCLEA")
    return shared_path("reassess-gec", "annotations", "merged_ids").parents[2]


@pytest.mark.shared
@pytest.mark.slow
def test_reproduce_sakaguchi2016_prints_table4_with_units_and_every_cell_reproduced(capsys):
    call_command("reproduce", "sakaguchi2016", "--data", str(_root()))
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[1].split() == ["cell", "measure", "unit", "published", "ours", "difference", "ok"]
    row = next(line for line in lines if line.startswith("Fluency E1 v. E2") and " sTER " in line)
    assert row.split()[-6:] == ["per", "sentence", "5.1", "5.135", "+0.035", "ok"]
    assert "edits per sentence" in row
    ter = next(line for line in lines if line.startswith("Fluency E1 v. E2") and "TER x 100" in line)
    assert "edits per 100 tokens" in ter and "22.810" in ter
    assert "not divided by the length" in out and "merged_ids" in out
    assert "14 of 14 published cells reproduced to the printed decimal" in out
    assert "FAIL" not in out


def _tiny_release(root):
    """The release's layout with three-line files; line 3 is listed in merged_ids (left out)."""
    ann = root / "reassess-gec" / "annotations"
    for path in SETS.values():
        for name in path:
            (ann / name).parent.mkdir(parents=True, exist_ok=True)
            (ann / name).write_text("a b c\nd e\nf\n", encoding="utf-8")
    (ann / "merged_ids").write_text("3\n", encoding="utf-8")
    refs = root / "grammaticality-metrics" / "references"
    refs.mkdir(parents=True)
    (refs / "NUCLEA").write_text("a b c\nd e\nf\n", encoding="utf-8")
    (refs / "NUCLEB").write_text("a B\nd e\ng\n", encoding="utf-8")  # line 1: one deletion, case ignored


def test_reproduce_sakaguchi2016_json_gives_units_and_cells_that_differ_exit_1(capsys, tmp_path):
    _tiny_release(tmp_path)
    with pytest.raises(CommandError, match=r"14 cell\(s\) differ: Fluency E1 v. E2 identical"):
        call_command("reproduce", "sakaguchi2016", "--data", str(tmp_path), "--json")
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 21
    nucle = {r["measure"]: r for r in rows if r["cell"] == "NUCLE A v. B"}
    assert nucle["identical"]["ours"] == 50.0 and nucle["identical"]["unit"] == "% of sentences"
    assert nucle["sTER"]["ours"] == 0.5 and nucle["sTER"]["unit"] == "edits per sentence"
    assert nucle["sTER"]["published"] == 3.3 and nucle["sTER"]["difference"] == pytest.approx(-2.8)
    # TER x 100, case-sensitive: 2 edits (deletion, B) over 3 reference tokens on line 1, 0 on line 2
    assert nucle["TER x 100"]["ours"] == pytest.approx(100 * 2 / 3 / 2)
    assert nucle["TER x 100"]["unit"] == "edits per 100 tokens" and nucle["TER x 100"]["published"] is None
    fluency = {r["measure"]: r for r in rows if r["cell"] == "Fluency E v. N"}
    assert (fluency["identical"]["ours"], fluency["sTER"]["ours"]) == (100.0, 0.0)


def test_reproduce_sakaguchi2016_names_missing_data(tmp_path):
    with pytest.raises(CommandError, match=r"expert_fluency/expert_fluencyA: no such file"):
        call_command("reproduce", "sakaguchi2016", "--data", str(tmp_path))
