"""An assignment's statuses and why a finished one is held (issue 35), apart from ranking/models/campaigns.py
(its size); ranking.models re-exports every name."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class AssignmentStatus(models.TextChoices):
    ACTIVE = "active"
    SUBMITTED = "submitted"
    EXPIRED = "expired"
    RETURNED = "returned"
    EXCLUDED = "excluded", "excluded (worker failed traps)"
    HELD = "held", "held (finished, counted once released)"
    DROPPED = "dropped", "dropped (a held HIT that never counts)"


class HoldReason(models.TextChoices):
    """Why a finished assignment is held (``AssignmentStatus.HELD``) or was dropped (issue 35)."""

    NONE = "", "not held"
    UNCONFIRMED = "unconfirmed", "awaiting the platform's confirmation of the submission"
    TOO_FAST = "too_fast", "finished in under half its screens' minimum time"
    OTHER_WORKER = "other_worker", "the platform names another worker or HIT for the submission"
    NEVER_SUBMITTED = "never_submitted", "the platform never received the submission"
    PILOT = "pilot", "the worker's first HIT had near-constant answers or screens under the minimum time"
    DISAGREES = "disagrees", "the worker's answers agree far less with the other workers' than the campaign's"
    SAME_PERSON = "same_person", "the worker's answers are alike another worker's beyond chance (one person)"


EVIDENCE_HOLDS = [HoldReason.DISAGREES, HoldReason.SAME_PERSON]
"""Holds the worker's record puts on their finished HITs while its evidence stands (issue 41), lifted
when it clears; the researcher decides by excluding the worker or including them always."""


LIVE_STATUSES = [AssignmentStatus.ACTIVE, AssignmentStatus.SUBMITTED, AssignmentStatus.HELD]
"""A live assignment holds one of its HIT's slots: a held one keeps it, so a campaign waiting for a
platform's confirmation does not over-collect."""
LIVE_ASSIGNMENT = Q(status__in=LIVE_STATUSES)
FINISHED_STATUSES = [AssignmentStatus.SUBMITTED, AssignmentStatus.HELD]
"""The worker finished the HIT (counted or held): what a worker's page and a platform's end page see."""


IDENTITY_HOLDS = [HoldReason.UNCONFIRMED, HoldReason.OTHER_WORKER, HoldReason.NEVER_SUBMITTED]
"""Holds that doubt who did the work (not ``too_fast``, which is the worker's own evidence)."""
NOT_EVIDENCE = Q(status=AssignmentStatus.DROPPED) | Q(hold_reason__in=[r.value for r in IDENTITY_HOLDS])
"""Assignments whose judgments say nothing about the worker they name (issue 35's review): dropped,
or held (or excluded while held) because the platform has not confirmed, or contradicted, that the
worker did them. Anyone who knows a workerId or a PID can make such work in the worker's name, so
it never counts as the worker's evidence (traps, repeats, flat scoring, speed, qualification)."""
JUDGMENT_NOT_EVIDENCE = Q(assignment__status=AssignmentStatus.DROPPED) | Q(
    assignment__hold_reason__in=[r.value for r in IDENTITY_HOLDS]
)
"""``NOT_EVIDENCE`` as a filter on ``ScreenJudgment`` (``ranking.work.reads`` has its SQL twin)."""


HOLD_REASON_VALID = (
    Q(
        status__in=[AssignmentStatus.HELD, AssignmentStatus.DROPPED],
        hold_reason__in=[r.value for r in HoldReason if r.value],
    )
    | Q(status=AssignmentStatus.EXCLUDED, hold_reason__in=[r.value for r in HoldReason])
    | (
        ~Q(status__in=[AssignmentStatus.HELD, AssignmentStatus.DROPPED, AssignmentStatus.EXCLUDED])
        & Q(hold_reason="")
    )
)
"""Held and dropped say why; excluded may remember a hold (so inclusion holds it again); every other
status has no reason (the check constraint ``assignment_hold_reason_valid``)."""


def worker_status(status: str) -> str:
    """The status the worker is told: a held HIT is "submitted" (the worker's part is done; whether
    and why it waits is the researcher's to see, not a signal a bot could tune its speed by)."""
    return AssignmentStatus.SUBMITTED if status == AssignmentStatus.HELD else status
