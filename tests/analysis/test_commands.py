"""export_judgments and reproduce (the latter on ../shared/data when present)."""

from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command

from geceval.judgments import expand_pairwise, read_wmt_csv
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
    assert "turk mu (range)" in out and "GLEU human bound test" in out and "FAIL" not in out
    assert "11 of 11 within tolerance" in out


def test_reproduce_gec_ranking_with_1000_runs_through_the_crowd_importer(capsys):
    data = shared_path("gec-ranking", "data", "all_judgments.xml").parents[2]
    call_command("reproduce", "gec-ranking", "--data", str(data))
    out = capsys.readouterr().out
    assert re.search(r"pairwise judgments +28146 +28146", out) and "FAIL" not in out
    assert "20 of 20 within tolerance" in out


def test_reproduce_gmeg_dev_means_and_unchanged(capsys):
    data = shared_path("GMEG", "data", "dev", "fce-segment-scores.csv").parents[3]
    call_command("reproduce", "gmeg-dev", "--data", str(data))
    out = capsys.readouterr().out
    assert "FCE mean ref" in out and "wiki % unchanged transformer" in out and "FAIL" not in out


def test_reproduce_conll14_gleu_and_m2(capsys):
    data = shared_path("gecmetrics", "data", "conll14st-test", "conll14st-test.m2").parents[3]
    call_command("reproduce", "conll14-metrics", "--data", str(data))
    out = capsys.readouterr().out
    assert "GLEU UMC" in out and "M2 F0.5 INPUT" in out and "FAIL" not in out


def test_reproduce_fails_with_exit_1_when_a_figure_is_off(tmp_path, monkeypatch):
    from ranking.analysis import reproduce

    monkeypatch.setitem(reproduce.GMEG_FCE_MEANS, "amu", 71.0)
    data = shared_path("GMEG", "data", "dev", "fce-segment-scores.csv").parents[3]
    with pytest.raises(CommandError, match="outside tolerance: FCE mean amu"):
        call_command("reproduce", "gmeg-dev", "--data", str(data))
