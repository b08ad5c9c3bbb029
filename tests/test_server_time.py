"""Issue 17: the time on a screen is the server's, on the pages and on the workers' API alike.

The finding: the workers' API stored the client's ``"seconds": 31.5`` as the time on the screen, so
the too-fast check was blind there. The first test reproduced it (31.5 stored, not too fast) before
the change and fails to now.
"""

from __future__ import annotations

import time

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from ranking.models import ScreenJudgment
from ranking.selectors import campaign_workers
from ranking.services import campaign_create
from ranking.work.screen_handles import screen_id_from_handle
from ranking.work.screen_time import screen_seconds, screen_stamp
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
        judgments_per_item=2,
        screens_per_hit=3,
    )
    return workers, campaign


def client_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def first_screen(api: APIClient, campaign) -> tuple[dict, str, list[dict]]:
    body = api.post(f"/api/work/campaigns/{campaign.pk}/request/").json()
    screen = body["screen"]
    answers = [{"position": c["position"], "score": 40} for c in screen["candidates"]]
    return body, f"/api/work/assignments/{body['id']}/screens/{screen['id']}/", answers


def test_finding_a_client_reported_time_is_kept_apart_and_never_passes_the_too_fast_check(api_world):
    workers, campaign = api_world
    api = client_for(workers[0])
    _, url, answers = first_screen(api, campaign)
    assert api.post(url, {"answers": answers, "seconds": 31.5}, format="json").status_code == 201
    judgment = ScreenJudgment.objects.get()
    assert (judgment.seconds, judgment.client_seconds) == (None, 31.5)  # no ticket: no server time
    (row,) = campaign_workers(campaign)
    assert (row.too_fast, row.no_server_time, row.suspicious_time) == (0, 1, 1)


def test_the_ticket_served_with_a_screen_gives_the_server_time_whatever_the_client_says(api_world):
    workers, campaign = api_world
    api = client_for(workers[0])
    body, url, answers = first_screen(api, campaign)
    ticket = body["screen"]["ticket"]
    response = api.post(url, {"answers": answers, "ticket": ticket, "seconds": 31.5}, format="json")
    assert response.status_code == 201
    judgment = ScreenJudgment.objects.get()
    assert judgment.client_seconds == 31.5
    assert 0 <= judgment.seconds < 5  # submitted at once: too fast, as the server saw it
    (row,) = campaign_workers(campaign)
    assert (row.too_fast, row.no_server_time) == (1, 0)
    # the next screen's ticket, issued 40 s before the submit, gives 40 s
    nxt = response.json()["screen"]
    url2 = f"/api/work/assignments/{body['id']}/screens/{nxt['id']}/"
    nxt_pk = screen_id_from_handle(nxt["id"], assignment_id=body["id"])
    early = screen_stamp(screen_id=nxt_pk, assignment_id=body["id"], now=time.time() - 40)
    answers2 = [{"position": c["position"], "score": 60} for c in nxt["candidates"]]
    assert api.post(url2, {"answers": answers2, "ticket": early}, format="json").status_code == 201
    later = ScreenJudgment.objects.get(screen_id=nxt_pk)
    assert 40 <= later.seconds < 45 and later.client_seconds is None


def test_a_forged_or_borrowed_ticket_gives_no_time(api_world):
    workers, campaign = api_world
    mine, url, answers = first_screen(client_for(workers[0]), campaign)
    theirs, their_url, their_answers = first_screen(client_for(workers[1]), campaign)
    old = time.time() - 60
    my_pk = screen_id_from_handle(mine["screen"]["id"], assignment_id=mine["id"])
    their_pk = screen_id_from_handle(theirs["screen"]["id"], assignment_id=theirs["id"])
    forged = screen_stamp(screen_id=my_pk, assignment_id=mine["id"], now=old)[:-2] + "xx"
    other_screen = screen_stamp(screen_id=my_pk + 1000, assignment_id=mine["id"], now=old)
    other_assignment = screen_stamp(screen_id=their_pk, assignment_id=mine["id"], now=old)
    for ticket in (forged, other_screen, "x" * 150):
        response = client_for(workers[0]).post(url, {"answers": answers, "ticket": ticket}, format="json")
        assert response.status_code == 201
        assert ScreenJudgment.objects.get(judge=workers[0]).seconds is None
        ScreenJudgment.objects.filter(judge=workers[0]).delete()
    api = client_for(workers[1])
    assert (
        api.post(their_url, {"answers": their_answers, "ticket": other_assignment}, format="json").status_code
        == 201
    )
    assert ScreenJudgment.objects.get(judge=workers[1]).seconds is None
    too_long = api.post(their_url, {"answers": their_answers, "ticket": "x" * 201}, format="json")
    assert too_long.status_code == 400


def test_the_stamp_is_bound_to_screen_and_assignment():
    now = 1_000_000.0
    stamp = screen_stamp(screen_id=7, assignment_id=3, now=now)
    assert screen_seconds(stamp, screen_id=7, assignment_id=3, now=now + 12.5) == 12.5
    assert screen_seconds(stamp, screen_id=7, assignment_id=4, now=now + 12.5) is None
    assert screen_seconds(stamp, screen_id=8, assignment_id=3, now=now + 12.5) is None
    assert screen_seconds(stamp, screen_id=7, assignment_id=3, now=now - 5) == 0.0  # clock skew: never < 0
    assert screen_seconds(None, screen_id=7, assignment_id=3) is None
    pilot = screen_stamp(screen_id=7, assignment_id=None, now=now)  # a page outside any assignment
    assert screen_seconds(pilot, screen_id=7, assignment_id=3, now=now + 1) is None
    assert screen_seconds(pilot, screen_id=7, assignment_id=0, now=now + 1) is None


def test_the_work_page_stamp_counts_only_for_its_own_assignment(client, api_world):
    workers, campaign = api_world
    client.force_login(workers[0])
    page = client.get(reverse("campaign-work", args=[campaign.pk]), follow=True)
    url, context = page.redirect_chain[-1][0], page.context
    form = {"screen": context["screen_handle"], "started": context["started"]}
    form |= {f"score-{c.position}": "55" for c in context["candidates"]}
    assert client.post(url, form).status_code == 302
    judgment = ScreenJudgment.objects.get()
    assert judgment.seconds is not None and judgment.seconds < 5 and judgment.client_seconds is None
    # a stamp issued for another assignment of the same screen gives no time
    client.force_login(workers[1])
    page = client.get(reverse("campaign-work", args=[campaign.pk]), follow=True)
    url, context = page.redirect_chain[-1][0], page.context
    foreign = screen_stamp(screen_id=context["screen"].pk, assignment_id=context["assignment"].pk + 99)
    form = {"screen": context["screen_handle"], "started": foreign}
    form |= {f"score-{c.position}": "55" for c in context["candidates"]}
    assert client.post(url, form).status_code == 302
    assert ScreenJudgment.objects.get(judge=workers[1]).seconds is None
