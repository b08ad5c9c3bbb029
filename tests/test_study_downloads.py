"""Issue 39: the web pages' downloads carry the study file they came from, as ``export_judgments`` does
on disk. The pages link to ``?with=study``: one zip holding the file and ``FILE.study.yaml`` beside it
(the run's study as the run saw it); the bare URL stays the plain file for scripts."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from django.urls import reverse

from ranking.analysis import services
from ranking.analysis.models import RunStatus
from ranking.services import campaign_scores_recompute
from ranking.study.documents import study_export
from tests.factories import ranking_campaign

pytestmark = pytest.mark.django_db


def _zip(response) -> zipfile.ZipFile:
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    body = b"".join(response.streaming_content)
    return zipfile.ZipFile(io.BytesIO(body))


def test_the_pages_csv_links_download_a_zip_with_the_study_file_beside_the_csv(client):
    user, campaign, _r = ranking_campaign()
    run = services.analysis_run_create(campaign=campaign, kind="trueskill", parameters={"runs": 10}, seed=3)
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert campaign_scores_recompute(campaign_id=campaign.pk)  # the page's table and its CSV link
    campaign.instructions = "Changed after the run."  # the run's file is the study the run saw
    campaign.save(update_fields=["instructions"])
    client.force_login(user)
    study = study_export(campaign)
    assert study["instructions"]["instructions"] == "Changed after the run."

    detail = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    scores = reverse("campaign-scores-csv", args=[campaign.pk])
    assert f'href="{scores}?with=study"' in detail
    bundle = _zip(client.get(scores, {"with": "study"}))
    name = f"campaign-{campaign.pk}-scores.csv"
    assert bundle.namelist() == [name, f"{name}.study.yaml"]
    assert bundle.read(name) == client.get(scores).content  # the same CSV as the bare URL's
    assert yaml.safe_load(bundle.read(f"{name}.study.yaml")) == study
    assert bundle.testzip() is None

    analysis = client.get(reverse("campaign-analysis", args=[campaign.pk])).content.decode()
    export = reverse("campaign-judgments-export", args=[campaign.pk, "wmt-csv"])
    assert f'href="{export}?with=study"' in analysis
    bundle = _zip(client.get(export, {"with": "study"}))
    name = f"campaign-{campaign.pk}-wmt-csv.csv"
    assert bundle.namelist() == [name, f"{name}.study.yaml"]
    assert bundle.read(name) == b"".join(client.get(export).streaming_content)
    assert bundle.read(name).count(b"\n") > 100  # the campaign's 300 judgments, streamed through the zip
    assert yaml.safe_load(bundle.read(f"{name}.study.yaml")) == study

    page = client.get(reverse("analysis-run", args=[run.pk])).content.decode()
    ranking = reverse("analysis-run-export", args=[run.pk, "ranking.csv"])
    assert f'href="{ranking}?with=study"' in page
    bundle = _zip(client.get(ranking, {"with": "study"}))
    name = f"run-{run.pk}-ranking.csv"
    assert bundle.namelist() == [name, f"{name}.study.yaml"]
    assert bundle.read(name) == client.get(ranking).content
    carried = yaml.safe_load(bundle.read(f"{name}.study.yaml"))
    assert carried == run.study and carried["instructions"]["instructions"] != "Changed after the run."
    assert client.get(ranking).get("Content-Type") == "text/csv; charset=utf-8"


def test_a_run_made_before_runs_kept_their_study_does_not_present_todays_study_as_its_own(client):
    """An older run has no study snapshot: its zip holds no ``.study.yaml`` (which would claim the
    campaign's study of today as the run's), but a note saying the run's study is unknown and the
    campaign's current study under a name and heading that say it is not the run's."""
    user, campaign, _r = ranking_campaign()
    run = services.analysis_run_create(campaign=campaign, kind="trueskill", parameters={"runs": 10}, seed=3)
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    type(run).objects.filter(pk=run.pk).update(study={})  # as a run made before issue 39 has it
    campaign.instructions = "Changed after the run."
    campaign.save(update_fields=["instructions"])
    client.force_login(user)

    ranking = reverse("analysis-run-export", args=[run.pk, "ranking.csv"])
    bundle = _zip(client.get(ranking, {"with": "study"}))
    name = f"run-{run.pk}-ranking.csv"
    assert bundle.namelist() == [name, f"{name}.NO-STUDY-SNAPSHOT.txt", f"{name}.campaign-study-now.yaml"]
    assert not any(n.endswith(".study.yaml") for n in bundle.namelist())
    assert bundle.read(name) == client.get(ranking).content
    note = bundle.read(f"{name}.NO-STUDY-SNAPSHOT.txt").decode()
    assert f"Analysis run {run.pk} of campaign {campaign.name!r} was made on {run.created:%Y-%m-%d}" in note
    assert "The study as this run saw it is not known" in note
    assert "instructions" in note and "run the analysis again" in note
    current = bundle.read(f"{name}.campaign-study-now.yaml").decode()
    assert current.startswith(f"# NOT the study of Analysis run {run.pk} ")
    assert yaml.safe_load(current) == study_export(campaign)  # today's, labelled so
    assert bundle.testzip() is None
