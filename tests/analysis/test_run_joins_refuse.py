"""A meta-evaluation run whose join of judged systems or pairs with metric scores falls under the
share fails with a message naming what did not match (issue 34), unless allowed on purpose."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from ranking.analysis import services
from ranking.analysis.models import RunStatus, SentenceCorrelationResult
from tests.analysis.test_sentence_level_pages import GOOD, JUDGED, OUTPUTS, _campaign, _upload
from tests.factories import done_run

pytestmark = pytest.mark.django_db


def _meta(client, campaign, human, metric, **extra):
    response = client.post(
        reverse("campaign-analysis", args=[campaign.pk]),
        {"kind": "meta_eval", "seed": 0, "human_run": human.pk, "metric_run": metric.pk, **extra},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    return services.AnalysisRun.objects.filter(kind="meta_eval").latest("pk")


def test_a_run_with_system_scores_for_half_the_judged_systems_fails_naming_them(client):
    user, campaign = _campaign()
    client.force_login(user)
    assert _upload(client, campaign, "HALF", "half.csv", b"system,score\na,8\nb,4\n").status_code == 302
    human = done_run(campaign, "trueskill", runs=10, chunks=1)
    metric = done_run(campaign, "metric_scores", metrics=["chrf"])
    meta = _meta(client, campaign, human, metric, imported=["HALF"])
    assert meta.status == RunStatus.FAILED
    assert "HALF/imported: only 2 of 4 judged systems (50.0%) found their scores" in meta.error
    assert "the human run's systems name c, src but the scores have a, b" in meta.error
    assert "allow missing" in meta.error
    page = client.get(reverse("analysis-run", args=[meta.pk])).content.decode()
    assert "only 2 of 4 judged systems" in page
    allowed = _meta(client, campaign, human, metric, imported=["HALF"], allow_missing="on")
    assert allowed.status == RunStatus.DONE, allowed.error
    assert allowed.parameters["allow_missing"] is True
    assert allowed.correlation_results.get(metric="HALF").systems == 2
    page = client.get(reverse("analysis-run", args=[allowed.pk])).content.decode()
    assert "accepting judged systems or pairs without scores" in page


def test_a_run_with_sentence_scores_for_half_the_judged_sentences_fails(client):
    user, campaign = _campaign()
    client.force_login(user)
    half = {n: [1.0 if OUTPUTS[n][i] == GOOD[i] else 0.0 for i in range(5)] for n in JUDGED}
    assert _upload(client, campaign, "FIVE", "five.json", json.dumps(half).encode()).status_code == 302
    human = done_run(campaign, "trueskill", runs=10, chunks=1)
    metric = done_run(campaign, "metric_scores", metrics=["chrf"])
    meta = _meta(client, campaign, human, metric, imported=["FIVE"])
    assert meta.status == RunStatus.FAILED
    assert "FIVE/imported (sentence level): only" in meta.error and "judged pairs" in meta.error
    assert "name sentences" in meta.error and "that have no score" in meta.error
    allowed = _meta(client, campaign, human, metric, imported=["FIVE"], allow_missing="on")
    assert allowed.status == RunStatus.DONE, allowed.error
    assert SentenceCorrelationResult.objects.filter(run=allowed, metric="FIVE").exists()


def test_a_run_over_imported_appraise_judgments_says_how_their_items_named_sentences(client):
    from crowd.importing import judgments_import
    from tests.crowd.test_import import APPRAISE_SRC_ID
    from tests.factories import corpus_with_systems, researcher_and_project

    user, project = researcher_and_project()
    lines = ["First one .", "Second one .", "Third one ."]
    corpus, _ = corpus_with_systems(
        project, sources=lines, systems={"BART": lines, "T5": lines, "Riken": lines}
    )
    report = judgments_import(
        project=project, name="seeda", fmt="appraise-xml", path_or_bytes=APPRAISE_SRC_ID, corpus=corpus
    )
    run = done_run(report.campaign, "trueskill", runs=10, chunks=1)
    client.force_login(user)
    page = client.get(reverse("analysis-run", args=[run.pk])).content.decode()
    assert (
        '<li id="item-key">Judgments imported from Appraise XML: sentences keyed by src-id, base 1 '
        "(detected: an item has the corpus&#x27; line count, 3, as src-id); sentence index = src-id - 1</li>"
    ) in page


def test_synthetic_systems_refuse_when_judged_systems_have_no_outputs_to_score():
    """Hybrids are built from the systems that have both segment scores and outputs: a metric run
    whose outputs lack half the judged systems used to leave them out of the hybrids silently."""
    from ranking.analysis.models import RunInput
    from tests.factories import prws_corpus_campaign

    _user, campaign = prws_corpus_campaign()
    human = done_run(campaign, "prws_summary", samples=5)
    metric = done_run(campaign, "metric_scores", metrics=["gleu"])
    metric_input = RunInput.objects.get(run=metric)
    metric_input.data["outputs"] = {
        n: v for n, v in metric_input.data["outputs"].items() if n in ("a", "src")
    }
    metric_input.save(update_fields=["data"])
    meta = services.analysis_run_create(
        campaign=campaign,
        kind="meta_eval",
        parameters={"human_run": human.pk, "metric_run": metric.pk, "synthetic": {"samples": 1}},
        seed=3,
    )
    services.analysis_run_enqueue(meta)
    meta.refresh_from_db()
    assert meta.status == RunStatus.FAILED
    assert "outputs: only 2 of 4 judged systems (50.0%) found their scores" in meta.error
    assert "the human run's segment scores name b, c but the corpus' outputs have a, src" in meta.error
