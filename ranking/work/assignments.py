"""Handing out HITs, expiring them, and taking screen submissions.

A HIT needs ``judgments_per_item`` live assignments (active or submitted).
Slots are claimed by inserting a row that a partial unique index guards, so
two workers asking at once can never hold the same slot, without locks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from annotate.rewrites.selectors import qualification_granted
from annotate.sql_rows import row
from geceval.errors import GecInputError
from ranking.models import (
    LIVE_ASSIGNMENT,
    LIVE_CAMPAIGN_STATUSES,
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Candidate,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.protocols import protocol_get
from ranking.quality.control_judging import controls_judged, has_controls
from ranking.quality.exclusion import worker_record_refresh_after_submit
from ranking.quality.gold import gold_assignment, qualification_grade, qualification_hit
from ranking.quality.holds import finished_hold, screen_min_seconds, too_fast
from ranking.selectors import screen_candidates_for_submit
from ranking.services.campaigns import screen_draw_active
from ranking.services.life_cycle import NO_WORK_BECAUSE, PILOT_FULL, pilot_hit_ids
from ranking.services.results import campaign_scores_send
from ranking.work.judging import CandidateScore, TrapVerdict, trap_outcome, validate_answers
from ranking.work.leases import assignment_lease_extend, lease_first_expiry
from ranking.work.reads import (
    active_assignment,
    claimable_hits,
    first_unjudged_screen,
    hit_progress,
    screens_left,
)
from ranking.work.writes import row_update, rows_insert


class NoWork(Exception):
    """No HIT can be handed to this worker now; ``str()`` says why, for the worker."""


def assignments_expire(*, campaign: Campaign | None = None, now: datetime | None = None) -> int:
    """Active assignments past their deadline become expired: their slots return to the pool."""
    now = now or timezone.now()
    if campaign is not None:  # every claim: a plain statement (ranking/work/reads.py says why)
        return _expire_in_campaign(campaign.pk, now)
    stale = Assignment.objects.filter(status=AssignmentStatus.ACTIVE, expires__lt=now)
    return stale.update(status=AssignmentStatus.EXPIRED)


@cache
def _expire_sql() -> str:
    q, a, h = connection.ops.quote_name, Assignment._meta, Hit._meta
    status, expires, hit = (q(a.get_field(f).column) for f in ("status", "expires", "hit"))
    return (
        f"UPDATE {q(a.db_table)} SET {status} = %s WHERE {status} = %s AND {expires} < %s "
        f"AND {hit} IN (SELECT {q(h.pk.column)} FROM {q(h.db_table)} WHERE {q(h.get_field('campaign').column)} = %s)"
    )


def _expire_in_campaign(campaign_id: int, now: datetime) -> int:
    params = [
        AssignmentStatus.EXPIRED.value,
        AssignmentStatus.ACTIVE.value,
        connection.ops.adapt_datetimefield_value(now),
        campaign_id,
    ]
    with connection.cursor() as cursor:
        cursor.execute(_expire_sql(), params)
        return cursor.rowcount


def _budget_left(campaign: Campaign) -> bool:
    if campaign.budget is None or not campaign.reward_per_hit:
        return True
    live = Assignment.objects.filter(LIVE_ASSIGNMENT, hit__campaign=campaign).count()
    return (live + 1) * campaign.reward_per_hit <= campaign.budget


def assignment_request(
    *, campaign: Campaign, worker: AbstractBaseUser, now: datetime | None = None
) -> Assignment:
    """The worker's active assignment in this campaign, or a new one on the HIT the server picks."""
    now = now or timezone.now()
    current = active_assignment(campaign_id=campaign.pk, worker_id=worker.pk, now=now)
    if current is not None:
        current.hit.campaign = campaign
        return current
    # Stale assignments give their slots back before any is claimed: one indexed UPDATE (status,
    # expires) that touches only this campaign's overdue rows, so the embedded mode (no beat) expires
    # them too. The periodic task_expire_assignments does the same for campaigns nobody asks.
    assignments_expire(campaign=campaign, now=now)
    if campaign.status not in LIVE_CAMPAIGN_STATUSES:
        raise NoWork(NO_WORK_BECAUSE.get(campaign.status, "This campaign is not handing out work."))
    if campaign.qualification_id and not qualification_granted(worker, campaign.qualification):
        raise NoWork(f"This campaign needs the qualification {campaign.qualification.name!r} first.")
    record = row(WorkerRecord, campaign_id=campaign.pk, worker_id=worker.pk)
    if record is not None and record.excluded:
        raise NoWork("There is no more work for you in this campaign.")
    if not _budget_left(campaign):
        raise NoWork("This campaign has reached its budget.")
    test = _qualification_test(campaign, worker, now, record)
    if test is not None:
        test.hit.campaign = campaign
        return test

    target = campaign.judgments_per_item
    hit_ids = pilot_hit_ids(campaign) if campaign.status == CampaignStatus.PILOT else None
    domains = None
    if campaign.separate_domains:
        today = now.date()
        domains = (
            set(
                Assignment.objects.filter(
                    hit__campaign=campaign, worker=worker, started__date=today
                ).values_list("hit__domain", flat=True)
            )
            or None
        )  # none yet today: any domain
    expires = lease_first_expiry(campaign, now)
    # Fill the HITs closest to complete first, so items reach their judgments sooner.
    hits = claimable_hits(
        campaign_id=campaign.pk, worker_id=worker.pk, target=target, hit_ids=hit_ids, domains=domains
    )
    for hit in hits:
        hit.campaign = campaign
        # Slots are usually taken in order, so the one after the live ones is tried first without
        # reading them; a gap (an expired or returned slot) or a race sends us to the slots in use.
        claimed = _claim(hit, worker, hit.live, expires)
        if claimed is not None:
            return claimed
        if Assignment.objects.filter(hit=hit, worker=worker).exists():
            continue  # this worker got this HIT a moment ago (a concurrent request of theirs)
        used = set(Assignment.objects.filter(LIVE_ASSIGNMENT, hit=hit).values_list("slot", flat=True))
        for slot in range(target):
            if slot in used:
                continue
            claimed = _claim(hit, worker, slot, expires)
            if claimed is not None:
                return claimed
            if Assignment.objects.filter(hit=hit, worker=worker).exists():
                break
    if campaign.status == CampaignStatus.PILOT:
        raise NoWork(PILOT_FULL)
    raise NoWork("There are no more HITs for you in this campaign. Thank you!")


def _claim(hit: Hit, worker: AbstractBaseUser, slot: int, expires: datetime) -> Assignment | None:
    """Insert the assignment; None when the partial unique index says the slot is live already (or
    the worker has this HIT): another worker took it a moment ago."""
    claimed = Assignment(hit=hit, worker=worker, slot=slot, expires=expires)
    try:
        with transaction.atomic():
            rows_insert([claimed])  # Assignment.objects.create's row, without building the INSERT
    except IntegrityError:
        return None
    return claimed


def _qualification_test(
    campaign: Campaign, worker: AbstractBaseUser, now: datetime, record: WorkerRecord | None
) -> Assignment | None:
    """With a gold test in place: the worker's test assignment until they pass; NoWork if they failed."""

    hit = qualification_hit(campaign)
    if hit is None:
        return None
    if gold_assignment(campaign) is None:
        raise NoWork("This campaign's qualification test is not ready yet.")
    if record is not None and record.qualified is not None:
        if record.qualified:
            return None
        raise NoWork("You did not pass this campaign's qualification test. Thank you for your time.")
    expires = lease_first_expiry(campaign, now)
    mine = Assignment.objects.filter(hit=hit, worker=worker).first()
    if mine is not None:
        mine.hit = hit
    top = Assignment.objects.filter(hit=hit).aggregate(m=Max("slot"))["m"] or 0
    if mine is None:
        # A test HIT takes any number of workers: each one gets a slot of their own.
        for attempt in range(5):
            try:
                with transaction.atomic():
                    return Assignment.objects.create(
                        hit=hit, worker=worker, slot=top + 1 + attempt, expires=expires
                    )
            except IntegrityError:
                continue
        raise NoWork("Please try again in a moment.")
    # The test lapsed or was given back: it starts again on a fresh slot, keeping screens already done.
    mine.status, mine.expires, mine.slot = AssignmentStatus.ACTIVE, expires, top + 1
    mine.save(update_fields=["status", "expires", "slot"])
    return mine


@transaction.atomic
def assignment_return(*, assignment: Assignment, worker: AbstractBaseUser) -> Assignment:
    """The worker gives the HIT back unfinished; its slot returns to the pool."""
    if assignment.worker_id != worker.pk:
        raise GecInputError("this is not your assignment")
    if assignment.status == AssignmentStatus.ACTIVE:
        assignment.status = AssignmentStatus.RETURNED
        assignment.save(update_fields=["status"])
    return assignment


class _NotOpen(Exception):
    """The assignment, locked, is no longer active."""


def screen_submit(
    *,
    assignment: Assignment,
    screen: Screen,
    worker: AbstractBaseUser,
    answers: Mapping[int, CandidateScore],
    seconds: float | None = None,
    now: datetime | None = None,
    candidates: Sequence[Candidate] | None = None,
    client_seconds: float | None = None,
) -> tuple[ScreenJudgment, bool]:
    """Save one screen of the worker's assignment; returns (judgment, created).

    A resubmission is a no-op (unique (screen, judge)); a screen of someone
    else's assignment, of another HIT, or of an expired or finished
    assignment is refused. ``candidates``: the screen's, from
    ``screen_candidates_for_submit`` when the caller has them already.
    ``assignment`` leaves with the status (and submitted time) the submission gave it.
    ``seconds`` is the server's measure of the time on the screen; ``client_seconds`` the time a
    client reported (the workers' API field older clients send), kept beside it and never read by a
    check. Out-of-range values of either are dropped.
    """

    now = now or timezone.now()
    if assignment.worker_id != worker.pk:
        raise GecInputError("this is not your assignment")
    if screen.hit_id != assignment.hit_id:
        raise GecInputError("this screen is not part of your HIT")
    campaign = screen.campaign
    expired = assignment.status == AssignmentStatus.ACTIVE and assignment.expires < now
    refusal = _refusal(assignment, campaign, expired)
    if refusal is None:
        if candidates is None:
            candidates = screen_candidates_for_submit(screen, campaign)
        try:
            validate_answers(campaign.protocol, candidates, answers)
        except GecInputError as exc:
            refusal = exc
    if refusal is not None:
        return _refused(assignment, screen, worker, refusal, expired)
    seconds, client_seconds = (_in_range(x) for x in (seconds, client_seconds))
    min_seconds = screen_min_seconds(campaign, screen.sentence.text, (c.text for c in candidates))
    trap_ids = {c.pk for c in candidates if c.is_trap}
    verdict = trap_outcome(
        campaign.protocol, screen.sentence.text, candidates, trap_ids, answers, campaign.trap_margin
    )
    return _judgment_save(
        assignment,
        screen,
        worker,
        answers,
        seconds=seconds,
        client_seconds=client_seconds,
        min_seconds=min_seconds,
        verdict=verdict,
        now=now,
    )


def _in_range(seconds: float | None) -> float | None:
    return seconds if seconds is not None and 0 <= seconds < 86400 else None


def _refusal(assignment: Assignment, campaign: Campaign, expired: bool) -> GecInputError | None:
    """Why the assignment takes no submission now (None: it does)."""
    if expired:
        return GecInputError("your time for this HIT ran out; it went back to the pool")
    if assignment.status != AssignmentStatus.ACTIVE:
        return GecInputError("this HIT is no longer open for you")
    return None  # a closed or paused campaign still takes the HITs in progress


def _refused(
    assignment: Assignment, screen: Screen, worker: AbstractBaseUser, refusal: GecInputError, expired: bool
) -> tuple[ScreenJudgment, bool]:
    # A screen judged already stays judged: resubmitting it is a no-op whatever came since.
    existing = ScreenJudgment.objects.filter(screen=screen, judge=worker).first()
    if existing is not None:
        return existing, False
    if expired:
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.ACTIVE).update(
            status=AssignmentStatus.EXPIRED
        )
    raise refusal


def _judgment_save(
    assignment: Assignment,
    screen: Screen,
    worker: AbstractBaseUser,
    answers: Mapping[int, CandidateScore],
    *,
    seconds: float | None,
    client_seconds: float | None,
    min_seconds: float | None,
    verdict: TrapVerdict,
    now: datetime,
) -> tuple[ScreenJudgment, bool]:
    """Insert the judgment and its ratings under the assignment's row lock, then what follows from it."""
    locked = None
    inserted = False
    try:
        with transaction.atomic():
            # Lock the assignment row: a concurrent submit of its last screens must see every judgment,
            # and a duplicate submit of this screen (same worker, same HIT, so same row) waits here.
            locked = row(Assignment, pk=assignment.pk, for_update=True)
            if locked.status != AssignmentStatus.ACTIVE:
                raise _NotOpen
            # The unique (screen, judge) index decides a duplicate: its IntegrityError rolls the
            # whole block back (nothing was written before it) and is answered below.
            judgment = ScreenJudgment(
                screen=screen,
                assignment=locked,
                judge=worker,
                seconds=seconds,
                client_seconds=client_seconds,
                min_seconds=min_seconds,
                trap_passed=verdict.passed,
                trap_base_answer=verdict.base_answer,
                trap_answer=verdict.trap_answer,
            )
            rows_insert([judgment])
            inserted = True
            rows_insert(
                [
                    Rating(
                        judgment=judgment,
                        candidate_id=cid,
                        score=a.score,
                        rank=a.rank,
                        meaning_changed=a.meaning_changed,
                    )
                    for cid, a in answers.items()
                ]
            )
            protocol_get(screen.campaign.protocol).details_save(judgment, answers)
            checked = verdict.passed is not None
            if has_controls(screen.campaign):
                checked = controls_judged(campaign=screen.campaign, screen_id=screen.pk, worker_id=worker.pk)
            # a screen answered under its minimum is evidence too: it counts as a failed trap
            checked = checked or too_fast(seconds, min_seconds)
            _after_judgment(assignment, locked, screen, worker, checked=checked, now=now)
    except _NotOpen:
        _sync(assignment, locked)
        existing = ScreenJudgment.objects.filter(screen=screen, judge=worker).first()
        if existing is not None:
            return existing, False
        raise GecInputError("this HIT is no longer open for you") from None
    except IntegrityError:
        if inserted:
            raise
        # A concurrent (or repeated) submit of this screen won: a no-op.
        if locked is not None:
            _sync(assignment, locked)
        return ScreenJudgment.objects.get(screen=screen, judge=worker), False
    assignment_lease_extend(assignment=locked, campaign=screen.campaign, now=now)
    _sync(assignment, locked)
    return judgment, True


def _after_judgment(
    assignment: Assignment,
    locked: Assignment,
    screen: Screen,
    worker: AbstractBaseUser,
    *,
    checked: bool,
    now: datetime,
) -> None:
    """Inside the submit's transaction: close the HIT after its last screen, refresh the trap record
    (which may exclude the worker), grade a finished qualification test, recompute the results."""
    campaign = screen.campaign
    remaining = screens_left(hit_id=locked.hit_id, worker_id=worker.pk)
    if not remaining:
        # held (issue 35): finished, its slot kept, counted once the platform or the researcher releases it
        locked.hold_reason = "" if assignment.hit.qualification else finished_hold(locked, campaign)
        locked.status = AssignmentStatus.HELD if locked.hold_reason else AssignmentStatus.SUBMITTED
        locked.submitted = now
        row_update(locked, ("status", "submitted", "hold_reason"))
    record = worker_record_refresh_after_submit(
        campaign=campaign, worker=worker, evidence=checked, hit_finished=not remaining
    )
    if record is not None and record.excluded:  # this submission may have excluded the worker
        locked.status = Assignment.objects.values_list("status", flat=True).get(pk=locked.pk)
    if not remaining and assignment.hit.qualification and not locked.gold:
        qualification_grade(campaign=campaign, assignment=locked)
    if not remaining:
        # with the broker down the judgment is still saved; the periodic recompute repairs results.
        campaign_scores_send(campaign.pk)


def _sync(assignment: Assignment, locked: Assignment) -> None:
    """The caller's copy learns what the locked row said (no reload needed to answer the worker)."""
    assignment.status, assignment.submitted, assignment.expires, assignment.hold_reason = (
        locked.status,
        locked.submitted,
        locked.expires,
        locked.hold_reason,
    )


def _unjudged_screens(assignment: Assignment, campaign: Campaign | None):
    screens = (
        Screen.objects.filter(hit_id=assignment.hit_id)
        .exclude(judgments__judge_id=assignment.worker_id)
        .order_by("hit_position")
    )
    return screens.select_related("sentence") if campaign else screens.select_related("sentence", "campaign")


def _loaded_campaign(assignment: Assignment) -> Campaign | None:
    """The assignment's campaign when its HIT and campaign are in memory already (as the selectors and
    assignment_request hand them over), so a screen needs no join to it."""
    if Assignment.hit.is_cached(assignment) and Hit.campaign.is_cached(assignment.hit):
        return assignment.hit.campaign
    return None


def _first_unjudged(screens, campaign: Campaign | None) -> Screen | None:
    screen = screens.first()
    if screen is not None and campaign is not None:
        screen.campaign = campaign
    return screen


def _drawn(screen: Screen) -> Screen:
    if screen.campaign.active_selection and not screen.candidates.exists():
        return screen_draw_active(screen=screen)
    return screen


def assignment_next_screen(assignment: Assignment) -> Screen | None:
    """The first screen of the HIT, in order, that the worker has not judged (drawn if it waits for
    active selection)."""
    campaign = _loaded_campaign(assignment)
    screen = _first_unjudged(_unjudged_screens(assignment, campaign), campaign)
    return None if screen is None else _drawn(screen)


def assignment_progress(assignment: Assignment) -> tuple[int, int]:
    """(screens the worker has judged, screens in the HIT)."""
    return hit_progress(hit_id=assignment.hit_id, worker_id=assignment.worker_id)


def assignment_screen_and_progress(assignment: Assignment) -> tuple[Screen | None, int, int]:
    """(next screen or None, screens done, screens in the HIT): what a worker sees, in one query while
    the assignment is active and a screen is left (the same answers as ``assignment_next_screen``
    and ``assignment_progress``)."""
    if assignment.status == AssignmentStatus.ACTIVE:
        screen, left, total = first_unjudged_screen(hit_id=assignment.hit_id, worker_id=assignment.worker_id)
        if screen is not None:
            screen.campaign = _loaded_campaign(assignment) or screen.campaign
            return _drawn(screen), total - left, total
    done, total = assignment_progress(assignment)
    return None, done, total
