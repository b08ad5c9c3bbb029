"""Verified entry (issue 18): a Prolific PID is bound to the first browser and to its study; a
reusable invite link admits a few new identities per address per day; an excluded worker does not
come back through the same identity, the same browser cookie or the same single-use link."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from crowd.models import CrowdSession, CrowdWorker
from crowd.services.sessions import campaign_key, invite_links_create, session_from_token
from ranking.models import WorkerOverride
from ranking.quality.exclusion import worker_override_set
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db

PID, OTHER_PID = "5f0a1b2c3d4e5f6a7b8c9d0e", "60aa1b2c3d4e5f6a7b8c9d0f"


@pytest.fixture
def campaign(settings):
    # The address rule has its own tests (tests/test_fair_leases.py).
    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 0
    settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY = 3
    return crowd_campaign(judgments_per_item=4)[2]


def _prolific(client, campaign, pid=PID, study="study-1", session="se-1"):
    url = reverse("crowd-prolific", args=[campaign_key(campaign)])
    return client.get(url, {"PROLIFIC_PID": pid, "STUDY_ID": study, "SESSION_ID": session})


def _start(client, response):
    assert response.status_code == 302, response.content[:400]
    url = response["Location"]
    client.post(url, {"consent": "yes"})
    page = client.get(url)
    assert "ranking/work_rank.html" in [t.name for t in page.templates]
    return url


def test_a_second_browser_with_a_live_pid_is_refused_with_a_page_that_says_why(campaign):
    """The finding: a second session with a victim's PID submitted into the victim's assignment."""
    victim = Client()
    _start(victim, _prolific(victim, campaign))
    thief = Client()
    refused = _prolific(thief, campaign, session="se-2")
    assert refused.status_code == 409
    assert "This Prolific ID is taking part in this study in another browser" in refused.content.decode()
    assert _prolific(thief, campaign).status_code == 409  # the victim's own SESSION_ID too
    assert CrowdSession.objects.count() == 1


def test_a_reload_or_a_crash_in_the_same_browser_resumes(campaign):
    browser = Client()
    url = _start(browser, _prolific(browser, campaign))
    # the same session (its link is signed with the time, so a reload a second later reads differently)
    assert _session_of(_prolific(browser, campaign)["Location"]) == _session_of(
        url
    )  # reload of Prolific's link
    assert _session_of(_prolific(browser, campaign, session="se-1")["Location"]) == _session_of(url)
    assert browser.get(url).status_code == 200


def _session_of(url: str) -> int:
    return session_from_token(url.rstrip("/").split("/")[-1]).pk


def test_a_pid_is_bound_to_its_study(campaign):
    browser = Client()
    _start(browser, _prolific(browser, campaign))
    other = _prolific(Client(), campaign, study="study-2", session="se-9")
    assert other.status_code == 409
    assert "This Prolific ID took part in this study through another Prolific study" in other.content.decode()


def test_an_excluded_worker_does_not_come_back_with_a_new_pid_in_the_same_browser(campaign):
    """The finding: an excluded worker came back with a new PID."""
    browser = Client()
    _start(browser, _prolific(browser, campaign))
    worker = CrowdWorker.objects.get(external_id=PID)
    worker_override_set(campaign=campaign, worker=worker.user, override=WorkerOverride.EXCLUDE)
    again = _prolific(browser, campaign, pid=OTHER_PID, session="se-3")
    assert again.status_code == 403
    assert "You cannot take part in this study again" in again.content.decode()
    assert not CrowdWorker.objects.filter(external_id=OTHER_PID).exists()


def test_a_reusable_link_admits_three_new_identities_per_address_per_day(campaign):
    """The finding: 3 cookie-less visits to a reusable link gave 3 identities, without end."""
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    url = reverse("crowd-invite", args=[invite.code])
    codes = [Client().get(url, REMOTE_ADDR="198.51.100.7").status_code for _ in range(5)]
    assert codes == [302, 302, 302, 429, 429]
    refused = Client().get(url, REMOTE_ADDR="198.51.100.7").content.decode()
    assert "This link has admitted 3 people from your network today" in refused
    assert CrowdWorker.objects.filter(platform="invite").count() == 3
    assert Client().get(url, REMOTE_ADDR="203.0.113.9").status_code == 302


def test_an_excluded_worker_is_not_readmitted_through_a_reusable_link_from_the_same_browser(campaign):
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    url = reverse("crowd-invite", args=[invite.code])
    browser = Client()
    _start(browser, browser.get(url))
    worker = CrowdWorker.objects.get(platform="invite")
    worker_override_set(campaign=campaign, worker=worker.user, override=WorkerOverride.EXCLUDE)
    # The invite cookie dropped, the browser cookie kept: no new identity.
    browser.cookies.pop(f"crowd_invite_{campaign.pk}")
    again = browser.get(url)
    assert again.status_code == 403
    assert CrowdWorker.objects.filter(platform="invite").count() == 1


def test_an_excluded_worker_is_not_readmitted_through_the_same_single_use_link_or_pid(campaign):
    (invite,) = invite_links_create(campaign=campaign, count=1)
    browser = Client()
    _start(browser, browser.get(reverse("crowd-invite", args=[invite.code])))
    worker = CrowdWorker.objects.get(platform="invite")
    worker_override_set(campaign=campaign, worker=worker.user, override=WorkerOverride.EXCLUDE)
    # Another browser is refused while the visit is live (issue 35: a single-use link in use opens
    # no second session); the owner's browser is led back to the excluded identity.
    assert Client().get(reverse("crowd-invite", args=[invite.code])).status_code == 409
    url = browser.get(reverse("crowd-invite", args=[invite.code]))["Location"]
    assert session_from_token(url.rstrip("/").split("/")[-1]).worker == worker
    end = browser.get(url)
    assert "ranking/work_rank.html" not in [t.name for t in end.templates]
    assert CrowdSession.objects.get(worker=worker).outcome == "screened-out"
    assert CrowdWorker.objects.filter(platform="invite").count() == 1
