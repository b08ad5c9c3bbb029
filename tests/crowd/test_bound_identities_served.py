"""The MTurk finding of issue 35 against a real gunicorn (production settings, PostgreSQL): two
browsers (their own cookie jars, their own client addresses) presenting the same workerId.

Before: the second browser, with a made-up assignmentId, got the victim's live HIT at the same screen
and its submit was stored; the victim's later answer was discarded while the victim was told "saved"
(a redirect to the next screen). Now the second browser is refused and the victim's answer is stored.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

import httpx
import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from crowd.services.sessions import campaign_key
from ranking.models import Assignment, Rating, ScreenJudgment
from ranking.work.screen_handles import screen_id_from_handle
from tests.celery_workers import database_url
from tests.factories import crowd_campaign
from tests.processes import gunicorn_served

MTURK_SUBMIT = "https://workersandbox.mturk.com"


@pytest.fixture
def served(real_postgres, transactional_db):
    """gunicorn with production settings on this test's database; the client address comes from
    X-Real-IP (as behind the TLS proxy), so one machine can play two networks."""
    with gunicorn_served(
        database_url(),
        workers=2,
        secret_key=django_settings.SECRET_KEY,  # the campaign key the test signs must be valid there
        LOGIN_CLIENT_IP_HEADER="HTTP_X_REAL_IP",
        LIVE_ASSIGNMENTS_PER_ADDRESS="0",
    ) as base:
        yield base


def _browser(base: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=base, headers={"X-Real-IP": address}, timeout=15)


def _form(page: httpx.Response, reverse_ranks: bool) -> dict[str, str]:
    html = page.text
    screen = re.search(r'name="screen" value="([^"]+)"', html).group(1)  # an opaque handle
    started = re.search(r'name="started" value="([^"]*)"', html).group(1)
    positions = sorted(set(re.findall(r'name="rank-(\d+)"', html)), key=int)
    ranks = range(len(positions), 0, -1) if reverse_ranks else range(1, len(positions) + 1)
    return {"screen": screen, "started": started} | {f"rank-{p}": str(r) for p, r in zip(positions, ranks)}


def test_a_second_browser_with_the_victims_worker_id_gets_nothing_and_the_victims_answer_is_stored(served):
    campaign = crowd_campaign(judgments_per_item=4)[2]
    entry = reverse("crowd-mturk", args=[campaign_key(campaign)])
    params = {"hitId": "H1", "workerId": "AVICTIM", "turkSubmitTo": MTURK_SUBMIT}
    with _browser(served, "198.51.100.7") as victim, _browser(served, "203.0.113.9") as thief:
        opened = victim.get(entry, params=params | {"assignmentId": "ASG1"})
        assert opened.status_code == 302
        url = urljoin(served, opened.headers["location"])
        assert victim.post(url, data={"consent": "yes"}).status_code == 302
        page = victim.get(url)
        assert page.status_code == 200
        answer = _form(page, reverse_ranks=True)

        stolen = thief.get(entry, params=params | {"assignmentId": "MADE-UP-1"})
        if stolen.status_code == 302:  # the finding: the thief has a session; it answers first
            thief_url = urljoin(served, stolen.headers["location"])
            thief.post(thief_url, data={"consent": "yes"})
            thief.post(thief_url, data=_form(thief.get(thief_url), reverse_ranks=False))
        told = victim.post(url, data=answer)
        assert told.status_code == 302  # "saved": on to the next screen
    screen_id = next(  # the handle names the screen within the victim's assignment only
        sid
        for a in Assignment.objects.filter(hit__campaign=campaign)
        if (sid := screen_id_from_handle(answer["screen"], assignment_id=a.pk)) is not None
    )
    judgment = ScreenJudgment.objects.get(screen_id=screen_id)
    stored = {
        f"rank-{r.candidate.position}": str(r.rank)
        for r in Rating.objects.filter(judgment=judgment).select_related("candidate")
    }
    assert stored == {k: v for k, v in answer.items() if k.startswith("rank-")}, (
        "the victim's answer was dropped"
    )
    assert stolen.status_code == 409
    assert "open in another browser" in stolen.text
    with _browser(served, "203.0.113.9") as thief:
        assert thief.get(entry, params=params | {"assignmentId": "ASG1"}).status_code == 409
