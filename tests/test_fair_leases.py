"""Fair leases (issue 18): a claim holds its HIT for ASSIGNMENT_LEASE_MINUTES, renewed by each
submit and by the open page's heartbeat up to the campaign's assignment minutes; at most
LIVE_ASSIGNMENTS_PER_ADDRESS live HITs per client address through the crowd pages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from crowd.services.sessions import invite_links_create, session_from_token
from ranking.models import Assignment, AssignmentStatus
from ranking.selectors import screen_candidates_for_submit
from ranking.services import CandidateScore, assignment_request, screen_submit
from ranking.work.assignments import assignment_next_screen
from ranking.work.leases import assignment_heartbeat
from tests import factories
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def leases(settings):
    settings.ASSIGNMENT_LEASE_MINUTES = 15
    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 2
    # The limit of new identities per address (tests/crowd/test_verified_entry.py) would stop the
    # twelve visits at three before this rule is reached.
    settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY = 0


@pytest.fixture
def campaign(leases):
    return crowd_campaign(judgments_per_item=4)[2]  # 2 HITs x 4 = 8 slots, 60 assignment minutes


def _answers(screen):
    candidates = screen_candidates_for_submit(screen, screen.campaign)
    return {c.pk: CandidateScore(score=None, rank=i + 1) for i, c in enumerate(candidates)}


def test_a_claim_holds_its_hit_for_the_lease_not_the_whole_assignment_time(campaign):
    worker = factories.user("w-lease", "annotator")
    t0 = timezone.now()
    a = assignment_request(campaign=campaign, worker=worker, now=t0)
    assert campaign.assignment_minutes == 60
    assert a.expires == t0 + timedelta(minutes=15)
    assert Assignment.objects.get(pk=a.pk).expires == t0 + timedelta(minutes=15)


def test_each_submit_renews_the_lease_up_to_the_assignment_minutes(campaign):
    worker = factories.user("w-lease", "annotator")
    a = assignment_request(campaign=campaign, worker=worker)
    started = Assignment.objects.get(pk=a.pk).started
    screen = assignment_next_screen(a)
    at = started + timedelta(minutes=10)
    screen_submit(assignment=a, screen=screen, worker=worker, answers=_answers(screen), now=at)
    assert Assignment.objects.get(pk=a.pk).expires == at + timedelta(minutes=15)
    assert a.expires == at + timedelta(minutes=15)
    # Renewed by heartbeats past 45 minutes, the lease stops at started + 60 minutes.
    assignment_heartbeat(assignment=a, now=started + timedelta(minutes=24))
    assert a.expires == started + timedelta(minutes=39)
    assignment_heartbeat(assignment=a, now=started + timedelta(minutes=38))
    assignment_heartbeat(assignment=a, now=started + timedelta(minutes=52))
    assert Assignment.objects.get(pk=a.pk).expires == started + timedelta(minutes=60)
    # Overdue: no heartbeat brings it back.
    late = started + timedelta(minutes=61)
    assert assignment_heartbeat(assignment=a, now=late) is None
    assert Assignment.objects.get(pk=a.pk).expires == started + timedelta(minutes=60)


def test_a_claim_left_alone_goes_back_to_the_pool_after_the_lease(campaign):
    worker, other = factories.user("w-lease", "annotator"), factories.user("w-other", "annotator")
    t0 = timezone.now()
    a = assignment_request(campaign=campaign, worker=worker, now=t0)
    later = t0 + timedelta(minutes=16)
    b = assignment_request(campaign=campaign, worker=other, now=later)
    assert Assignment.objects.get(pk=a.pk).status == AssignmentStatus.EXPIRED
    assert (b.hit_id, b.slot) == (a.hit_id, a.slot)


def _age(assignment, *, started_minutes_ago, expires_in_minutes):
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(
        started=now - timedelta(minutes=started_minutes_ago),
        expires=now + timedelta(minutes=expires_in_minutes),
    )
    return Assignment.objects.get(pk=assignment.pk)


def test_the_work_page_heartbeat_renews_the_lease(campaign):
    worker = factories.user("w-hb", "annotator")
    a = assignment_request(campaign=campaign, worker=worker)
    client = Client()
    client.force_login(worker)
    page = client.get(reverse("assignment", args=[a.pk]))
    url = reverse("assignment-heartbeat", args=[a.pk])
    html = page.content.decode()
    assert f'id="heartbeat" data-url="{url}" data-seconds="60"' in html
    assert "/static/js/heartbeat.js" in html
    a = _age(a, started_minutes_ago=5, expires_in_minutes=1)
    before = timezone.now()
    response = client.post(url)
    after = timezone.now()
    assert response.status_code == 200
    expires = Assignment.objects.get(pk=a.pk).expires
    assert before + timedelta(minutes=15) <= expires <= after + timedelta(minutes=15)
    assert response.json() == {"open": True, "expires": expires.isoformat()}
    # Near the end of the assignment minutes the lease stops there.
    a = _age(a, started_minutes_ago=50, expires_in_minutes=1)
    assert client.post(url).json()["expires"] == (a.started + timedelta(minutes=60)).isoformat()
    # Given back: nothing to renew.
    client.post(reverse("assignment-return", args=[a.pk]))
    assert client.post(url).status_code == 409
    # Another worker's assignment: 404; a GET: 405.
    intruder = Client()
    intruder.force_login(factories.user("w-intruder", "annotator"))
    assert intruder.post(url).status_code == 404
    assert client.get(url).status_code == 405


def test_the_workers_api_has_a_heartbeat_action(campaign):
    worker = factories.user("w-api", "annotator")
    api = APIClient()
    api.force_authenticate(worker)
    a = assignment_request(campaign=campaign, worker=worker)
    a = _age(a, started_minutes_ago=50, expires_in_minutes=1)
    response = api.post(f"/api/work/assignments/{a.pk}/heartbeat/")
    assert response.status_code == 200
    assert response.json() == {
        "open": True,
        "expires": (a.started + timedelta(minutes=60)).isoformat().replace("+00:00", "Z"),
    }
    Assignment.objects.filter(pk=a.pk).update(expires=timezone.now() - timedelta(seconds=1))
    assert api.post(f"/api/work/assignments/{a.pk}/heartbeat/").status_code == 409
    assert api.post("/api/work/assignments/999999/heartbeat/").status_code == 404


def _crowd_visit(client, invite, ip):
    entry = client.get(reverse("crowd-invite", args=[invite.code]), REMOTE_ADDR=ip)
    url = entry["Location"]
    client.post(url, {"consent": "yes"}, REMOTE_ADDR=ip)
    return url, client.get(url, REMOTE_ADDR=ip)


def test_twelve_cookieless_visits_to_a_reusable_link_hold_two_slots_not_all(campaign):
    """The finding: twelve cookie-less visits to one reusable link held every slot for an hour."""
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    pages = [_crowd_visit(Client(), invite, "198.51.100.7")[1] for _ in range(12)]
    working = [p for p in pages if "ranking/work_rank.html" in [t.name for t in p.templates]]
    assert len(working) == 2
    assert Assignment.objects.filter(status=AssignmentStatus.ACTIVE).count() == 2
    refused = pages[2].content.decode()
    assert "Other HITs of this study are open from your network already." in refused
    # Real workers elsewhere still get work.
    assert "ranking/work_rank.html" in [
        t.name for t in _crowd_visit(Client(), invite, "203.0.113.9")[1].templates
    ]
    assert Assignment.objects.filter(status=AssignmentStatus.ACTIVE).count() == 3


def test_a_refused_visit_gets_work_once_a_hit_of_its_address_is_done(campaign):
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    first, _second, third = (_crowd_visit(Client(), invite, "198.51.100.7")[0] for _ in range(3))
    assert session_from_token(third.rstrip("/").split("/")[-1]).assignments.count() == 0
    Assignment.objects.filter(
        crowd_sessions__in=[session_from_token(first.rstrip("/").split("/")[-1])]
    ).update(status=AssignmentStatus.RETURNED)
    page = Client().get(third, REMOTE_ADDR="198.51.100.7")
    assert "ranking/work_rank.html" in [t.name for t in page.templates]


def test_the_crowd_page_heartbeat_renews_the_lease(campaign):
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    client = Client()
    url, page = _crowd_visit(client, invite, "198.51.100.7")
    token = url.rstrip("/").split("/")[-1]
    beat = reverse("crowd-heartbeat", args=[token])
    assert f'data-url="{beat}"' in page.content.decode()
    a = _age(Assignment.objects.get(), started_minutes_ago=50, expires_in_minutes=1)
    response = Client(enforce_csrf_checks=True).post(beat)
    assert response.status_code == 200
    assert response.json()["expires"] == (a.started + timedelta(minutes=60)).isoformat()
    assert Client().post(reverse("crowd-heartbeat", args=["forged"])).status_code == 404
