"""Issue 35's security review: work that may not be the named worker's is never their evidence, made-up
MTurk identities cannot sit on the campaign, and a crowd identity's visit ends with its last activity.

MTurk's remote API is mocked with botocore's Stubber, as in tests/test_held_work.py; nothing else is.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from crowd.models import CrowdSession, MturkHit
from crowd.services.confirmation import held_sessions_confirm
from crowd.services.workers import crowd_worker_get_or_create
from ranking.models import Assignment, WorkerRecord
from ranking.quality.holds import assignment_hold_drop, assignment_hold_release
from ranking.work.reads import worker_ratings, worker_trap_verdicts
from tests.factories import crowd_campaign
from tests.test_held_work import _get, _speed_campaign, _work, mturk_client  # noqa: F401
from tests.test_work_reads import hidden, judged  # noqa: F401

pytestmark = pytest.mark.django_db


def _mturk_session(campaign, worker_id: str, assignment_id: str, hit_id: str = "HIT0") -> CrowdSession:
    worker = crowd_worker_get_or_create(platform="mturk", external_id=worker_id)
    return CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="mturk", external_session=assignment_id, study=hit_id
    )


def _excluding_speed_campaign():
    _, _, campaign = _speed_campaign()
    campaign.trap_min_seen, campaign.judgments_per_item = 2, 2
    campaign.save(update_fields=["trap_min_seen", "judgments_per_item"])
    return campaign


# --------------------------------------------------------------------------- 1. held work is no evidence


def test_an_attacker_with_the_victims_worker_id_cannot_get_the_victim_excluded(mturk_client):  # noqa: F811
    """The review's attack: a made-up assignmentId under the victim's workerId, every screen answered
    too fast. Its HIT is held, then dropped; its judgments never count against the victim, whose
    genuine, confirmed work stays counted."""
    campaign = _excluding_speed_campaign()
    genuine = _mturk_session(campaign, "AVICTIM", "ASGREAL")
    victim = genuine.worker.user
    own = _work(campaign, victim, seconds=30.0, session=genuine)
    _get(mturk_client, "ASGREAL", worker_id="AVICTIM")
    assert held_sessions_confirm(mturk_client=mturk_client)["confirmed"] == 1
    own.refresh_from_db()
    assert own.status == "submitted"

    forged = _work(campaign, victim, seconds=0.5, session=_mturk_session(campaign, "AVICTIM", "MADEUP"))
    assert (forged.status, forged.hold_reason) == ("held", "unconfirmed")
    record = WorkerRecord.objects.get(campaign=campaign, worker=victim)
    assert (record.excluded, record.too_fast, record.traps_seen) == (False, 0, 0)
    own.refresh_from_db()
    assert own.status == "submitted"

    _get(mturk_client, "MADEUP", worker_id="AOTHER")  # MTurk names someone else: dropped
    assert held_sessions_confirm(mturk_client=mturk_client)["dropped"] == 1
    record.refresh_from_db()
    own.refresh_from_db()
    assert (record.excluded, record.too_fast, own.status) == (False, 0, "submitted")


def test_held_work_becomes_evidence_when_the_platform_confirms_it_and_the_record_is_recounted(mturk_client):  # noqa: F811
    campaign = _excluding_speed_campaign()
    session = _mturk_session(campaign, "AFAST", "ASGFAST")
    fast = _work(campaign, session.worker.user, seconds=0.5, session=session)
    record = WorkerRecord.objects.get(campaign=campaign, worker=session.worker.user)
    assert (record.too_fast, record.excluded) == (0, False)
    _get(mturk_client, "ASGFAST", worker_id="AFAST")
    held_sessions_confirm(mturk_client=mturk_client)
    record.refresh_from_db()
    fast.refresh_from_db()
    assert (record.too_fast, record.traps_seen, record.excluded) == (2, 2, True)
    assert (fast.status, fast.hold_reason) == ("excluded", "too_fast")


def test_the_researcher_releasing_or_dropping_a_hold_recounts_the_record():
    campaign = _excluding_speed_campaign()
    worker = crowd_worker_get_or_create(platform="mturk", external_id="AW").user
    first = _work(campaign, worker, seconds=0.5)  # too fast, not held for identity: evidence at once
    Assignment.objects.filter(pk=first.pk).update(status="held", hold_reason="unconfirmed")
    WorkerRecord.objects.filter(campaign=campaign, worker=worker).update(excluded=False, too_fast=0)
    assignment_hold_drop(assignment=first, reason="other_worker")
    record = WorkerRecord.objects.get(campaign=campaign, worker=worker)
    assert (record.too_fast, record.excluded) == (0, False)
    Assignment.objects.filter(pk=first.pk).update(status="held", hold_reason="unconfirmed")
    assignment_hold_release(assignment=first, by_researcher=True)
    record.refresh_from_db()
    assert (record.too_fast, record.excluded) == (2, True)


@pytest.mark.parametrize(
    ("status", "reason", "counted"),
    [
        ("held", "unconfirmed", False),
        ("held", "other_worker", False),
        ("dropped", "never_submitted", False),
        ("dropped", "too_fast", False),
        ("excluded", "unconfirmed", False),
        ("held", "too_fast", True),
        ("excluded", "too_fast", True),
        ("submitted", "", True),
    ],
)
def test_trap_verdicts_and_ratings_leave_out_work_held_for_who_did_it(hidden, status, reason, counted):  # noqa: F811
    campaign, worker = hidden
    assert worker_trap_verdicts(campaign_id=campaign.pk, worker_id=worker.pk)
    assert worker_ratings(campaign_id=campaign.pk, worker_id=worker.pk, answer="score")
    Assignment.objects.filter(hit__campaign=campaign, worker=worker).update(status=status, hold_reason=reason)
    assert bool(worker_trap_verdicts(campaign_id=campaign.pk, worker_id=worker.pk)) is counted
    assert bool(worker_ratings(campaign_id=campaign.pk, worker_id=worker.pk, answer="score")) is counted


# --------------------------------------------------------------------------- 2. made-up identities


def _published(campaign, *hit_ids):
    for hit_id in hit_ids:
        MturkHit.objects.create(
            campaign=campaign, hit_id=hit_id, hit_type_id="T", max_assignments=3, reward=Decimal("1.00")
        )


def _enter(campaign, hit_id: str, assignment_id: str = "ASG1", worker_id: str = "AW1"):
    from django.test import Client

    from crowd.services.sessions import campaign_key

    return Client().get(
        reverse("crowd-mturk", args=[campaign_key(campaign)]),
        {
            "assignmentId": assignment_id,
            "hitId": hit_id,
            "workerId": worker_id,
            "turkSubmitTo": "https://workersandbox.mturk.com",
        },
    )


def test_mturk_entry_takes_only_the_campaigns_own_hits_once_it_published_any():
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    assert _enter(campaign, "ANYHIT", "ASGA").status_code == 302  # none published here: any hitId
    assert _enter(campaign, "", "ASGB").status_code in (400, 403)  # but never none
    _published(campaign, "OURHIT")
    refused = _enter(campaign, "MADEUPHIT", "ASGC", "AW2")
    assert refused.status_code == 403
    assert "one of this study" in refused.content.decode()
    assert not CrowdSession.objects.filter(external_session="ASGC").exists()
    assert _enter(campaign, "OURHIT", "ASGD", "AW3").status_code == 302


def test_an_assignment_mturk_does_not_have_is_dropped_after_a_short_grace_not_a_day(mturk_client, settings):  # noqa: F811
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    session = _mturk_session(campaign, "AFAKE", "MADEUP")
    made_up = _work(campaign, session.worker.user, 30.0, session=session)
    assert made_up.hold_reason == "unconfirmed"
    soon = timezone.now() + timedelta(minutes=settings.CROWD_CONFIRM_GRACE_MINUTES - 5)
    later = timezone.now() + timedelta(minutes=settings.CROWD_CONFIRM_GRACE_MINUTES + 1)
    mturk_client.stub.add_client_error("get_assignment", "RequestError", "Assignment MADEUP does not exist.")
    assert held_sessions_confirm(mturk_client=mturk_client, now=soon)["waiting"] == 1  # maybe not sent yet
    mturk_client.stub.add_client_error("get_assignment", "ServiceFault", "try again", http_status_code=500)
    assert held_sessions_confirm(mturk_client=mturk_client, now=later)["waiting"] == 1  # transient
    mturk_client.stub.add_client_error("get_assignment", "RequestError", "Assignment MADEUP does not exist.")
    assert held_sessions_confirm(mturk_client=mturk_client, now=later)["dropped"] == 1
    made_up.refresh_from_db()
    assert (made_up.status, made_up.hold_reason) == ("dropped", "never_submitted")


def test_hits_held_for_confirmation_count_in_the_per_address_limit(settings):
    from crowd.services.sessions import session_assignment

    settings.LIVE_ASSIGNMENTS_PER_ADDRESS = 1
    _, _, campaign = crowd_campaign(judgments_per_item=2)
    first = _mturk_session(campaign, "AFAKE1", "MADEUP1")
    first.client_address = "198.51.100.7"
    first.save(update_fields=["client_address"])
    held = _work(campaign, first.worker.user, 30.0, session=first)
    assert held.hold_reason == "unconfirmed"
    second = _mturk_session(campaign, "AFAKE2", "MADEUP2")
    assert session_assignment(session=second, address="198.51.100.7") is None
    assert "network" in second.no_work_reason
    assert session_assignment(session=_mturk_session(campaign, "AFAKE3", "X3"), address="203.0.113.9")


# --------------------------------------------------------------------------- 3. the campaign's own HIT


@pytest.mark.parametrize(("published", "supplied"), [(True, "OTHERHIT"), (False, "")])
def test_confirmation_needs_one_of_the_campaigns_own_hits_never_the_supplied_one(
    mturk_client,  # noqa: F811
    published,
    supplied,
):
    """MTurk reports the assignment under OTHERHIT (another HIT of the same requester): with the
    campaign's own HITs published it is not one of them, whatever hitId the URL gave; without, an
    empty hitId from the URL no longer skips the check."""
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    if published:
        _published(campaign, "OURHIT")
    session = _mturk_session(campaign, "AW1", "ASG1", hit_id=supplied)  # the hitId the URL gave
    ours = _work(campaign, session.worker.user, 30.0, session=session)
    _get(mturk_client, "ASG1", worker_id="AW1", hit_id="OTHERHIT")
    assert held_sessions_confirm(mturk_client=mturk_client)["dropped"] == 1
    ours.refresh_from_db()
    assert (ours.status, ours.hold_reason) == ("dropped", "other_worker")


def test_confirmation_takes_the_campaigns_own_hit(mturk_client):  # noqa: F811
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    _published(campaign, "OURHIT")
    session = _mturk_session(campaign, "AW1", "ASG1", hit_id="OURHIT")
    ours = _work(campaign, session.worker.user, 30.0, session=session)
    _get(mturk_client, "ASG1", worker_id="AW1", hit_id="OURHIT")
    assert held_sessions_confirm(mturk_client=mturk_client)["confirmed"] == 1
    ours.refresh_from_db()
    assert ours.status == "submitted"


# --------------------------------------------------------------------------- 5. included again


def test_a_hit_excluded_while_held_counts_on_inclusion_when_its_session_was_confirmed_meanwhile():
    from ranking.services import worker_override_set

    _, _, campaign = crowd_campaign(judgments_per_item=1)
    worker = crowd_worker_get_or_create(platform="prolific", external_id="pid1")
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="prolific", external_session="sub1", study="st1"
    )
    first = _work(campaign, worker.user, seconds=30.0, session=session)
    worker_override_set(campaign=campaign, worker=worker.user, override="exclude")
    first.refresh_from_db()
    assert (first.status, first.hold_reason) == ("excluded", "unconfirmed")
    # the session is confirmed meanwhile (here by the researcher's Prolific review; the poll asks only
    # sessions with a HIT still held, which this one no longer has)
    from crowd.services.confirmation import session_confirmed

    session_confirmed(session)
    worker_override_set(campaign=campaign, worker=worker.user, override="include")
    first.refresh_from_db()
    assert (first.status, first.hold_reason) == ("submitted", "")
    still_unconfirmed = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="prolific", external_session="sub2", study="st1"
    )
    campaign.judgments_per_item = 2
    campaign.save(update_fields=["judgments_per_item"])
    second = _work(campaign, worker.user, seconds=30.0, session=still_unconfirmed)
    worker_override_set(campaign=campaign, worker=worker.user, override="exclude")
    worker_override_set(campaign=campaign, worker=worker.user, override="include")
    second.refresh_from_db()
    assert (second.status, second.hold_reason) == ("held", "unconfirmed")


@pytest.mark.parametrize(
    ("ours", "supplied", "named", "status"),
    [
        ("st-ours", "st-other", "st-other", "dropped"),  # old: the URL's STUDY_ID matched, confirmed
        ("st-ours", "", "st-other", "dropped"),  # old: an empty STUDY_ID skipped the check
        ("", "", "st-other", "held"),  # the campaign's study unknown: nothing confirms
        ("st-ours", "st-other", "st-ours", "submitted"),
    ],
)
def test_prolific_confirmation_compares_with_the_campaigns_own_study_not_the_urls(
    monkeypatch, ours, supplied, named, status
):
    """Prolific names study ``named`` for the submission; the URL gave ``supplied`` as STUDY_ID. Only
    the campaign's own study (its crowd settings) confirms; without one nothing is confirmed."""
    from crowd.models import CrowdSettings
    from tests.test_held_work import _prolific

    _, _, campaign = crowd_campaign(judgments_per_item=1)
    CrowdSettings.objects.update_or_create(campaign=campaign, defaults={"prolific_study_id": ours})
    worker = crowd_worker_get_or_create(platform="prolific", external_id="pid1")
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="prolific", external_session="sub1", study=supplied
    )
    held = _work(campaign, worker.user, seconds=30.0, session=session)
    body = {"id": "sub1", "participant": "pid1", "study_id": named, "status": "AWAITING REVIEW"}
    held_sessions_confirm(prolific_client=_prolific(monkeypatch, body))
    held.refresh_from_db()
    assert held.status == status
