"""The workers' API: the same HIT flow as the pages, with nothing that tells a trap apart."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from ranking.models import ScreenJudgment
from ranking.services import campaign_create
from tests import factories
from tests.factories import trap_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def api_world():
    researcher, workers, project, corpus, by_name = trap_world(2)
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="api",
        systems=[by_name[n] for n in ("src", "a", "b")],
        created_by=researcher,
        trap_system=by_name["trap"],
        trap_rate=1.0,
        judgments_per_item=1,
        screens_per_hit=3,
    )
    return workers, campaign


def client_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_worker_requests_a_hit_and_submits_screens_idempotently(api_world):
    workers, campaign = api_world
    api = client_for(workers[0])
    body = api.post(f"/api/work/campaigns/{campaign.pk}/request/").json()
    assert (body["done"], body["total"], body["status"]) == (0, 3, "active")
    shapes = set()
    while body["screen"] is not None:
        screen = body["screen"]
        shapes |= {tuple(sorted(c)) for c in screen["candidates"]}
        answers = [{"position": c["position"], "score": 40} for c in screen["candidates"]]
        url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
        first = api.post(url, {"answers": answers, "seconds": 9.5}, format="json")
        assert first.status_code == 201, first.content
        again = api.post(url, {"answers": answers}, format="json")
        assert again.status_code in (200, 400)  # a no-op, or refused once the HIT is finished
        body = first.json()
    assert body["status"] == "submitted"
    assert shapes == {("position", "text")}  # positions and texts only, trap or not
    assert ScreenJudgment.objects.filter(judge=workers[0]).count() == 3


def test_forged_and_foreign_submissions_are_refused(api_world):
    workers, campaign = api_world
    mine = client_for(workers[0]).post(f"/api/work/campaigns/{campaign.pk}/request/").json()
    other = client_for(workers[1])
    screen = mine["screen"]
    answers = [{"position": c["position"], "score": 40} for c in screen["candidates"]]
    assert other.get(f"/api/work/assignments/{mine['id']}/").status_code == 404
    assert (
        other.post(
            f"/api/work/assignments/{mine['id']}/screens/{screen['id']}/", {"answers": answers}, format="json"
        ).status_code
        == 404
    )
    api = client_for(workers[0])
    url = f"/api/work/assignments/{mine['id']}/screens/{screen['id']}/"
    too_high = [{"position": c["position"], "score": 101} for c in screen["candidates"]]
    assert api.post(url, {"answers": too_high}, format="json").status_code == 400
    twice = [{"position": 0, "score": 1}, {"position": 0, "score": 2}]
    assert api.post(url, {"answers": twice}, format="json").status_code == 400
    assert (
        api.post(
            f"/api/work/assignments/{mine['id']}/screens/999999/", {"answers": answers}, format="json"
        ).status_code
        == 404
    )
    assert not ScreenJudgment.objects.exists()


def test_researchers_cannot_use_the_workers_api_and_workers_cannot_see_results(api_world):
    workers, campaign = api_world
    researcher = factories.user("res2", "researcher")
    assert client_for(researcher).post(f"/api/work/campaigns/{campaign.pk}/request/").status_code == 403
    assert client_for(workers[0]).get(f"/api/campaigns/{campaign.pk}/results/").status_code == 403
