"""Issue 35's security review: work that may not be the named worker's is never their evidence, made-up
MTurk identities cannot sit on the campaign, and a crowd identity's visit ends with its last activity.

MTurk's remote API is mocked with botocore's Stubber, as in tests/test_held_work.py; nothing else is.
"""

from __future__ import annotations

import pytest

from crowd.models import CrowdSession
from crowd.services.confirmation import held_sessions_confirm
from crowd.services.workers import crowd_worker_get_or_create
from ranking.models import Assignment, WorkerRecord
from ranking.services.holds import assignment_hold_drop, assignment_hold_release
from ranking.work_reads import worker_ratings, worker_trap_verdicts
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
