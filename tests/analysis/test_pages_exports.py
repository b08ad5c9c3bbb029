"""Results pages, plots, progress JSON and exports (eager Celery, SQLite)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from geceval.formats.judgments import expand_pairwise, read_appraise_xml, read_wmt_csv
from geceval.formats.prws_csv import read_gmeg_segment_csv, read_prws_csv
from geceval.human.system_ranking import rank
from ranking.analysis import exports, services
from ranking.analysis.models import AnalysisRun, PrwsResult, RunStatus
from tests.factories import prws_campaign, ranking_campaign

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


def _done_run(campaign, kind="trueskill", seed=5, **params):
    run = services.analysis_run_create(campaign=campaign, kind=kind, parameters=params, seed=seed)
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return run


def test_researcher_starts_a_run_from_the_page_and_reads_the_ranking_with_cluster_lines(client):
    user, campaign, _r = ranking_campaign()
    client.force_login(user)
    page = client.get(reverse("campaign-analysis", args=[campaign.pk]))
    assert page.status_code == 200 and b"New run" in page.content
    response = client.post(
        reverse("campaign-analysis", args=[campaign.pk]),
        {"kind": "trueskill", "seed": 1, "runs": 30, "chunks": 2},
    )
    run = AnalysisRun.objects.get(campaign=campaign)
    assert response.status_code == 302 and response["Location"] == reverse("analysis-run", args=[run.pk])
    page = client.get(response["Location"]).content.decode()
    assert "300 valid judgments (900 pairwise)" in page
    assert 'id="ranking"' in page and "best" in page and 'id="plot-ranks"' in page
    progress = client.get(reverse("analysis-run-progress", args=[run.pk])).json()
    assert progress["status"] == "done" and progress["percent"] == 100.0 and progress["chunks"] == {"done": 2}
    svg = client.get(reverse("analysis-run-plot", args=[run.pk, "ranks"]))
    assert svg["Content-Type"] == "image/svg+xml" and b"<svg" in svg.content and b"best" in svg.content


def test_a_bad_run_request_is_shown_on_the_form_not_started(client):
    user, campaign, _r = ranking_campaign()
    client.force_login(user)
    response = client.post(
        reverse("campaign-analysis", args=[campaign.pk]), {"kind": "prws_summary", "seed": 0}
    )
    assert response.status_code == 400 and b"needs a PRWS campaign" in response.content
    assert not AnalysisRun.objects.exists()


def test_other_researchers_cannot_see_a_run(client):
    from tests import factories

    _user, campaign, _r = ranking_campaign()
    run = _done_run(campaign, runs=10, chunks=1)
    client.force_login(factories.user("other", "researcher"))
    assert client.get(reverse("analysis-run", args=[run.pk])).status_code == 404
    assert client.get(reverse("campaign-judgments-export", args=[campaign.pk, "wmt-csv"])).status_code == 404


def test_ranking_exports_csv_json_and_latex_with_midrule_between_clusters(client):
    user, campaign, _r = ranking_campaign()
    run = _done_run(campaign, runs=30, chunks=2)
    client.force_login(user)
    rows = list(run.rank_results.all())
    tex = client.get(reverse("analysis-run-export", args=[run.pk, "ranking.tex"])).content.decode()
    body = tex.split("\\midrule", 1)[1]
    assert body.count("\\midrule") == len({r.cluster for r in rows}) - 1
    data = json.loads(client.get(reverse("analysis-run-export", args=[run.pk, "ranking.json"])).content)
    assert [s["name"] for s in data["systems"]] == [r.name for r in rows] and data["pairs"] == 900
    csv_text = client.get(reverse("analysis-run-export", args=[run.pk, "ranking.csv"])).content.decode()
    assert csv_text.splitlines()[0] == "position,system,mu,rank_lo,rank_hi,cluster,pairs"


def test_wmt_csv_export_ranked_by_the_geceval_command_gives_the_runs_numbers(client, tmp_path):
    user, campaign, _r = ranking_campaign()
    run = _done_run(campaign, runs=50, chunks=3, seed=9)
    client.force_login(user)
    response = client.get(reverse("campaign-judgments-export", args=[campaign.pk, "wmt-csv"]))
    path = tmp_path / "export.csv"
    path.write_bytes(b"".join(response.streaming_content))
    out = subprocess.run(
        [sys.executable, "-m", "geceval", "rank", str(path), "--format", "wmt-csv", "--runs", "50", "--seed", "9",
         "--json"],
        cwd=REPO, capture_output=True, text=True, check=True,
    )  # fmt: skip
    ranked = json.loads(out.stdout)
    ours = [(r.name, r.mu, [r.rank_lo, r.rank_hi], r.cluster) for r in run.rank_results.all()]
    assert [(s["name"], s["mu"], s["rank_range"], s["cluster"]) for s in ranked["systems"]] == ours
    judges = {r.annotator for r in read_wmt_csv(path)}
    assert all(j.startswith("w") and len(j) == 13 for j in judges) and len(judges) == 7


def test_appraise_xml_export_reads_back_as_the_same_pairwise_judgments(tmp_path):
    _user, campaign, rankings = ranking_campaign(n=60)
    path = tmp_path / "export.xml"
    path.write_text("".join(exports.iter_judgments(campaign, "appraise-xml")))
    back = read_appraise_xml(path)
    strip = [(p.sys1, p.rank1, p.sys2, p.rank2) for p in expand_pairwise(back)]
    assert strip == [(p.sys1, p.rank1, p.sys2, p.rank2) for p in expand_pairwise(rankings)]


def test_prws_summary_run_and_prws_exports_round_trip(client, tmp_path):
    user, campaign, ratings = prws_campaign()
    run = _done_run(campaign, kind="prws_summary", samples=20)
    rows = list(PrwsResult.objects.filter(run=run).order_by("position"))
    assert [r.name for r in rows] == ["best", "good", "mid", "src"]
    by_system = {}
    for r in ratings:
        by_system.setdefault(r.system, {}).setdefault(r.item, []).append(r.score)
    expected_best = sum(sum(v) / len(v) for v in by_system["best"].values()) / len(by_system["best"])
    assert rows[0].mean == pytest.approx(expected_best, abs=1e-9) and rows[0].ratings == 120
    assert rows[0].meaning_changed == pytest.approx(24 / 120)
    assert run.summary["reliability"]["system_pearson"] > 0.9
    path = tmp_path / "ratings.csv"
    path.write_text("".join(exports.iter_judgments(campaign, "prws-csv")))
    back = read_prws_csv(path)
    assert sorted((r.system, r.score, r.meaning_changed) for r in back) == sorted(
        (r.system, r.score, r.meaning_changed) for r in ratings
    )
    seg = tmp_path / "seg.csv"
    seg.write_text("".join(exports.iter_judgments(campaign, "gmeg-segment-csv")))
    segments = read_gmeg_segment_csv(seg)
    assert sum(segments["best"].values()) / len(segments["best"]) == pytest.approx(expected_best)
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[run.pk])).content.decode()
    assert 'id="prws"' in page and "Split-half reliability" in page
    # PRWS screens rank by score for the ranking formats: a TrueSkill run on a PRWS campaign works
    ts = _done_run(campaign, runs=20, chunks=2)
    assert ts.rank_results.first().name == "best"


def test_metric_run_then_meta_evaluation_against_a_human_run(client):
    from tests import factories

    user = factories.user("res", "researcher")
    project = factories.project(user)
    sources = ["He go to school .", "She like apple .", "They is here .", "I has a cat .", "We was late ."]
    good = [
        "He goes to school .",
        "She likes apples .",
        "They are here .",
        "I have a cat .",
        "We were late .",
    ]
    systems = {
        "ref1": good,
        "ref2": [
            "He goes to school .",
            "She likes apple .",
            "They are here .",
            "I have a cat .",
            "We were late .",
        ],
        "src": sources,
        "s_good": good[:4] + sources[4:],
        "s_mid": good[:2] + sources[2:],
        "s_low": good[:1] + sources[1:],
        "s_bad": ["He go school .", "She like .", "They is .", "I has cat .", "We late ."],
    }
    corpus, made = factories.corpus_with_systems(
        project,
        sources=sources,
        systems=systems,
        kinds={"ref1": "reference", "ref2": "reference", "src": "source"},
    )
    from ranking.models import Campaign

    campaign = Campaign.objects.create(
        project=project, corpus=corpus, name="m", protocol="ranking", created_by=user, status="closed"
    )
    campaign.systems.set([s for s in made if s.kind != "reference"])
    metric_run = _done_run(campaign, kind="metric_scores", metrics=["gleu", "bleu"])
    gleu = dict(metric_run.metric_results.filter(metric="gleu").values_list("name", "score"))
    assert set(gleu) == {"src", "s_good", "s_mid", "s_low", "s_bad"}
    assert gleu["s_good"] > gleu["s_mid"] > gleu["s_low"] > gleu["s_bad"]
    human_scores = {"s_good": 1.0, "s_mid": 0.5, "s_low": 0.2, "src": 0.1, "s_bad": -1.0}
    human = _fake_human_run(campaign, human_scores)
    by_ld = metric_run.summary["gleu_by_edit_distance"]["all"]["bins"]
    assert [b["sentences"] for b in by_ld] == [0, 5, 0, 0, 0]  # every reference changes 1-2 tokens
    assert by_ld[1]["scores"]["s_good"] == pytest.approx(gleu["s_good"])  # the one bin is the corpus
    client.force_login(user)
    run_page = client.get(reverse("analysis-run", args=[metric_run.pk])).content.decode()
    assert "GLEU by edit distance (all)" in run_page
    assert (
        b"<svg" in client.get(reverse("analysis-run-plot", args=[metric_run.pk, "edit-distance-0"])).content
    )
    form_page = client.get(reverse("campaign-analysis", args=[campaign.pk])).content.decode()
    assert f'<option value="{metric_run.pk}">#{metric_run.pk} Metric scores' in form_page
    # Earlier runs are picked by name from a list, never typed as ids (issue 20).
    assert '<select name="human_run"' in form_page and f'<option value="{human.pk}">#{human.pk} ' in form_page
    assert 'type="number" name="human_run"' not in form_page
    typed = client.post(
        reverse("campaign-analysis", args=[campaign.pk]),
        {"kind": "meta_eval", "seed": 0, "human_run": metric_run.pk, "metric_run": metric_run.pk},
    )
    assert typed.status_code == 400 and "Select a valid choice" in typed.content.decode()
    response = client.post(
        reverse("campaign-analysis", args=[campaign.pk]),
        {"kind": "meta_eval", "seed": 0, "human_run": human.pk, "metric_run": metric_run.pk},
    )
    assert response.status_code == 302, response.content.decode()
    meta = AnalysisRun.objects.get(kind="meta_eval")
    assert meta.status == RunStatus.DONE and meta.parameters["human_run"] == human.pk
    rows = {(c.metric, c.reference_set): c for c in meta.correlation_results.all()}
    assert set(rows) == {("gleu", "all"), ("bleu", "all")}
    from scipy import stats

    names = sorted(human_scores)
    expected = stats.spearmanr([gleu[n] for n in names], [human_scores[n] for n in names])[0]
    assert rows[("gleu", "all")].systems == 5 and rows[("gleu", "all")].spearman == pytest.approx(expected)
    assert rows[("gleu", "all")].pearson == pytest.approx(
        stats.pearsonr([gleu[n] for n in names], [human_scores[n] for n in names])[0]
    )
    assert set(rows[("gleu", "all")].williams) == {"bleu/all"}
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert 'id="correlations"' in page and 'id="williams"' in page
    for name in ("heatmap", "williams", "scatter-0"):
        assert b"<svg" in client.get(reverse("analysis-run-plot", args=[meta.pk, name])).content
    assert client.get(reverse("analysis-run-plot", args=[meta.pk, "scatter-9"])).status_code == 404


def _fake_human_run(campaign, scores):
    from ranking.analysis.models import SystemRankResult

    run = AnalysisRun.objects.create(
        campaign=campaign, kind="trueskill", status="done", progress_total=1, progress_done=1
    )
    for i, (name, mu) in enumerate(sorted(scores.items(), key=lambda x: -x[1])):
        SystemRankResult.objects.create(
            run=run, name=name, position=i + 1, mu=mu, rank_lo=i + 1, rank_hi=i + 1, cluster=i + 1
        )
    return run


def test_a_duplicate_chunk_or_merge_delivery_changes_nothing():
    _user, campaign, rankings = ranking_campaign()
    run = _done_run(campaign, runs=20, chunks=2)
    before = list(run.rank_results.values_list("name", "mu"))
    chunk = run.chunks.first()
    assert services.run_chunk_execute(chunk_id=chunk.pk) is False
    assert services.analysis_run_merge(run_id=run.pk) is False
    assert services.analysis_run_start(run_id=run.pk) == []
    assert list(run.rank_results.values_list("name", "mu")) == before
    expected = rank(expand_pairwise(rankings), runs=20, seed=5)
    assert before == [(s.name, s.mu) for s in expected.systems]


def test_gleu_vs_number_of_references_run_and_curve(client):
    from ranking.models import Campaign
    from tests import factories

    user = factories.user("res", "researcher")
    project = factories.project(user)
    sources = ["He go to school .", "She like apple .", "They is here ."]
    systems = {
        "r1": ["He goes to school .", "She likes apples .", "They are here ."],
        "r2": ["He goes to the school .", "She likes an apple .", "They are here ."],
        "r3": ["He went to school .", "She likes apples .", "They're here ."],
        "sys": ["He goes to school .", "She like apple .", "They are here ."],
        "src": sources,
    }
    kinds = {"r1": "reference", "r2": "reference", "r3": "reference", "src": "source"}
    corpus, made = factories.corpus_with_systems(project, sources=sources, systems=systems, kinds=kinds)
    campaign = Campaign.objects.create(
        project=project, corpus=corpus, name="g", protocol="ranking", created_by=user
    )
    campaign.systems.set([s for s in made if s.kind != "reference"])
    run = _done_run(campaign, kind="gleu_vs_refs")
    from geceval.metrics.gleu.plus import gleu_plus

    rows = {(r.name, r.reference_set): r.score for r in run.metric_results.all()}
    assert set(rows) == {(n, f"{k} refs") for n in ("sys", "src") for k in (1, 2, 3)}
    refs = [systems["r1"], systems["r2"], systems["r3"]]
    assert rows[("sys", "2 refs")] == gleu_plus(sources, refs[:2], systems["sys"]).score
    client.force_login(user)
    assert 'id="plot-curve"' in client.get(reverse("analysis-run", args=[run.pk])).content.decode()
    assert b"<svg" in client.get(reverse("analysis-run-plot", args=[run.pk, "curve"])).content


def test_meta_evaluation_with_synthetic_systems_adds_hybrid_points():
    from tests.factories import prws_corpus_campaign

    _user, campaign = prws_corpus_campaign()
    human = _done_run(campaign, kind="prws_summary", samples=5)
    metric = _done_run(campaign, kind="metric_scores", metrics=["gleu"])
    meta = _done_run(
        campaign, kind="meta_eval", human_run=human.pk, metric_run=metric.pk, synthetic={"samples": 1}
    )
    row = meta.correlation_results.get()
    names = [p[0] for p in row.points]
    assert meta.summary["synthetic"] == 6 * 9 and row.systems == 4 + 54
    assert "a+b@50" in names and {"a", "b", "c", "src"} <= set(names)
    assert row.pearson > 0.9


def test_m2_and_errant_reference_annotation_is_cached_by_content_for_every_worker(client):
    from geceval.metrics.errant.scorer import errant_score_texts
    from ranking.analysis import metrics
    from ranking.analysis.models import AnalysisCache
    from ranking.models import Campaign
    from tests import factories

    user = factories.user("res", "researcher")
    project = factories.project(user)
    sources = ["He go to school .", "She like apple ."]
    systems = {
        "ref": ["He goes to school .", "She likes apples ."],
        "sys": ["He goes to school .", "She like apples ."],
    }
    corpus, made = factories.corpus_with_systems(
        project, sources=sources, systems=systems, kinds={"ref": "reference"}
    )
    campaign = Campaign.objects.create(
        project=project, corpus=corpus, name="e", protocol="ranking", created_by=user
    )
    campaign.systems.set([s for s in made if s.kind != "reference"])
    first = _done_run(campaign, kind="metric_scores", metrics=["m2", "errant"])
    assert AnalysisCache.objects.filter(kind="errant-reference-m2").count() == 1
    metrics._REFERENCE_SETS.clear()  # another worker process: only the database cache is left
    second = _done_run(campaign, kind="metric_scores", metrics=["m2", "errant"])
    scores = lambda run: dict(run.metric_results.values_list("metric", "score"))  # noqa: E731
    assert scores(first) == scores(second)
    assert AnalysisCache.objects.count() == 1
    assert scores(first)["errant"] == errant_score_texts(sources, [systems["ref"]], systems["sys"]).f
    errant_row = first.metric_results.get(metric="errant")
    assert errant_row.details["edit_types"] == {"NOUN:NUM": 1, "VERB:SVA": 1}  # goes, apples
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[first.pk])).content.decode()
    assert 'id="edit-types"' in page
    assert b"<svg" in client.get(reverse("analysis-run-plot", args=[first.pk, "types-0"])).content
    assert client.get(reverse("analysis-run-plot", args=[first.pk, "types-1"])).status_code == 404


@pytest.mark.parametrize("fmt", ["wmt-csv", "appraise-xml"])
def test_our_export_imported_by_the_crowd_importer_gives_the_same_run_result(tmp_path, fmt):
    from crowd.importing import judgments_import

    _user, campaign, _r = ranking_campaign()
    first = _done_run(campaign, runs=30, chunks=2, seed=4)
    path = tmp_path / ("export.csv" if fmt == "wmt-csv" else "export.xml")
    path.write_text("".join(exports.iter_judgments(campaign, fmt)))
    report = judgments_import(project=campaign.project, name="again", fmt=fmt, path_or_bytes=str(path))
    second = _done_run(report.campaign, runs=30, chunks=3, seed=4)
    table = lambda run: list(run.rank_results.values_list("name", "mu", "rank_lo", "rank_hi", "cluster"))  # noqa: E731
    assert second.pairs_used == first.pairs_used == 900
    assert table(second) == table(first)


def test_ensemble_run_trains_on_real_and_synthetic_systems_and_offers_the_model(client):
    from geceval.metrics.ensemble.model import EnsembleModel, ScorerFeatures
    from tests.factories import prws_corpus_campaign

    user, campaign = prws_corpus_campaign()
    human = _done_run(campaign, kind="prws_summary", samples=5)
    run = _done_run(campaign, kind="ensemble", human_run=human.pk, components=["chrf", "gleu"], folds=5)
    cv = run.summary["cross_validation"]
    assert cv["n"] == 4 + 54 and cv["n_real"] == 4 and cv["folds"] == 5
    rows = {r.name: r for r in run.metric_results.filter(metric="ensemble")}
    assert set(rows) == {"a", "b", "c", "src"}
    model = EnsembleModel.from_json(run.summary["model"])
    assert model.features == ["chrf:p", "chrf:r", "gleu"] or len(model.features) == run.summary["features"]
    texts = {s: [o.text for o in s_.outputs.order_by("sentence__position")] for s, s_ in
             ((s.name, s) for s in campaign.corpus.systems.all())}  # fmt: skip
    features = ScorerFeatures([t.text for t in campaign.corpus.sentences.order_by("position")], [texts["ref"]],
                              components=["chrf", "gleu"])(texts["a"])  # fmt: skip
    assert rows["a"].score == pytest.approx(model.predict(features))
    assert rows["a"].details["human"] == pytest.approx(90 * 0.8 + 30.5 * 0.2)
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[run.pk])).content.decode()
    assert 'id="cross-validation"' in page
    download = client.get(reverse("analysis-run-export", args=[run.pk, "model.json"]))
    assert EnsembleModel.from_json(json.loads(download.content)).coefficients == model.coefficients
