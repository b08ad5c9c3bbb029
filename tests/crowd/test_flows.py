"""Invite, Prolific and MTurk flows below the browser: identities, consent, work, end pages, headers."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from crowd.models import CrowdSession, CrowdWorker, InviteLink
from crowd.services.sessions import campaign_key, invite_links_create, session_from_token
from ranking.models import Assignment, ScreenJudgment
from tests.factories import crowd_campaign, rank_form

pytestmark = pytest.mark.django_db

MTURK_SUBMIT = "https://workersandbox.mturk.com"


@pytest.fixture
def campaign():
    return crowd_campaign()[2]


def follow_to_session(client, response):
    assert response.status_code == 302, response.content[:500]
    return response["Location"]


def session_of(url):
    return session_from_token(url.rstrip("/").split("/")[-1])


def do_hit(client, url):
    for _ in range(2):
        page = client.get(url)
        assert page.status_code == 200
        assert "ranking/work_rank.html" in [t.name for t in page.templates]
        response = client.post(url, rank_form(page))
        assert response.status_code == 302
    return response


def test_single_use_invite_creates_one_identity_consent_then_hit_then_completion_code(client, campaign):
    (invite,) = invite_links_create(campaign=campaign, count=1)
    url = follow_to_session(client, client.get(reverse("crowd-invite", args=[invite.code])))
    consent = client.get(url)
    assert b"We store your answers without your name." in consent.content
    assert b"Rank the corrections" in consent.content
    assert consent["X-Frame-Options"] == "DENY"
    assert client.post(url, {}).status_code == 400  # box not ticked
    assert client.post(url, {"consent": "yes"}).status_code == 302
    done = do_hit(client, url)
    assert done["Location"].endswith("?done=1")
    end = client.get(done["Location"])  # hits_per_visit=1: the end page with the code
    assert b"C0DE-42" in end.content
    worker = CrowdWorker.objects.get()
    assert worker.platform == "invite"
    assert not worker.user.has_usable_password()
    assert worker.user.groups.filter(name="annotator").exists()
    assert Assignment.objects.get(worker=worker.user).status == "submitted"
    # The visit ended: a fresh browser is told the link was used (not the earlier visitor's code).
    other = client.__class__()
    again = other.get(reverse("crowd-invite", args=[invite.code]))
    assert again.status_code == 410
    assert b"This link was already used" in again.content and b"not a match" not in again.content
    assert b"C0DE-42" not in again.content
    assert InviteLink.objects.get().uses == 1
    # The same browser (its cookie) still comes back to its own end page.
    assert (
        b"C0DE-42"
        in client.get(
            follow_to_session(client, client.get(reverse("crowd-invite", args=[invite.code])))
        ).content
    )


def test_reusable_invite_gives_each_visitor_an_identity_and_resumes_by_cookie(client, campaign):
    (invite,) = invite_links_create(campaign=campaign, count=1, reusable=True)
    first = follow_to_session(client, client.get(reverse("crowd-invite", args=[invite.code])))
    first_again = follow_to_session(client, client.get(reverse("crowd-invite", args=[invite.code])))
    assert session_of(first) == session_of(first_again)
    other = client.__class__()
    second = follow_to_session(other, other.get(reverse("crowd-invite", args=[invite.code])))
    assert session_of(second).worker != session_of(first).worker
    assert CrowdWorker.objects.filter(platform="invite").count() == 2


def test_prolific_pid_identifies_the_worker_and_the_end_redirects_with_the_completion_code(client, campaign):
    base = reverse("crowd-prolific", args=[campaign_key(campaign)])
    url = follow_to_session(
        client, client.get(base, {"PROLIFIC_PID": "5f00aa", "STUDY_ID": "st1", "SESSION_ID": "se1"})
    )
    client.post(url, {"consent": "yes"})
    done = do_hit(client, url)
    end = client.get(done["Location"])
    assert end.status_code == 302
    assert end["Location"] == "https://app.prolific.com/submissions/complete?cc=PROLIFIC-OK"
    session = CrowdSession.objects.get()
    assert (session.worker.external_id, session.study, session.external_session) == ("5f00aa", "st1", "se1")
    # The same PID in another session of the study: its visit ended, so no second one opens (issue
    # 35); its own browser is shown its end again.
    url2 = follow_to_session(
        client, client.get(base, {"PROLIFIC_PID": "5f00aa", "STUDY_ID": "st1", "SESSION_ID": "se2"})
    )
    assert session_of(url2).pk == session.pk
    assert client.get(url2)["Location"].endswith("cc=PROLIFIC-OK")
    assert CrowdSession.objects.count() == 1
    assert not Assignment.objects.filter(worker=session.worker.user, status="active").exists()
    # the finished HIT waits for Prolific's confirmation of the submission (issue 35): held, slot kept
    finished = Assignment.objects.get(worker=session.worker.user, status="held")
    assert finished.hold_reason == "unconfirmed"


def test_prolific_worker_excluded_by_traps_gets_the_screened_out_code(client, campaign):
    from ranking.models import WorkerRecord

    base = reverse("crowd-prolific", args=[campaign_key(campaign)])
    url = follow_to_session(
        client, client.get(base, {"PROLIFIC_PID": "bad", "STUDY_ID": "s", "SESSION_ID": "x"})
    )
    worker = CrowdWorker.objects.get(external_id="bad").user
    WorkerRecord.objects.create(campaign=campaign, worker=worker, traps_seen=5, traps_passed=0, excluded=True)
    client.post(url, {"consent": "yes"})
    end = client.get(url)
    assert end["Location"].endswith("cc=PROLIFIC-OUT")


def test_prolific_without_pid_is_refused(client, campaign):
    response = client.get(reverse("crowd-prolific", args=[campaign_key(campaign)]), {"STUDY_ID": "s"})
    assert response.status_code == 400


def test_a_forged_campaign_key_or_session_token_is_not_found(client, campaign):
    assert client.get(reverse("crowd-prolific", args=[f"{campaign.pk}:forged"])).status_code == 404
    assert client.get(reverse("crowd-session", args=["forged-token"])).status_code == 404


def test_mturk_preview_shows_an_example_and_creates_nothing(client, campaign, settings):
    url = reverse("crowd-mturk", args=[campaign_key(campaign)])
    page = client.get(url, {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "H1"})
    assert page.status_code == 200
    assert b"Preview" in page.content
    assert page.context["example"].built_in and page.context["example"].source.encode() in page.content
    assert b"<form" not in page.content
    assert "X-Frame-Options" not in page
    assert page["Content-Security-Policy"] == (
        "frame-ancestors https://worker.mturk.com https://www.mturk.com https://workersandbox.mturk.com"
    )
    assert not CrowdSession.objects.exists() and not CrowdWorker.objects.exists()


def test_mturk_accepted_assignment_works_without_cookies_and_ends_with_the_external_submit_form(campaign):
    from django.test import Client

    url = reverse("crowd-mturk", args=[campaign_key(campaign)])
    params = {"assignmentId": "ASG1", "hitId": "H1", "workerId": "AWORKER", "turkSubmitTo": MTURK_SUBMIT}
    client = Client(enforce_csrf_checks=True)
    session_url = follow_to_session(client, client.get(url, params))
    client.cookies.clear()  # third-party cookies blocked: every request goes without
    assert client.post(session_url, {"consent": "yes"}).status_code == 302
    for _ in range(2):
        client.cookies.clear()
        page = client.get(session_url)
        assert page["Content-Security-Policy"].startswith("frame-ancestors ")
        assert "X-Frame-Options" not in page
        client.cookies.clear()
        assert client.post(session_url, rank_form(page)).status_code == 302
    end = client.get(session_url)
    assert b'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in end.content
    assert b'name="assignmentId" value="ASG1"' in end.content
    session = CrowdSession.objects.get()
    assert (session.platform, session.external_session, session.study) == ("mturk", "ASG1", "H1")
    assert ScreenJudgment.objects.filter(judge=session.worker.user).count() == 2


def test_mturk_refuses_a_turk_submit_to_outside_mturk(client, campaign):
    url = reverse("crowd-mturk", args=[campaign_key(campaign)])
    params = {"assignmentId": "A", "hitId": "H", "workerId": "W", "turkSubmitTo": "https://evil.example"}
    assert client.get(url, params).status_code == 400


def test_researcher_pages_keep_x_frame_options_deny(client, campaign):
    client.login(username="res", password="res-pass-123")
    page = client.get(reverse("crowd-campaign", args=[campaign.pk]))
    assert page.status_code == 200
    assert page["X-Frame-Options"] == "DENY"
    assert parse_qs(urlsplit(page.context["prolific_url"]).query)["PROLIFIC_PID"] == ["{{%PROLIFIC_PID%}}"]


def test_a_paused_campaign_leaves_the_prolific_visit_open_until_work_returns(client, campaign):
    from ranking.services import campaign_set_status

    base = reverse("crowd-prolific", args=[campaign_key(campaign)])
    url = follow_to_session(
        client, client.get(base, {"PROLIFIC_PID": "p9", "STUDY_ID": "s", "SESSION_ID": "x9"})
    )
    client.post(url, {"consent": "yes"})
    campaign_set_status(campaign=campaign, status="paused")
    paused = client.get(url)
    assert b"not handing out work" in paused.content
    assert CrowdSession.objects.get().finished is None
    campaign_set_status(campaign=campaign, status="active")
    assert "ranking/work_rank.html" in [t.name for t in client.get(url).templates]


def test_finish_now_after_a_hit_shows_the_code(client):
    from tests.factories import crowd_campaign as make

    campaign = make(hits_per_visit=0)[2]
    (invite,) = invite_links_create(campaign=campaign, count=1)
    url = follow_to_session(client, client.get(reverse("crowd-invite", args=[invite.code])))
    client.post(url, {"consent": "yes"})
    done = do_hit(client, url)
    between = client.get(done["Location"])
    assert b"HIT complete" in between.content
    end = client.post(url, {"action": "finish"})
    assert b"C0DE-42" in end.content
    assert CrowdSession.objects.get().outcome == "completed"
