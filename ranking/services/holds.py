"""Held work and the speed rule (issue 35).

A finished assignment is *held* (``AssignmentStatus.HELD``, with a ``HoldReason``) instead of
submitted when its work must not count yet: the crowd platform has not confirmed the submission
(``unconfirmed``: a check registered by the crowd layer, ``platform_hold_register``), or the HIT was
finished in under half its screens' minimum plausible time (``too_fast``). A held assignment keeps
its slot (it is live: the campaign does not hand the HIT to someone else while it waits) but counts
in no result, analysis, export or payment: all of them read ``ranking.selectors.valid_judgment``,
which takes submitted assignments only. It leaves the state one of two ways:

- released (``assignment_hold_release``): by the platform's confirmation (then the speed rule is
  still applied) or by the researcher (the work counts, whatever the reason was): it is submitted;
- dropped (``assignment_hold_drop``): by the platform naming another worker or never receiving the
  submission, or by the researcher: it never counts and its slot returns to the pool.

The speed rule: a screen's minimum is ``speed_base_seconds`` plus ``speed_seconds_per_word`` for each
word shown (the source and every candidate), measured with the server's time on the screen
(``ScreenJudgment.seconds``, from the stamp the server signed when it served the screen; a missing or
forged stamp gives no time, which is too fast). A screen under its minimum counts as a failed trap
(``ranking.services.evidence.evidence_recount``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q, Sum
from django.db.models.functions import Coalesce

from annotate.sql_rows import row
from annotate.tasking import task_send_on_commit
from ranking.models import Assignment, AssignmentStatus, Campaign, HoldReason, ScreenJudgment
from ranking.services.results import TASK_CAMPAIGN_SCORES
from ranking.work_writes import row_update

_platform_checks: list[Callable[[Assignment], bool]] = []


def platform_hold_register(check: Callable[[Assignment], bool]) -> None:
    """The crowd layer's check: True when the assignment came through a platform that has not yet
    confirmed the submission (MTurk, Prolific). Registered once, in ``crowd/apps.py``."""
    if check not in _platform_checks:
        _platform_checks.append(check)


def screen_min_seconds(campaign: Campaign, source: str, candidates: Iterable[str]) -> float | None:
    """The screen's minimum plausible time under the campaign's speed rule (None: the rule is off)."""
    if not campaign.speed_rule:
        return None
    words = len(source.split()) + sum(len(text.split()) for text in candidates)
    return campaign.speed_base_seconds + campaign.speed_seconds_per_word * words


def too_fast(seconds: float | None, min_seconds: float | None) -> bool:
    """Answered under the screen's minimum; no server time (a missing or forged stamp) is too fast."""
    return min_seconds is not None and (seconds is None or seconds < min_seconds)


TOO_FAST_JUDGMENT = Q(min_seconds__isnull=False) & (Q(seconds__isnull=True) | Q(seconds__lt=F("min_seconds")))
"""``too_fast`` as a filter on ``ScreenJudgment``."""


def hit_too_fast(assignment: Assignment) -> bool:
    """The worker's screens of the HIT took under half their minimum (in server time, none counted 0)."""
    totals = ScreenJudgment.objects.filter(assignment_id=assignment.pk).aggregate(
        spent=Coalesce(Sum("seconds"), 0.0), needed=Sum("min_seconds")
    )
    return totals["needed"] is not None and totals["spent"] < totals["needed"] / 2


def finished_hold(assignment: Assignment, campaign: Campaign) -> str:
    """Why a just-finished assignment is held ("": it is not). The platform comes first: the speed
    rule is applied again when it confirms (``assignment_hold_release``)."""
    if assignment.gold:
        return ""
    if any(check(assignment) for check in _platform_checks):
        return HoldReason.UNCONFIRMED
    if campaign.speed_rule and hit_too_fast(assignment):
        return HoldReason.TOO_FAST
    return ""


def hold_after_inclusion(assignment: Assignment, campaign: Campaign) -> str:
    """Why a finished assignment of a worker included again is held ("": it counts). A hold for the
    platform's confirmation whose platform has confirmed meanwhile (the confirmation released only
    the HITs held then, not the excluded ones) ends as the confirmation would have ended it: the speed
    rule still applies."""
    reason = assignment.hold_reason
    if reason == HoldReason.UNCONFIRMED and not any(check(assignment) for check in _platform_checks):
        reason = HoldReason.TOO_FAST if campaign.speed_rule and hit_too_fast(assignment) else HoldReason.NONE
    return reason


def _locked_held(assignment: Assignment) -> Assignment | None:
    locked = row(Assignment, pk=assignment.pk, for_update=True)
    return locked if locked is not None and locked.status == AssignmentStatus.HELD else None


def _campaign_of(assignment: Assignment) -> Campaign:
    return Campaign.objects.get(hits__assignments=assignment.pk)


@transaction.atomic
def assignment_hold_release(
    *, assignment: Assignment, reason: str | None = None, by_researcher: bool = False
) -> Assignment:
    """Release a held assignment: submitted, so its work counts from now on. ``reason``: release only
    a hold for that reason (the platform's confirmation releases ``unconfirmed`` and then applies the
    speed rule); ``by_researcher``: the researcher's decision, released whatever the reason. A no-op
    on an assignment not held (released or dropped already: safe to repeat)."""
    locked = _locked_held(assignment)
    if locked is None or (reason is not None and locked.hold_reason != reason):
        return locked or assignment
    campaign = _campaign_of(locked)
    following = ""
    if not by_researcher and locked.hold_reason == HoldReason.UNCONFIRMED and campaign.speed_rule:
        following = HoldReason.TOO_FAST if hit_too_fast(locked) else ""
    if following:
        locked.hold_reason = following
    else:
        locked.status, locked.hold_reason = AssignmentStatus.SUBMITTED, HoldReason.NONE
    row_update(locked, ("status", "hold_reason"))
    _record_recount(campaign, locked)
    if locked.status == AssignmentStatus.SUBMITTED:
        task_send_on_commit(TASK_CAMPAIGN_SCORES, campaign_id=campaign.pk)
    return locked


def _record_recount(campaign: Campaign, assignment: Assignment) -> None:
    """The worker's record after a hold ends: work held for a doubt on who did it was no evidence
    (``ranking.statuses.NOT_EVIDENCE``); released it is, dropped it stays out (and the exclusion it
    may have brought about is undone)."""
    from ranking.services.traps import worker_record_refresh  # traps -> evidence -> holds

    worker = get_user_model().objects.get(pk=assignment.worker_id)
    worker_record_refresh(campaign=campaign, worker=worker)


@transaction.atomic
def assignment_hold_drop(*, assignment: Assignment, reason: str | None = None) -> Assignment:
    """Drop a held assignment: its work never counts and its slot returns to the pool. ``reason``:
    why (a ``HoldReason``; default: the reason it was held for). A no-op when it is not held."""
    if reason is not None and (reason not in HoldReason.values or reason == HoldReason.NONE):
        raise ValueError(f"unknown hold reason {reason!r}")
    locked = _locked_held(assignment)
    if locked is None:
        return assignment
    locked.status = AssignmentStatus.DROPPED
    locked.hold_reason = reason or locked.hold_reason
    row_update(locked, ("status", "hold_reason"))
    _record_recount(_campaign_of(locked), locked)
    return locked
