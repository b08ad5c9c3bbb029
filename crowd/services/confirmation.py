"""Work is counted when the platform confirms it (issue 35).

A HIT finished through an MTurk assignment or a Prolific session is held (``HoldReason.UNCONFIRMED``,
``ranking.quality.holds``) until the platform reports the submission as made by that worker:

- MTurk: ``GetAssignment`` names the same WorkerId and HIT, with the status Submitted, Approved or
  Rejected (each means MTurk received the worker's submission);
- Prolific: the submission (``submissions/<SESSION_ID>/``) names the same participant and study with
  the status AWAITING REVIEW, APPROVED or REJECTED (and our completion code, when the campaign has one).

Then the session is ``confirmed`` and its held HITs are released (the speed rule still applies).
If the platform names another worker or HIT, the held HITs are dropped at once (``other_worker``):
the identity was made up or borrowed. If the platform has no submission (an error, MTurk's unknown
assignment, Prolific's ACTIVE, RETURNED, TIMED-OUT...) they stay held and are asked again on the next
poll, until ``CROWD_CONFIRM_WAIT_HOURS`` after the HIT was finished: then they are dropped
(``never_submitted``) and their slots return to the pool. Invite links need no confirmation.

Polled by beat (``crowd.tasks.task_confirm_held``); the remote APIs are the only thing tests mock.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from functools import cache

from django.conf import settings
from django.db import connection
from django.db.models import Max
from django.utils import timezone

from annotate.sql_rows import column, table
from crowd.models import CrowdSession, CrowdSettings, MturkHit, Platform
from crowd.services.mturk_calls import MturkCallFailed, _call, _token
from crowd.services.prolific import _request
from geceval.errors import GecInputError
from ranking.models import Assignment, AssignmentStatus, HoldReason
from ranking.quality.holds import assignment_hold_drop, assignment_hold_release

CONFIRMED_PLATFORMS = (Platform.MTURK, Platform.PROLIFIC)
MTURK_SUBMITTED = ("Submitted", "Approved", "Rejected")
PROLIFIC_SUBMITTED = ("AWAITING REVIEW", "APPROVED", "REJECTED")
MTURK_NO_SUCH_ASSIGNMENT = "RequestError"
"""botocore's error code for an invalid request: for GetAssignment, an assignment MTurk does not have
(or has not received yet); MTurk's other code, ``ServiceFault``, is transient."""


@cache
def _hold_needed_sql() -> str:
    through, cs = CrowdSession.assignments.through, CrowdSession
    platforms = ", ".join(f"'{platform.value}'" for platform in CONFIRMED_PLATFORMS)
    return (
        f"SELECT 1 FROM {table(through)} t INNER JOIN {table(cs)} cs "
        f"ON cs.{column(cs, 'pk')} = t.{column(through, 'crowdsession')} "
        f"WHERE t.{column(through, 'assignment')} = %s AND cs.{column(cs, 'platform')} IN ({platforms}) "
        f"AND cs.{column(cs, 'confirmed')} IS NULL LIMIT 1"
    )


def platform_hold_needed(assignment: Assignment) -> bool:
    """Registered with ``ranking.quality.holds``: the assignment came through an MTurk or Prolific
    session whose submission the platform has not confirmed yet. One plain statement at a HIT's end
    (the ORM's ``exists()`` cost ~100 Python calls to build, on every workers' HIT end; its twin:
    tests/test_held_work.py)."""
    with connection.cursor() as cursor:
        cursor.execute(_hold_needed_sql(), [assignment.pk])
        return cursor.fetchone() is not None


def sessions_awaiting_confirmation(platform: str) -> list[CrowdSession]:
    """Sessions of ``platform`` with a HIT held for the platform's confirmation."""
    return list(
        CrowdSession.objects.filter(
            platform=platform,
            confirmed__isnull=True,
            assignments__status=AssignmentStatus.HELD,
            assignments__hold_reason=HoldReason.UNCONFIRMED,
        )
        .select_related("worker", "campaign")
        .distinct()
        .order_by("pk")
    )


def _held(session: CrowdSession) -> list[Assignment]:
    return list(session.assignments.filter(status=AssignmentStatus.HELD, hold_reason=HoldReason.UNCONFIRMED))


def session_confirmed(session: CrowdSession, now: datetime | None = None) -> int:
    """The platform confirmed the submission: release the session's held HITs; returns how many."""
    session.confirmed = now or timezone.now()
    session.save(update_fields=["confirmed"])
    held = _held(session)
    for assignment in held:
        assignment_hold_release(assignment=assignment, reason=HoldReason.UNCONFIRMED)
    return len(held)


def session_refused(session: CrowdSession, reason: str) -> int:
    """The platform's record contradicts ours (or never came): drop the held HITs; returns how many."""
    held = _held(session)
    for assignment in held:
        assignment_hold_drop(assignment=assignment, reason=reason)
    return len(held)


def _waited_too_long(session: CrowdSession, now: datetime) -> bool:
    last = session.assignments.filter(status=AssignmentStatus.HELD).aggregate(m=Max("submitted"))["m"]
    return last is not None and now - last > timedelta(hours=settings.CROWD_CONFIRM_WAIT_HOURS)


def _past_grace(session: CrowdSession, now: datetime) -> bool:
    """The session's last HIT was finished ``CROWD_CONFIRM_GRACE_MINUTES`` ago: long enough for the
    worker's submit on our end page to reach MTurk."""
    last = session.assignments.filter(status=AssignmentStatus.HELD).aggregate(m=Max("submitted"))["m"]
    return last is not None and now - last > timedelta(minutes=settings.CROWD_CONFIRM_GRACE_MINUTES)


def _not_yet(session: CrowdSession, now: datetime) -> str:
    if _waited_too_long(session, now):
        session_refused(session, HoldReason.NEVER_SUBMITTED)
        return "dropped"
    return "waiting"


def _campaign_hits(session: CrowdSession) -> set[str]:
    """The MTurk HITs a confirmed assignment may belong to: the campaign's own published HITs
    (``MturkHit``); for a campaign that published none here (HITs made by hand on MTurk, the
    sandbox), only the hitId its entry recorded (never an empty one)."""
    published = set(MturkHit.objects.filter(campaign_id=session.campaign_id).values_list("hit_id", flat=True))
    return published or ({session.study} - {""})


def mturk_session_confirm(*, client, session: CrowdSession, now: datetime | None = None) -> str:
    """Ask MTurk (GetAssignment) about the session's assignment: "confirmed", "dropped" or "waiting"."""
    now = now or timezone.now()
    assignment_id = session.external_session
    try:
        remote = _call(
            client,
            "GetAssignment",
            {"AssignmentId": assignment_id},
            token=_token("confirm", assignment_id, uuid.uuid4().hex[:12]),  # a read: asked every time
            campaign=session.campaign,
        )
    except MturkCallFailed as failed:
        # RequestError: MTurk has no such submitted assignment of ours (a made-up id, or one not submitted
        # yet: GetAssignment only finds Submitted, Approved or Rejected ones). After a short grace for the
        # worker's submit to reach MTurk it is dropped at once, not left to hold a slot for a day.
        # Anything else (ServiceFault, throttling, no answer) is transient: asked again on the next poll.
        if failed.code == MTURK_NO_SUCH_ASSIGNMENT and _past_grace(session, now):
            session_refused(session, HoldReason.NEVER_SUBMITTED)
            return "dropped"
        return _not_yet(session, now)
    found = remote.get("Assignment") or {}
    hit = found.get("HITId") or ""
    if found.get("WorkerId") != session.worker.external_id or not hit or hit not in _campaign_hits(session):
        session_refused(session, HoldReason.OTHER_WORKER)
        return "dropped"
    if found.get("AssignmentStatus") not in MTURK_SUBMITTED:
        return _not_yet(session, now)
    session_confirmed(session, now)
    return "confirmed"


def prolific_session_confirm(*, client, session: CrowdSession, now: datetime | None = None) -> str:
    """Ask Prolific about the session's submission: "confirmed", "dropped" or "waiting"."""
    now = now or timezone.now()
    try:
        body = _request(
            client,
            "GET",
            f"submissions/{session.external_session}/",
            operation="GetSubmission",
            token=f"confirm-{session.external_session}",
            campaign=session.campaign,
            once=False,
        )
    except GecInputError:
        return _not_yet(session, now)
    if not isinstance(body, dict):
        return _not_yet(session, now)
    participant = body.get("participant") or body.get("participant_id")
    study = (
        CrowdSettings.objects.filter(campaign=session.campaign)
        .values_list("prolific_study_id", flat=True)
        .first()
    )
    if not study:  # the campaign's own study is unknown: nothing to compare with (not the URL's STUDY_ID)
        return "waiting"  # held until the researcher sets it on the crowd settings, or releases by hand
    if participant != session.worker.external_id or body.get("study_id") != study:
        session_refused(session, HoldReason.OTHER_WORKER)
        return "dropped"
    if body.get("status") not in PROLIFIC_SUBMITTED:
        return _not_yet(session, now)
    code = (
        CrowdSettings.objects.filter(campaign=session.campaign)
        .values_list("prolific_completed_code", flat=True)
        .first()
    )
    if code and body.get("entered_code") not in (None, code):
        return _not_yet(session, now)  # the researcher decides (release or drop) on the campaign page
    session_confirmed(session, now)
    return "confirmed"


def held_sessions_confirm(*, mturk_client=None, prolific_client=None, now: datetime | None = None) -> dict:
    """One poll: every session awaiting its platform's confirmation, asked once. A platform without a
    client (no credentials in the environment) is skipped. Returns counts per outcome."""
    counts: dict[str, int] = {"confirmed": 0, "dropped": 0, "waiting": 0}
    for platform, client, confirm in (
        (Platform.MTURK, mturk_client, mturk_session_confirm),
        (Platform.PROLIFIC, prolific_client, prolific_session_confirm),
    ):
        if client is None:
            continue
        for session in sessions_awaiting_confirmation(platform):
            counts[confirm(client=client, session=session, now=now)] += 1
    return counts
