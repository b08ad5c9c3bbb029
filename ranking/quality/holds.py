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
(``ranking.quality.evidence.evidence_recount``).

The pilot check (issue 40, ``Campaign.pilot_hold``): when a worker's first HIT in the campaign has
near-constant answers or a quarter of its screens under their minimum (``geceval.human.worker_checks.
first_hit_doubt``), the worker's record keeps the doubt (``WorkerRecord.pilot_doubt``) and every HIT
they finish is held (``pilot``) until their evidence clears (``pilot_evidence_clears``: enough traps
seen, passed at the campaign's threshold, no flat scoring and no exclusion reason; then all of it is
released at once) or the researcher decides (releasing one of their HITs vouches for the worker and
releases all of them; dropping one drops that one). An obvious bot is thus out of the results after
its first HIT, long before the pass rate (``trap_min_seen`` traps) or Appraise's test (15) can speak.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q, Sum
from django.db.models.functions import Coalesce

from annotate.sql_rows import row
from geceval.human.worker_checks import ANSWERS, first_hit_doubt
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    HoldReason,
    PilotDoubt,
    Rating,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.protocols import protocol_get
from ranking.quality.rules import record_exclusion_reasons
from ranking.services.results import campaign_scores_send
from ranking.work.writes import row_update

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
    """Why a just-finished assignment is held ("": it is not). The platform comes first: the pilot
    check and the speed rule are applied again when it confirms (``assignment_hold_release``)."""
    if assignment.gold:
        return ""
    if any(check(assignment) for check in _platform_checks):
        return HoldReason.UNCONFIRMED
    return _own_evidence_hold(assignment, campaign)


def _own_evidence_hold(assignment: Assignment, campaign: Campaign) -> str:
    if campaign.pilot_hold and pilot_held(assignment, campaign):
        return HoldReason.PILOT
    if campaign.speed_rule and hit_too_fast(assignment):
        return HoldReason.TOO_FAST
    return ""


def pilot_held(assignment: Assignment, campaign: Campaign) -> bool:
    """The pilot check on a finished assignment: True when its worker is held already, or when it is
    their first finished HIT in the campaign and it looks scripted (the doubt is then stored)."""
    record = WorkerRecord.objects.filter(campaign_id=campaign.pk, worker_id=assignment.worker_id).first()
    if record is not None and record.pilot_doubt:
        return True
    earlier = Assignment.objects.filter(
        hit__campaign_id=campaign.pk, hit__qualification=False, worker_id=assignment.worker_id
    ).exclude(pk=assignment.pk)
    if earlier.filter(submitted__isnull=False).exists():
        return False
    doubt = _first_hit_doubt(assignment, campaign)
    if not doubt:
        return False
    record, _ = WorkerRecord.objects.get_or_create(campaign=campaign, worker_id=assignment.worker_id)
    record.pilot_doubt = doubt
    record.save(update_fields=["pilot_doubt"])
    return True


def _first_hit_doubt(assignment: Assignment, campaign: Campaign) -> str:
    """``first_hit_doubt`` on the assignment's judgments (two queries, three with comparable answers)."""
    judgments = ScreenJudgment.objects.filter(assignment_id=assignment.pk)
    screens: dict[int, list[tuple[int, float]]] = {
        pk: [] for pk in judgments.values_list("screen_id", flat=True)
    }
    fast = judgments.filter(TOO_FAST_JUDGMENT).count() if campaign.speed_rule else 0
    answer = protocol_get(campaign.protocol).answer_field
    answer = answer if answer in ANSWERS else None
    if answer is not None:
        grouped: dict[int, list[tuple[int, float]]] = defaultdict(list)
        ratings = Rating.objects.filter(judgment__assignment_id=assignment.pk, **{f"{answer}__isnull": False})
        for screen_id, position, value in ratings.values_list(
            "judgment__screen_id", "candidate__position", answer
        ):
            grouped[screen_id].append((position, value))
        screens.update(grouped)
    return first_hit_doubt(list(screens.values()), answer=answer, too_fast=fast)


def pilot_evidence_clears(campaign: Campaign, record: WorkerRecord) -> bool:
    """A pilot-held worker's evidence clears them: ``trap_min_seen`` traps seen (a too-fast screen is
    one failed), passed at the campaign's threshold, no flat scoring over all their answers and no
    reason to exclude them. A campaign without traps never clears a worker by itself: the researcher
    decides. The threshold is the campaign's own even for a worker the crowd vouches for (issue 41,
    ``worker_checks.pass_line``): the vouching lowers the line under which a worker is excluded, not
    the evidence that clears a first HIT that looked like a script's; such a worker stays held until
    the traps clear them or the researcher releases them."""
    seen = record.traps_seen
    return (
        seen >= campaign.trap_min_seen
        and record.traps_passed / seen >= campaign.trap_threshold
        and not record.flat_reason
        and not record.excluded
        and not record_exclusion_reasons(campaign, record)
    )


def pilot_release(*, campaign: Campaign, record: WorkerRecord) -> int:
    """The worker is no longer doubted: every HIT of theirs held by the pilot check counts from now
    on (an excluded one remembers no pilot hold, so inclusion does not hold it again). Inside the
    caller's transaction, with ``record`` locked. Returns the HITs released."""
    record.pilot_doubt = PilotDoubt.NONE
    record.save(update_fields=["pilot_doubt"])
    mine = Assignment.objects.filter(hit__campaign_id=campaign.pk, worker_id=record.worker_id)
    released = mine.filter(status=AssignmentStatus.HELD, hold_reason=HoldReason.PILOT).update(
        status=AssignmentStatus.SUBMITTED, hold_reason=HoldReason.NONE
    )
    mine.filter(status=AssignmentStatus.EXCLUDED, hold_reason=HoldReason.PILOT).update(
        hold_reason=HoldReason.NONE
    )
    if released:
        campaign_scores_send(campaign.pk)
    return released


def hold_after_inclusion(assignment: Assignment, campaign: Campaign) -> str:
    """Why a finished assignment of a worker included again is held ("": it counts). A hold for the
    platform's confirmation whose platform has confirmed meanwhile (the confirmation released only
    the HITs held then, not the excluded ones) ends as the confirmation would have ended it: the speed
    rule still applies."""
    reason = assignment.hold_reason
    if reason == HoldReason.UNCONFIRMED and not any(check(assignment) for check in _platform_checks):
        reason = _own_evidence_hold(assignment, campaign)
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
    if not by_researcher and locked.hold_reason == HoldReason.UNCONFIRMED:
        following = _own_evidence_hold(locked, campaign)
    if by_researcher and locked.hold_reason == HoldReason.PILOT:
        # the researcher vouches for the worker: all their work held by the pilot check counts
        record = row(WorkerRecord, campaign_id=campaign.pk, worker_id=locked.worker_id, for_update=True)
        if record is not None:
            pilot_release(campaign=campaign, record=record)
        locked.refresh_from_db(fields=["status", "hold_reason"])
    if following:
        locked.hold_reason = following
    else:
        locked.status, locked.hold_reason = AssignmentStatus.SUBMITTED, HoldReason.NONE
    row_update(locked, ("status", "hold_reason"))
    _record_recount(campaign, locked)
    if locked.status == AssignmentStatus.SUBMITTED:
        campaign_scores_send(campaign.pk)
    return locked


def _record_recount(campaign: Campaign, assignment: Assignment) -> None:
    """The worker's record after a hold ends: work held for a doubt on who did it was no evidence
    (``ranking.statuses.NOT_EVIDENCE``); released it is, dropped it stays out (and the exclusion it
    may have brought about is undone)."""
    from ranking.quality.exclusion import worker_record_refresh  # traps -> evidence -> holds

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
