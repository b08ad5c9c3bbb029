"""export_judgments and reproduce (the latter on ../shared/data when present)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import CommandError, call_command

from geceval.formats.judgments import expand_pairwise, read_wmt_csv
from ranking.analysis.reproduce_report import JSON_KEYS
from tests.factories import prws_campaign, ranking_campaign
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db


def test_export_judgments_writes_a_wmt_csv_that_reads_back_as_the_same_pairs(tmp_path):
    _user, campaign, rankings = ranking_campaign(n=50)
    out = tmp_path / "j.csv"
    call_command("export_judgments", campaign.name, "--format", "wmt-csv", "--out", str(out))
    back = expand_pairwise(read_wmt_csv(out))
    assert [(p.sys1, p.rank1, p.sys2, p.rank2) for p in back] == [
        (p.sys1, p.rank1, p.sys2, p.rank2) for p in expand_pairwise(rankings)
    ]


def test_export_judgments_prws_screens_become_rankings_by_score_with_ties(tmp_path):
    _user, campaign, ratings = prws_campaign()
    out = tmp_path / "j.csv"
    call_command("export_judgments", campaign.name, "--format", "wmt-csv", "--out", str(out))
    first = read_wmt_csv(out)[0]
    scores = {r.system: r.score for r in ratings if (r.item, r.annotator) == ("s0", "w0")}
    expected = {s: 1 + sum(1 for o in scores.values() if o > v) for s, v in scores.items()}
    assert dict(first.entries) == expected


def test_export_judgments_names_an_unknown_campaign():
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("export_judgments", "nope", "--format", "wmt-csv", "--out", "/dev/null")


def _shared_root():
    return shared_path("jfleg", "EACL_exp", "mturk", "pairwise.csv").parents[3]


def test_reproduce_jfleg_table5_and_human_bounds(capsys):
    data = _shared_root()
    call_command("reproduce", "jfleg", "--data", str(data))
    out = capsys.readouterr().out
    assert "turk mu (range)" in out and "GLEU human bound test" in out and " off" not in out
    assert "11 of 11 compared cells within tolerance" in out


def test_reproduce_gec_ranking_with_1000_runs_through_the_crowd_importer(capsys):
    data = shared_path("gec-ranking", "data", "all_judgments.xml").parents[2]
    call_command("reproduce", "gec-ranking", "--data", str(data))
    out = capsys.readouterr().out
    assert re.search(r"pairwise judgments +28146\.000 +28146\.000 +\+0\.000 +ok", out) and " off" not in out
    assert "20 of 20 compared cells within tolerance" in out and "13 shown, not compared" in out
    # Napoles 2015 Table 2's printed human order beside ours and wmt-trueskill's, shown not checked
    assert re.search(r"^2 +human rank CUUI +4\.000 +\d+\.000 .* shown$", out, re.M)
    assert re.search(r"shown \(.*table 2 human rank CUUI.*wmt-trueskill on the same file: 7\)", out)
    # the file has no src-id: the run says its items were keyed by id
    assert "sentences keyed by the items' id attribute, as written (no src-id in the file)" in out


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (("gec-ranking", "--tables", "8"), "--tables"),
        (("jfleg", "--hybrids", "10", "--json"), "--hybrids"),
        (("conll14-metrics", "--split", "dev"), "--split"),
        (("gmeg", "--runs", "10"), "--runs"),
        (("gmeg-dev", "--split", "test"), "--split"),
        (("gmeg", "--tables", "3", "6", "--hybrids", "10"), "--hybrids"),
        (("gmeg", "--tables", "9", "--metrics", "gleu"), "--metrics"),
        (("gmeg-dev", "--tables", "8", "--folds", "5", "--features", "gleu"), "--folds, --features"),
    ],
)
def test_reproduce_refuses_an_option_the_study_does_not_read(tmp_path, args, refused):
    with pytest.raises(CommandError, match=f"^{refused}: not used by study {args[0]}; leave it out$"):
        call_command("reproduce", args[0], "--data", str(tmp_path), *args[1:])


def _gmeg_rows(capsys, *args):
    call_command("reproduce", *args, "--json")
    return json.loads(capsys.readouterr().out)


def _domain(row: dict) -> str:
    """gmeg's ``where`` is "SPLIT DOMAIN" (the split, or dev+test where a table spans both)."""
    return row["where"].split()[-1]


def _cell(rows, table, domain, row, column):
    (found,) = [
        r for r in rows if (r["table"], _domain(r), r["row"], r["column"]) == (table, domain, row, column)
    ]
    return found


@pytest.mark.slow
def test_reproduce_gmeg_dev_prints_tables_3_6_7_8_for_fce_and_wiki(capsys):
    data = shared_path("GMEG", "data", "dev", "fce-segment-scores.csv").parents[1]
    # Table 9 (the ensemble) has its own test below, over a reduced, cached run
    rows = _gmeg_rows(capsys, "gmeg", "--data", str(data), "--split", "dev", "--tables", "3", "6", "7", "8")
    # yahoo: Table 6 means from the public segment scores (the release withholds its texts)
    assert {(r["table"], _domain(r)) for r in rows} == {(t, d) for t in "3678" for d in ("fce", "wiki")} | {
        ("6", "yahoo")
    }
    assert all(tuple(r) == JSON_KEYS for r in rows)
    # exact statistics of the dev split (the reference tool's figures)
    amu = _cell(rows, "6", "fce", "amu", "dev mean")
    assert amu["status"] == "ok" and amu["ours"] == pytest.approx(70.12675168300169, abs=1e-9)
    assert _cell(rows, "6", "wiki", "transformer", "dev % unchanged")["status"] == "ok"
    # the paper's Table 6 spans dev + test: with dev alone the row says so
    t6 = _cell(rows, "6", "fce", "amu", "mean")
    assert (t6["published"], t6["status"]) == (70.7, "explained")
    assert t6["reason"].startswith("split incomplete: ")
    t3 = _cell(rows, "3", "fce", "sentences", "value")
    assert (t3["published"], t3["ours"], t3["status"]) == (1936, 968.0, "explained")
    t7 = _cell(rows, "7", "fce", "system", "r")
    assert t7["ours"] is None and "only the mean of the 8 ratings" in t7["reason"] and t7["status"] == "shown"
    t8 = _cell(rows, "8", "wiki", "GLEU", "r")
    assert t8["ours"] is None and t8["reason"].startswith("split incomplete")
    assert all(r["status"] in ("ok", "explained", "shown") for r in rows)


def test_reproduce_gmeg_dev_keeps_working_as_gmeg_split_dev(capsys):
    root = shared_path("GMEG", "data", "dev", "fce-segment-scores.csv").parents[3]
    old = _gmeg_rows(capsys, "gmeg-dev", "--data", str(root), "--tables", "6", "7")
    new = _gmeg_rows(
        capsys, "gmeg", "--data", str(root / "GMEG" / "data"), "--split", "dev", "--tables", "6", "7"
    )
    # fce: 18 Table 6 cells + 8 dev means + 11 dev % unchanged; wiki: 18 + 11; yahoo (scores
    # only): 18; Table 7: 4 each for fce and wiki
    assert old == new and len(old) == 18 + 8 + 11 + 18 + 11 + 18 + 2 * 4


@pytest.mark.slow
def test_reproduce_gmeg_fce_test_table3_and_table8_with_674_hybrids(capsys):
    data = shared_path("GMEG", "data", "test", "fce-segment-scores.csv").parents[1]
    rows = _gmeg_rows(capsys, "gmeg", "--data", str(data), "--split", "test", "--metrics", "gleu", "chargleu")
    gleu = _cell(rows, "8", "fce", "GLEU", "r")
    assert (gleu["published"], gleu["where"], gleu["tolerance"], gleu["status"]) == (
        0.838,
        "test fce",
        0.05,
        "ok",
    )
    assert gleu["ours"] == pytest.approx(0.8379549711582275, abs=1e-9)  # Source correlated (issue 42)
    assert _cell(rows, "8", "fce", "charGLEU", "rho")["ours"] == pytest.approx(0.9450044417627527, abs=1e-9)
    chrf = _cell(rows, "8", "fce", "CHRF++", "r")
    assert chrf["ours"] is None and "not selected" in chrf["reason"]
    # GMEG-Metric is trained on the dev split, not selected here
    assert "trained on the dev split" in _cell(rows, "8", "fce", "GMEG-Metric", "r")["reason"]
    edits = _cell(rows, "3", "fce", "edits/changed sentence", "value")
    assert edits["ours"] == pytest.approx(2.828031212484994, abs=1e-9)


@pytest.mark.slow
def test_reproduce_gmeg_table9_cross_validates_the_dev_domains_over_cached_features(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.setenv("GECEVAL_CACHE", str(tmp_path))
    data = shared_path("GMEG", "data", "dev", "fce-segment-scores.csv").parents[1]
    args = ["gmeg", "--data", str(data), "--split", "dev", "--tables", "9", "--folds", "5", "--hybrids", "60"]
    args += ["--features", "chrf", "gleu", "chargleu"]
    rows = _gmeg_rows(capsys, *args)
    assert [(_domain(r), r["column"]) for r in rows] == [
        ("fce", "All"), ("fce", "Ablation"), ("wiki", "All"), ("wiki", "Ablation"),
    ]  # fmt: skip
    # Source is a row (h49; GMEG section 6 leaves only Reference and Source+error out of the
    # correlations); without it these were 0.7243, 0.5056, 0.9096, 0.6698
    assert [r["ours"] for r in rows] == pytest.approx(
        [0.8453423106713658, 0.6487082861494342, 0.8848740967409434, 0.6392312981860842], abs=1e-9
    )
    assert all(r["reason"].startswith("reduced run: ") and "5 folds, 60 hybrids" in r["reason"] for r in rows)
    assert len(list((tmp_path / "ensemble-features").glob("*.json"))) == 2  # one per (domain, reference set)
    # a second run reads every feature from the cache and gives the same figures
    assert _gmeg_rows(capsys, *args) == rows


def test_reproduce_gmeg_exits_1_when_a_cell_is_off(monkeypatch):
    from ranking.analysis import gmeg_published

    monkeypatch.setitem(gmeg_published.DEV_FCE_MEANS, "amu", 71.0)
    data = shared_path("GMEG", "data", "dev", "fce-segment-scores.csv").parents[1]
    with pytest.raises(CommandError, match="without a stated reason: gmeg table 6 dev fce amu dev mean"):
        call_command("reproduce", "gmeg", "--data", str(data), "--split", "dev", "--tables", "6")


def test_reproduce_gmeg_names_a_folder_without_domains(tmp_path):
    with pytest.raises(CommandError, match="no GMEG domain folder"):
        call_command("reproduce", "gmeg", "--data", str(tmp_path), "--split", "test")


def test_reproduce_conll14_gleu_and_m2(capsys):
    data = shared_path("gecmetrics", "data", "conll14st-test", "conll14st-test.m2").parents[3]
    call_command("reproduce", "conll14-metrics", "--data", str(data))
    out = capsys.readouterr().out
    assert "GLEU UMC" in out and "M2 F0.5 INPUT" in out and " off" not in out


def test_reproduce_gmeg_table7_uses_individual_ratings_when_a_ratings_file_exists(capsys, tmp_path):
    from geceval.formats.prws_csv import read_prws_csv
    from geceval.human.prws import split_half_reliability

    folder = tmp_path / "dev" / "fce"
    folder.mkdir(parents=True)
    (folder / "source").write_text("".join(f"sentence {i} .\n" for i in range(6)), encoding="utf-8")
    lines = ["item,worker,system,score"]
    for i in range(6):
        for s, base in (("amu", 60), ("nus", 70), ("lstm", 80)):
            lines += [f"{i},w{k},{s},{base + (7 * i + 3 * k) % 11}" for k in range(8)]
    ratings = tmp_path / "dev" / "fce-ratings.csv"
    ratings.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = _gmeg_rows(capsys, "gmeg", "--data", str(tmp_path), "--split", "dev", "--tables", "7")
    expected = split_half_reliability(
        [r.__class__(**{**r.__dict__, "item": f"dev:{r.item}"}) for r in read_prws_csv(ratings)],
        samples=100,
        seed=0,
        group_size=4,
    )
    got = {(r["row"], r["column"]): r for r in rows}
    assert got[("system", "r")]["ours"] == pytest.approx(expected.system_pearson, abs=1e-12)
    assert got[("sentence", "rho")]["ours"] == pytest.approx(expected.sentence_spearman, abs=1e-12)
    assert got[("system", "r")]["published"] == 0.992
    assert got[("system", "r")]["reason"].startswith("split incomplete")
