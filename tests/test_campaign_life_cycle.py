"""Issue 20: a campaign's life cycle (draft, pilot, active, paused, closed) and who gets work when."""

from __future__ import annotations

import re

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from geceval.errors import GecInputError
from ranking.models import Campaign, Hit
from ranking.services import NoWork, assignment_request, campaign_create, campaign_transition
from ranking.services.life_cycle import PILOT_HITS, TRANSITIONS, transitions_for
from ranking.work.assignments import assignment_next_screen
from tests.factories import trap_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return trap_world(6)


def make(world, status="draft", **options):
    researcher, _, project, corpus, by_name = world
    options.setdefault("name", "cycle <b>1</b>")
    return campaign_create(
        project=project,
        corpus=corpus,
        systems=[by_name[n] for n in ("src", "a", "b", "c")],
        created_by=researcher,
        judgments_per_item=1,
        screens_per_hit=1,
        status=status,
        **options,
    )


def test_each_step_is_allowed_only_from_its_states_and_every_step_can_be_undone(world):
    campaign = make(world)
    assert campaign.status == "draft"
    assert [t.action for t in transitions_for(campaign)] == ["launch", "pilot", "close"]
    with pytest.raises(GecInputError, match="This campaign is draft: it cannot be paused now"):
        campaign_transition(campaign=campaign, action="pause")
    with pytest.raises(GecInputError, match="Choose one of the buttons"):
        campaign_transition(campaign=campaign, action="explode")
    walk = ["pilot", "launch", "pause", "resume", "close", "reopen", "pilot", "draft"]
    seen = []
    for action in walk:
        campaign_transition(campaign=campaign, action=action)
        campaign.refresh_from_db()
        seen.append(campaign.status)
    assert seen == ["pilot", "active", "paused", "active", "closed", "paused", "pilot", "draft"]
    # No one-way click: from each step's target some step leads back to each of its sources.
    for step in TRANSITIONS:
        for source in step.sources:
            assert _reachable(step.target, source), (step.action, source)


def _reachable(start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        for step in TRANSITIONS:
            if here in step.sources and step.target not in seen:
                seen.add(step.target)
                todo.append(step.target)
    return goal in seen


def test_back_to_draft_is_refused_once_a_worker_had_a_hit(world):
    campaign = make(world, status="active")
    assignment_request(campaign=campaign, worker=world[1][0])
    campaign_transition(campaign=campaign, action="pause")
    assert "draft" not in [t.action for t in transitions_for(campaign)]
    with pytest.raises(GecInputError, match="pause or close it instead"):
        campaign_transition(campaign=campaign, action="draft")


def test_the_database_refuses_an_unknown_status(world):
    campaign = make(world)
    with pytest.raises(IntegrityError), transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(status="live-ish")


@pytest.mark.parametrize(
    ("status", "says"),
    [("draft", "has not started yet"), ("paused", "is paused"), ("closed", "is closed")],
)
def test_no_new_hits_from_a_draft_paused_or_closed_campaign(world, status, says):
    campaign = make(world, status="active")
    started = assignment_request(campaign=campaign, worker=world[1][0])
    Campaign.objects.filter(pk=campaign.pk).update(status=status)
    campaign.refresh_from_db()
    with pytest.raises(NoWork, match=says):
        assignment_request(campaign=campaign, worker=world[1][1])
    if status != "draft":  # a HIT in progress may be finished
        assert assignment_request(campaign=campaign, worker=world[1][0]) == started
        assert assignment_next_screen(started) is not None


def test_a_pilot_hands_out_only_its_first_hits(world):
    campaign = make(world)
    campaign_transition(campaign=campaign, action="pilot")
    workers = world[1]
    hits = Hit.objects.filter(campaign=campaign, qualification=False).count()
    assert hits > PILOT_HITS
    got = []
    for worker in workers:
        try:
            while True:
                got.append(assignment_request(campaign=campaign, worker=worker))
                got[-1].status = "submitted"
                got[-1].save(update_fields=["status"])
        except NoWork as reason:
            assert "pilot" in str(reason)
    indexes = {a.hit.index for a in got}
    first = sorted(Hit.objects.filter(campaign=campaign, qualification=False).values_list("index", flat=True))
    assert indexes == set(first[:PILOT_HITS])
    campaign_transition(campaign=campaign, action="launch")
    assert assignment_request(campaign=campaign, worker=workers[0]).hit.index not in indexes


def test_workers_page_and_api_say_why_a_draft_gives_no_work(world):
    campaign = make(world)
    worker = world[1][0]
    client = Client()
    client.force_login(worker)
    page = client.get(reverse("campaign-work", args=[campaign.pk]))
    assert page.status_code == 200
    assert "This campaign has not started yet" in page.content.decode()
    assert campaign.name not in client.get(reverse("home")).content.decode()  # not listed as work
    api = APIClient()
    api.force_authenticate(worker)
    response = api.post(f"/api/work/campaigns/{campaign.pk}/request/")
    assert response.status_code == 409
    assert "has not started yet" in response.json()["detail"]


def test_crowd_entry_to_a_draft_gives_no_hit_and_a_plain_message(client):
    from crowd.services.sessions import invite_links_create
    from tests.factories import crowd_campaign

    campaign = crowd_campaign()[2]
    Campaign.objects.filter(pk=campaign.pk).update(status="draft")
    (invite,) = invite_links_create(campaign=campaign, count=1)
    url = client.get(reverse("crowd-invite", args=[invite.code]))["Location"]
    client.post(url, {"consent": "yes"})
    page = client.get(url)
    assert "ranking/work_rank.html" not in [t.name for t in page.templates]
    assert "This campaign has not started yet" in page.content.decode()


def _token(page) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)


def test_the_page_buttons_walk_the_life_cycle_with_csrf_and_a_close_confirmation(world):
    campaign = make(world)
    client = Client(enforce_csrf_checks=True)
    client.force_login(world[0])
    detail = reverse("campaign-detail", args=[campaign.pk])
    status_url = reverse("campaign-status", args=[campaign.pk])
    page = client.get(detail)
    html = page.content.decode()
    assert "cycle &lt;b&gt;1&lt;/b&gt;" in html and "cycle <b>1</b>" not in html
    assert 'value="launch"' in html and 'value="pilot"' in html and 'value="pause"' not in html
    assert client.post(status_url, {"action": "launch"}).status_code == 403  # no CSRF token
    token = _token(page)
    done = client.post(status_url, {"action": "launch", "csrfmiddlewaretoken": token}, follow=True)
    assert "launched: workers get HITs" in done.content.decode()
    campaign.refresh_from_db()
    assert campaign.status == "active"
    ask = client.post(status_url, {"action": "close", "csrfmiddlewaretoken": token})
    assert ask.status_code == 200
    text = ask.content.decode()
    assert "no new HITs are given out" in text and "may finish it" in text
    assert "cycle &lt;b&gt;1&lt;/b&gt;" in text and "cycle <b>1</b>" not in text
    campaign.refresh_from_db()
    assert campaign.status == "active"  # asking is not closing
    confirm = {"action": "close", "confirm": "yes", "csrfmiddlewaretoken": token}
    closed = client.post(status_url, confirm, follow=True)
    assert "closed: no new HITs; HITs in progress may be finished" in closed.content.decode()
    assert 'value="reopen"' in closed.content.decode()
    refused = client.post(status_url, {"action": "resume", "csrfmiddlewaretoken": token}, follow=True)
    assert "This campaign is closed: it cannot be resumed now." in refused.content.decode()
    client.post(status_url, {"action": "reopen", "csrfmiddlewaretoken": token})
    campaign.refresh_from_db()
    assert campaign.status == "paused"


def test_the_api_creates_drafts_and_steps_through_the_life_cycle(world):
    researcher, _, _, corpus, by_name = world
    api = APIClient()
    api.force_authenticate(researcher)
    body = {"name": "api cycle", "corpus": corpus.pk, "systems": [by_name["a"].pk, by_name["b"].pk]}
    created = api.post("/api/campaigns/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["status"] == "draft"
    pk = created.json()["id"]
    url = f"/api/campaigns/{pk}/transition/"
    assert api.post(url, {"action": "launch"}, format="json").json()["status"] == "active"
    refused = api.post(url, {"action": "reopen"}, format="json")
    assert refused.status_code == 409 and "cannot be reopened" in refused.json()["detail"]
