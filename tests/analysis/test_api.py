"""The analysis API: create a run, poll progress, read results, export; researchers only, own projects only."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from ranking.analysis import services
from tests import factories
from tests.factories import ranking_campaign

pytestmark = pytest.mark.django_db
BASE = "/api/analysis-runs/"


def _client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_api_creates_a_trueskill_run_and_returns_progress_and_results():
    user, campaign, _r = ranking_campaign()
    api = _client(user)
    response = api.post(
        BASE, {"campaign": campaign.pk, "kind": "trueskill", "seed": 2, "parameters": {"runs": 20, "chunks": 2}},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]
    assert response.json()["status"] == "done" and response.json()["pairs_used"] == 900
    progress = api.get(f"{BASE}{run_id}/progress/").json()
    assert progress["percent"] == 100.0 and progress["total"] == 20
    results = api.get(f"{BASE}{run_id}/results/").json()
    assert results["ranks"][0]["name"] == "best" and len(results["ranks"]) == 4
    tex = api.get(f"{BASE}{run_id}/export/?fmt=ranking.tex")
    assert tex.status_code == 200 and b"\\midrule" in tex.content
    assert api.get(f"{BASE}{run_id}/export/?fmt=metrics.csv").status_code == 404


def test_api_rejects_bad_parameters_and_foreign_campaigns():
    user, campaign, _r = ranking_campaign()
    api = _client(user)
    bad = api.post(
        BASE, {"campaign": campaign.pk, "kind": "trueskill", "parameters": {"runs": 0}}, format="json"
    )
    assert bad.status_code == 400 and "runs" in bad.json()["detail"]
    other = _client(factories.user("other", "researcher"))
    assert other.post(BASE, {"campaign": campaign.pk, "kind": "trueskill"}, format="json").status_code == 400
    annotator = _client(factories.user("ann", "annotator"))
    assert annotator.get(BASE).status_code == 403


def test_run_list_takes_the_same_number_of_queries_for_1_and_3_runs():
    user, campaign, _r = ranking_campaign(n=30)
    api = _client(user)
    api.get(BASE)  # warm-up: per-process caches (content types) are not part of the list's shape
    counts = {}
    for seed in range(3):
        run = services.analysis_run_create(
            campaign=campaign, kind="trueskill", parameters={"runs": 5, "chunks": 1}, seed=seed
        )
        services.analysis_run_enqueue(run)
        if seed in (0, 2):
            with CaptureQueriesContext(connection) as ctx:
                response = api.get(BASE)
            body = response.json()
            assert len(body["results"] if isinstance(body, dict) else body) == seed + 1
            counts[seed + 1] = len(ctx.captured_queries)
    assert counts[1] == counts[3], counts


def test_openapi_schema_describes_the_analysis_endpoints_without_warnings(capsys):
    from drf_spectacular.generators import SchemaGenerator

    from config.api_urls import router

    schema = SchemaGenerator(patterns=router.urls).get_schema(request=None, public=True)
    paths = schema["paths"]
    assert {"/analysis-runs/", "/analysis-runs/{id}/progress/", "/analysis-runs/{id}/results/"} <= set(paths)
    assert "/judgment-exports/{id}/" in paths
    assert "post" in paths["/analysis-runs/"] and "post" in paths["/analysis-runs/{id}/resume/"]
    assert "Warning" not in capsys.readouterr().err


def test_api_streams_a_campaigns_judgments_to_researchers_of_its_project_only():
    user, campaign, _rankings = ranking_campaign(n=20)
    api = _client(user)
    response = api.get(f"/api/judgment-exports/{campaign.pk}/?fmt=wmt-csv")
    assert response.status_code == 200 and response.streaming
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[0].startswith("srcIndex,segmentId,judgeId,system1Id,system1rank") and len(lines) == 21
    assert api.get(f"/api/judgment-exports/{campaign.pk}/?fmt=xls").status_code == 400
    other = _client(factories.user("other", "researcher"))
    assert other.get(f"/api/judgment-exports/{campaign.pk}/").status_code == 404
