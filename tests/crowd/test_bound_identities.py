"""Identities bound (issue 35): an MTurk assignment belongs to the first browser that presents it, a
workerId alone resumes nothing of another browser, a finished Prolific PID and a single-use link in
use open no second session, and a superseded session's submit is refused with a page that says why.

Each attack is the one found against a production server: a second browser (its own cookie jar and
client address) presenting what a victim's URL shows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from crowd.models import CrowdSession, CrowdWorker
from crowd.services.sessions import campaign_key, invite_links_create, session_from_token
from ranking.models import Assignment, Rating, ScreenJudgment
from tests.factories import crowd_campaign, rank_form

pytestmark = pytest.mark.django_db

MTURK_SUBMIT = "https://workersandbox.mturk.com"
VICTIM_ADDRESS, THIEF_ADDRESS = "198.51.100.7", "203.0.113.9"
PID = "5f0a1b2c3d4e5f6a7b8c9d0e"


@pytest.fixture
def campaign(settings):
    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 0  # the address rule has its own tests
    return crowd_campaign(judgments_per_item=4)[2]


def browser(address: str) -> Client:
    """One browser: its own cookie jar, always from the same client address."""
    return Client(REMOTE_ADDR=address)


def _mturk(client: Client, campaign, worker="AVICTIM", assignment="ASG1", hit="H1", **extra):
    params = {"assignmentId": assignment, "hitId": hit, "workerId": worker, "turkSubmitTo": MTURK_SUBMIT}
    return client.get(reverse("crowd-mturk", args=[campaign_key(campaign)]), params, **extra)


def _session(url: str) -> CrowdSession:
    return session_from_token(url.rstrip("/").split("/")[-1])


def _consented_page(client: Client, entry):
    assert entry.status_code == 302, entry.content[:400]
    url = entry["Location"]
    assert client.post(url, {"consent": "yes"}).status_code == 302
    page = client.get(url)
    assert "ranking/work_rank.html" in [t.name for t in page.templates]
    return url, page


def _reversed_ranks(form: dict) -> dict:
    ranks = sorted(k for k in form if k.startswith("rank-"))
    return {**form, **{k: str(len(ranks) - i) for i, k in enumerate(ranks)}}


def _stored_ranks(screen_id: int) -> dict[str, str]:
    judgment = ScreenJudgment.objects.get(screen_id=screen_id)
    return {
        f"rank-{r.candidate.position}": str(r.rank)
        for r in Rating.objects.filter(judgment=judgment).select_related("candidate")
    }


# --------------------------------------------------------------------------- MTurk


def test_a_victims_worker_id_with_a_made_up_assignment_id_from_another_browser_gets_nothing(campaign):
    """The finding: the second browser got the victim's live HIT at the same screen, its submit was
    stored, and the victim's later answer was discarded while the victim was told "saved"."""
    victim = browser(VICTIM_ADDRESS)
    url, page = _consented_page(victim, _mturk(victim, campaign))
    thief = browser(THIEF_ADDRESS)
    refused = _mturk(thief, campaign, assignment="MADE-UP-1")
    assert refused.status_code == 409
    assert "open in another browser" in refused.content.decode()
    assert not CrowdSession.objects.filter(external_session="MADE-UP-1").exists()
    # The victim's answer is the one stored.
    answer = _reversed_ranks(rank_form(page))
    assert victim.post(url, answer).status_code == 302
    stored = _stored_ranks(page.context["screen"].pk)
    assert stored == {k: v for k, v in answer.items() if k.startswith("rank-")}


def test_the_victims_own_assignment_id_from_another_browser_is_refused(campaign):
    victim = browser(VICTIM_ADDRESS)
    _consented_page(victim, _mturk(victim, campaign))
    refused = _mturk(browser(THIEF_ADDRESS), campaign)
    assert refused.status_code == 409
    assert "open in another browser" in refused.content.decode()
    assert CrowdSession.objects.count() == 1
    # The page that says why is shown inside MTurk's frame, not blocked by it.
    assert "X-Frame-Options" not in refused
    assert "https://worker.mturk.com" in refused["Content-Security-Policy"]


def test_a_made_up_worker_id_for_a_victims_assignment_id_is_refused(campaign):
    victim = browser(VICTIM_ADDRESS)
    _consented_page(victim, _mturk(victim, campaign))
    refused = _mturk(browser(THIEF_ADDRESS), campaign, worker="ATHIEF")
    assert refused.status_code == 409
    assert not CrowdWorker.objects.filter(external_id="ATHIEF").exists()


def test_the_same_browser_reloading_or_coming_back_resumes_its_assignment_at_its_screen(campaign):
    worker = browser(VICTIM_ADDRESS)
    url, page = _consented_page(worker, _mturk(worker, campaign))
    assert _session(_mturk(worker, campaign)["Location"]).pk == _session(url).pk  # MTurk's page reloaded
    again = worker.get(_mturk(worker, campaign)["Location"])  # the tab closed, opened from MTurk's queue
    assert again.context["screen"].pk == page.context["screen"].pk


def test_in_mturks_iframe_without_cookies_the_same_address_resumes_and_another_is_refused(campaign):
    """Third-party cookies blocked (Safari, Brave, strict modes): the iframe never sends the browser
    cookie back, so the browser is the client address that first presented the assignment."""
    worker = browser(VICTIM_ADDRESS)
    entry = _mturk(worker, campaign)
    worker.cookies.clear()
    url, _ = _consented_page(worker, entry)
    worker.cookies.clear()
    assert _session(_mturk(worker, campaign)["Location"]).pk == _session(url).pk
    thief = browser(THIEF_ADDRESS)
    assert _mturk(thief, campaign).status_code == 409
    assert _mturk(thief, campaign, assignment="MADE-UP-2").status_code == 409


def test_the_browser_cookie_is_set_for_mturks_third_party_iframe(campaign):
    """Over HTTPS the cookie is SameSite=None; Secure; Partitioned (CHIPS), the only kind a browser
    sends inside worker.mturk.com's iframe; Lax (the first-party pages' kind) is never sent there."""
    entry = _mturk(Client(REMOTE_ADDR=VICTIM_ADDRESS), campaign, secure=True)
    assert entry.status_code == 302
    cookie = entry["Set-Cookie"]
    assert cookie.startswith("crowd_browser_mturk=")
    for attribute in ("SameSite=None", "Secure", "Partitioned", "HttpOnly", "Path=/"):
        assert attribute in cookie.split("; "), cookie


def test_behind_the_victims_address_a_browser_without_the_victims_cookie_is_refused(campaign):
    """Once the victim's browser has sent its cookie back, the address no longer stands in for it: a
    neighbour on the same network (its own cookie jar, or none) gets nothing of the victim's HIT."""
    victim = browser(VICTIM_ADDRESS)
    _consented_page(victim, _mturk(victim, campaign))
    assert CrowdSession.objects.get().browser_proven
    neighbour = browser(VICTIM_ADDRESS)
    assert _mturk(neighbour, campaign).status_code == 409
    assert _mturk(neighbour, campaign, assignment="MADE-UP-3").status_code == 409
    assert CrowdSession.objects.count() == 1


def test_a_second_assignment_in_the_same_browser_takes_the_hit_over_and_the_old_tab_is_refused(campaign):
    """The same worker accepted another of the campaign's MTurk HITs in this browser (or returned the
    first and took a new one): the new assignment continues the live HIT at its screen; the old tab's
    submit is refused with a page that says why, never answered "saved" and dropped."""
    worker = browser(VICTIM_ADDRESS)
    old_url, old_page = _consented_page(worker, _mturk(worker, campaign))
    new_url, new_page = _consented_page(worker, _mturk(worker, campaign, assignment="ASG2", hit="H2"))
    assert new_page.context["screen"].pk == old_page.context["screen"].pk
    refused = worker.post(old_url, rank_form(old_page))
    assert refused.status_code == 409
    text = refused.content.decode()
    assert "continues in a newer MTurk assignment" in text
    assert "externalSubmit" not in text  # nothing to submit to MTurk from the old assignment
    assert not ScreenJudgment.objects.exists()
    assert worker.post(new_url, rank_form(new_page)).status_code == 302
    assert ScreenJudgment.objects.count() == 1
    assert worker.get(old_url).status_code == 200  # a plain look says the same, without an error


def test_one_assignment_belongs_to_one_session_in_the_database(campaign):
    worker = browser(VICTIM_ADDRESS)
    url, _ = _consented_page(worker, _mturk(worker, campaign))
    owner = _session(url)
    other = CrowdSession.objects.create(campaign=campaign, worker=owner.worker, platform="mturk")
    link = CrowdSession.assignments.through
    with pytest.raises(IntegrityError), transaction.atomic():
        link.objects.create(crowdsession=other, assignment=Assignment.objects.get())


def test_a_thief_cannot_slip_in_while_the_victim_is_at_the_consent_page(campaign):
    """The victim's session has no HIT yet (consent not given): it is live all the same."""
    victim = browser(VICTIM_ADDRESS)
    url = _mturk(victim, campaign)["Location"]
    assert _mturk(browser(THIEF_ADDRESS), campaign, assignment="MADE-UP-4").status_code == 409
    again, _ = _consented_page(victim, _mturk(victim, campaign))  # MTurk's page reloaded
    assert _session(again).pk == _session(url).pk
    assert _session(url).assignments.count() == 1
    assert CrowdSession.objects.count() == 1


def test_a_tab_at_the_consent_page_is_superseded_by_a_newer_assignment_in_the_same_browser(campaign):
    worker = browser(VICTIM_ADDRESS)
    old_url = _mturk(worker, campaign)["Location"]
    new_url, new_page = _consented_page(worker, _mturk(worker, campaign, assignment="ASG2"))
    refused = worker.post(old_url, {"consent": "yes"})
    assert refused.status_code == 409
    assert "continues in a newer MTurk assignment" in refused.content.decode()
    assert worker.post(new_url, rank_form(new_page)).status_code == 302


def test_a_session_that_finds_its_workers_hit_in_another_session_refuses_the_submit(campaign):
    """A tab left at the consent page for longer than a lease (no longer live) while another
    assignment of the same worker claimed the HIT: the older tab never works on, nor submits into,
    the other one's HIT."""
    worker = browser(VICTIM_ADDRESS)
    old_url = _mturk(worker, campaign)["Location"]
    CrowdSession.objects.filter(pk=_session(old_url).pk).update(created=timezone.now() - timedelta(hours=1))
    new_url, new_page = _consented_page(worker, _mturk(worker, campaign, assignment="ASG2"))
    assert worker.post(old_url, {"consent": "yes"}).status_code == 302
    shown = worker.get(old_url)
    assert shown.status_code == 200
    assert "open in another session" in shown.content.decode()
    refused = worker.post(old_url, rank_form(new_page))
    assert refused.status_code == 409
    assert "Nothing from this page is saved" in refused.content.decode()
    assert not ScreenJudgment.objects.exists()
    assert worker.post(new_url, rank_form(new_page)).status_code == 302


# --------------------------------------------------------------------------- Prolific


def _prolific(client, campaign, session="se-1", pid=PID):
    url = reverse("crowd-prolific", args=[campaign_key(campaign)])
    return client.get(url, {"PROLIFIC_PID": pid, "STUDY_ID": "study-1", "SESSION_ID": session})


def _finish_visit(client: Client, entry) -> None:
    url, page = _consented_page(client, entry)
    for _ in range(2):
        assert client.post(url, rank_form(page)).status_code == 302
        page = client.get(url)
    assert _session(url).finished is not None


def test_a_finished_prolific_pid_opens_no_session_from_a_new_browser(campaign):
    """The finding: the PID of a finished participant opened a session on their record, so an
    attacker could fail traps in the victim's name."""
    victim = browser(VICTIM_ADDRESS)
    _finish_visit(victim, _prolific(victim, campaign))
    for session_id in ("se-made-up", "se-1"):
        refused = _prolific(browser(THIEF_ADDRESS), campaign, session=session_id)
        assert refused.status_code == 410
        assert "This Prolific ID has finished its visit to this study" in refused.content.decode()
        assert "PROLIFIC-OK" not in refused.content.decode() + refused.get("Location", "")
    assert CrowdSession.objects.count() == 1
    assert Assignment.objects.count() == 1


def test_a_finished_prolific_pid_in_its_own_browser_sees_its_end_again_and_gets_no_new_hit(campaign):
    worker = browser(VICTIM_ADDRESS)
    _finish_visit(worker, _prolific(worker, campaign))
    again = _prolific(worker, campaign, session="se-2")
    assert again.status_code == 302
    assert "PROLIFIC-OK" in worker.get(again["Location"])["Location"]
    assert CrowdSession.objects.count() == 1
    assert Assignment.objects.count() == 1


# --------------------------------------------------------------------------- single-use invite links


def test_a_single_use_link_in_use_opens_no_second_session_in_another_browser(campaign):
    """The finding: the link opened in a second browser while its owner was mid-HIT gave the same
    session and screen."""
    (invite,) = invite_links_create(campaign=campaign, count=1)
    link = reverse("crowd-invite", args=[invite.code])
    owner = browser(VICTIM_ADDRESS)
    url, page = _consented_page(owner, owner.get(link))
    refused = browser(THIEF_ADDRESS).get(link)
    assert refused.status_code == 409
    assert "This link is in use in another browser" in refused.content.decode()
    assert owner.post(url, rank_form(page)).status_code == 302  # the owner goes on
    assert _session(owner.get(link)["Location"]).pk == _session(url).pk  # and may reopen the link


# --------------------------------------------------------------------------- issue 35's review: last activity


def _lease_ago(session_url: str, leases: float = 2) -> CrowdSession:
    """The visit began ``leases`` leases ago (its creation moved back; its activity is what it is)."""
    from django.conf import settings

    session = _session(session_url)
    back = timezone.now() - timedelta(minutes=leases * max(1, settings.ASSIGNMENT_LEASE_MINUTES))
    CrowdSession.objects.filter(pk=session.pk).update(created=back)
    return session


def test_a_prolific_pid_between_hits_long_into_its_visit_opens_no_second_session(campaign):
    """The review: 'visit ended' was measured from the session's creation, so between two HITs and
    more than a lease into the visit a second browser with the victim's PID got a new session."""
    from crowd.models import CrowdSettings

    CrowdSettings.objects.update_or_create(campaign=campaign, defaults={"hits_per_visit": 2})
    victim = browser(VICTIM_ADDRESS)
    url, page = _consented_page(victim, _prolific(victim, campaign))
    _lease_ago(url)
    assert victim.post(url, rank_form(page)).status_code == 302
    assert victim.post(url, rank_form(victim.get(url))).status_code == 302  # first HIT done: between HITs
    assert not Assignment.objects.filter(status="active").exists()
    refused = _prolific(browser(THIEF_ADDRESS), campaign, session="se-thief")
    assert refused.status_code == 409
    assert CrowdSession.objects.count() == 1


def test_a_single_use_link_long_in_use_is_not_taken_over_by_another_browser(campaign):
    """The review: a single-use link more than a lease into its visit, between HITs, was taken over."""
    from crowd.models import CrowdSettings

    CrowdSettings.objects.update_or_create(campaign=campaign, defaults={"hits_per_visit": 2})
    (invite,) = invite_links_create(campaign=campaign, count=1)
    link = reverse("crowd-invite", args=[invite.code])
    owner = browser(VICTIM_ADDRESS)
    url, page = _consented_page(owner, owner.get(link))
    session = _lease_ago(url)
    assert owner.post(url, rank_form(page)).status_code == 302
    assert owner.post(url, rank_form(owner.get(url))).status_code == 302
    bound = CrowdSession.objects.get(pk=session.pk).browser
    refused = browser(THIEF_ADDRESS).get(link)
    assert refused.status_code == 409
    assert CrowdSession.objects.get(pk=session.pk).browser == bound  # not taken over


def test_an_idle_visit_longer_than_a_lease_may_be_picked_up_by_a_new_browser(campaign):
    from django.conf import settings

    (invite,) = invite_links_create(campaign=campaign, count=1)
    link = reverse("crowd-invite", args=[invite.code])
    owner = browser(VICTIM_ADDRESS)
    url, _ = _consented_page(owner, owner.get(link))
    session = _lease_ago(url)
    idle = timezone.now() - timedelta(minutes=2 * max(1, settings.ASSIGNMENT_LEASE_MINUTES))
    CrowdSession.objects.filter(pk=session.pk).update(last_active=idle)
    Assignment.objects.filter(status="active").update(expires=idle)
    assert browser(THIEF_ADDRESS).get(link).status_code == 302  # the owner's browser is gone
