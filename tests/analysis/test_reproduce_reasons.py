"""Reasons in one module, the doc generated from it, one report shape for every study (issue 42)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from ranking.analysis import reproduce_reasons as reasons
from ranking.analysis.reproduce import Row
from ranking.analysis.reproduce_gmeg import TableRow
from ranking.analysis.reproduce_report import JSON_KEYS, Cell, cell_of, failed, format_latex, format_text
from ranking.analysis.reproduce_sakaguchi import Table4Row
from ranking.analysis.reproduce_seeda import SeedaRow

DOC = Path(__file__).resolve().parents[2] / "docs" / "reproducing-papers.md"
KEYS = list(JSON_KEYS)


def test_the_reasons_section_of_the_doc_is_generated_from_the_reasons_module():
    assert reasons.doc_with_reasons(DOC.read_text(encoding="utf-8")) == DOC.read_text(encoding="utf-8"), (
        "docs/reproducing-papers.md is stale: run python manage.py reproduce_reasons --write"
    )
    call_command("reproduce_reasons", "--check")


def test_a_stale_doc_is_refused_by_the_check(tmp_path, monkeypatch):
    from ranking.management.commands import reproduce_reasons as command

    stale = tmp_path / "doc.md"
    stale.write_text(f"intro\n{reasons.BEGIN}\nold text\n{reasons.END}\nrest\n", encoding="utf-8")
    monkeypatch.setattr(command, "DOC", stale)
    with pytest.raises(CommandError, match="is stale"):
        call_command("reproduce_reasons", "--check")
    call_command("reproduce_reasons", "--write")
    text = stale.read_text(encoding="utf-8")
    assert text.startswith("intro\n") and text.endswith("\nrest\n") and "old text" not in text
    assert "| 8 | fce I-measure r | unexplained: unexplained |" in text
    call_command("reproduce_reasons", "--check")


def test_every_reason_is_explained_or_unexplained_and_says_something():
    listed = reasons.all_reasons()
    assert {r.study for r in listed} == {"gmeg", "napoles2015", "sakaguchi2016", "seeda2024"}
    for r in listed:
        assert r.kind in (reasons.EXPLAINED, reasons.UNEXPLAINED_KIND), r
        assert len(r.text) > 40, r
    # what was tried on an unexplained cell is listed as such; -nomix cannot be the reason (GMEG section 5.1)
    imeasure = next(r for r in listed if r.study == "gmeg" and r.cell == "fce I-measure r")
    assert imeasure.kind == "unexplained" and "the paper used -nomix too" in imeasure.text


def _rows():
    return [
        TableRow("gmeg", "8", "test", "fce", "I-measure", "r", 0.854, 0.615, 0.05, False,
                 *reasons.GMEG_KNOWN[("8", "fce", "I-measure", "r")]),
        TableRow("gmeg", "8", "test", "fce", "CHRF++", "r", 0.6, 0.4, 0.05, False,
                 *reasons.GMEG_KNOWN[("8", "fce", "CHRF++", "r")]),
        TableRow("gmeg", "6", "dev", "fce", "amu", "mean", 70.0, 70.01, 0.05, True),
        Table4Row("NUCLE GLEU", "rho", "Spearman's rho", 0.626, 0.5, table="6", tried="GLEU+ ..."),
        Table4Row("Non-experts", "kappa", "Cohen's kappa", 0.29, 0.288, table="7"),
        Table4Row("AMU", "identical", "% of sentences", 14.1, 14.9, why="merged sentences kept"),
        SeedaRow("metric", "-", "BART", "M2", 50.3, 49.0, 0.05, False),
        SeedaRow("sentence", "base", "M2", "tau sent", None, 0.3, None, None, None, "no published figure"),
        Row("napoles2015", "Table 1 judges 2 and 3 r", "0.517", "0.81", "-0.293", False,
            reasons.NAPOLES2015_TABLE1_TRIED),
        Row("napoles2015", "Table 2 human rank CAMB", "2", "1", "+1", True, "printed order, shown not checked"),
        Row("jfleg", "GLEU human bound dev", "0.552679", "0.552679", "+0.000000", True, "exact to 6 decimals"),
    ]  # fmt: skip


def test_every_studys_rows_become_cells_of_one_json_shape_and_status_rule():
    report = [cell_of(r) for r in _rows()]
    assert all(list(c.as_json()) == KEYS for c in report)
    assert [c.status for c in report] == [
        "unexplained", "explained", "ok", "unexplained", "ok", "explained", "off", "shown", "unexplained",
        "shown", "ok",
    ]  # fmt: skip
    assert [c.name for c in failed(report)] == [
        "gmeg table 8 test fce I-measure r",
        "sakaguchi2016 table 6 NUCLE GLEU rho",
        "seeda2024 table metric - BART M2",
        "napoles2015 table 1 judges 2 and 3 r",
    ]
    napoles = report[8].as_json()
    assert (napoles["table"], napoles["row"], napoles["published"], napoles["ours"]) == (
        "1",
        "judges 2 and 3 r",
        0.81,
        0.517,
    )
    assert napoles["difference"] == pytest.approx(-0.293)
    assert report[1].reason.startswith("metric version: the paper gives chrF++'s parameters")


def test_text_and_latex_show_published_ours_difference_and_the_reason_once():
    report = [cell_of(r) for r in _rows()]
    text = format_text(report)
    assert text.splitlines()[0].split() == [
        "table",
        "where",
        "row",
        "column",
        "published",
        "ours",
        "difference",
        "status",
    ]
    line = next(x for x in text.splitlines() if "I-measure" in x)
    assert line.split() == ["8", "test", "fce", "I-measure", "r", "0.854", "0.615", "-0.239", "unexplained"]
    assert text.count("metric version: the paper gives") == 1
    latex = format_latex(report)
    assert r"\multicolumn{8}{l}{gmeg, Table 8} \\" in latex
    assert r"test fce & I-measure & r & 0.854 & 0.615 & -0.239 & unexplained & " in latex
    assert latex.count(r"\begin{longtable}") == len({(c.study, c.table) for c in report})


def test_a_cell_knows_no_status_but_the_five():
    cell = Cell("x", "1", "", "r", "c", "", 1.0, None, None, "shown", "")
    assert cell.difference is None and not cell.failed
