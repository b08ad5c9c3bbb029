"""Handing out HITs, expiring them, and taking screen submissions.

A HIT needs ``judgments_per_item`` live assignments (active or submitted).
Slots are claimed by inserting a row that a partial unique index guards, so
two workers asking at once can never hold the same slot, without locks.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from annotate.rewrites.selectors import qualification_granted
from geceval.errors import GecInputError
from ranking.models import (
    LIVE_ASSIGNMENT,
    LIVE_STATUSES,
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.services.judging import CandidateScore, trap_outcome, validate_answers


class NoWork(Exception):
    """No HIT can be handed to this worker now; ``str()`` says why, for the worker."""


def assignments_expire(*, campaign: Campaign | None = None, now: datetime | None = None) -> int:
    """Active assignments past their deadline become expired: their slots return to the pool."""
    stale = Assignment.objects.filter(status=AssignmentStatus.ACTIVE, expires__lt=now or timezone.now())
    if campaign is not None:
        stale = stale.filter(hit__campaign=campaign)
    return stale.update(status=AssignmentStatus.EXPIRED)


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
    assignments_expire(campaign=campaign, now=now)
    current = (
        Assignment.objects.filter(hit__campaign=campaign, worker=worker, status=AssignmentStatus.ACTIVE)
        .select_related("hit")
        .first()
    )
    if current is not None:
        return current
    if campaign.status != CampaignStatus.ACTIVE:
        raise NoWork("This campaign is not handing out work at the moment.")
    if campaign.qualification_id and not qualification_granted(worker, campaign.qualification):
        raise NoWork(f"This campaign needs the qualification {campaign.qualification.name!r} first.")
    if WorkerRecord.objects.filter(campaign=campaign, worker=worker, excluded=True).exists():
        raise NoWork("There is no more work for you in this campaign.")
    if not _budget_left(campaign):
        raise NoWork("This campaign has reached its budget.")
    test = _qualification_test(campaign, worker, now)
    if test is not None:
        return test

    target = campaign.judgments_per_item
    hits = (
        Hit.objects.filter(campaign=campaign, qualification=False)
        .exclude(assignments__worker=worker)
        .annotate(live=Count("assignments", filter=Q(assignments__status__in=LIVE_STATUSES)))
        .filter(live__lt=target)
    )
    if campaign.separate_domains:
        today = now.date()
        domains = set(
            Assignment.objects.filter(hit__campaign=campaign, worker=worker, started__date=today).values_list(
                "hit__domain", flat=True
            )
        )
        if domains:
            hits = hits.filter(domain__in=domains)
    # Fill the HITs closest to complete first, so items reach their judgments sooner.
    for hit in hits.order_by("-live", "index")[:50]:
        used = set(Assignment.objects.filter(LIVE_ASSIGNMENT, hit=hit).values_list("slot", flat=True))
        for slot in range(target):
            if slot in used:
                continue
            try:
                with transaction.atomic():
                    return Assignment.objects.create(
                        hit=hit,
                        worker=worker,
                        slot=slot,
                        expires=now + timedelta(minutes=campaign.assignment_minutes),
                    )
            except IntegrityError:
                # Another worker took this slot a moment ago (or this worker this HIT): try the next.
                if Assignment.objects.filter(hit=hit, worker=worker).exists():
                    break
                continue
    raise NoWork("There are no more HITs for you in this campaign. Thank you!")


def _qualification_test(campaign: Campaign, worker: AbstractBaseUser, now: datetime) -> Assignment | None:
    """With a gold test in place: the worker's test assignment until they pass; NoWork if they failed."""
    from ranking.services.gold import gold_assignment, qualification_hit

    hit = qualification_hit(campaign)
    if hit is None:
        return None
    if gold_assignment(campaign) is None:
        raise NoWork("This campaign's qualification test is not ready yet.")
    record = WorkerRecord.objects.filter(campaign=campaign, worker=worker).first()
    if record is not None and record.qualified is not None:
        if record.qualified:
            return None
        raise NoWork("You did not pass this campaign's qualification test. Thank you for your time.")
    expires = now + timedelta(minutes=campaign.assignment_minutes)
    mine = Assignment.objects.filter(hit=hit, worker=worker).first()
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


def screen_submit(
    *,
    assignment: Assignment,
    screen: Screen,
    worker: AbstractBaseUser,
    answers: Mapping[int, CandidateScore],
    seconds: float | None = None,
    now: datetime | None = None,
) -> tuple[ScreenJudgment, bool]:
    """Save one screen of the worker's assignment; returns (judgment, created).

    A resubmission is a no-op (unique (screen, judge)); a screen of someone
    else's assignment, of another HIT, or of an expired or finished
    assignment is refused.
    """
    from ranking.services.traps import worker_record_refresh

    now = now or timezone.now()
    if assignment.worker_id != worker.pk:
        raise GecInputError("this is not your assignment")
    if screen.hit_id != assignment.hit_id:
        raise GecInputError("this screen is not part of your HIT")
    existing = ScreenJudgment.objects.filter(screen=screen, judge=worker).first()
    if existing is not None:
        return existing, False
    if assignment.status == AssignmentStatus.ACTIVE and assignment.expires < now:
        Assignment.objects.filter(pk=assignment.pk, status=AssignmentStatus.ACTIVE).update(
            status=AssignmentStatus.EXPIRED
        )
        raise GecInputError("your time for this HIT ran out; it went back to the pool")
    if assignment.status != AssignmentStatus.ACTIVE:
        raise GecInputError("this HIT is no longer open for you")
    campaign = screen.campaign
    if campaign.status == CampaignStatus.CLOSED:
        raise GecInputError("this campaign is closed")
    candidates = list(screen.candidates.all())
    validate_answers(campaign.protocol, candidates, answers)
    if seconds is not None and not 0 <= seconds < 86400:
        seconds = None
    trap_ids = set()
    if campaign.trap_system_id:
        trap_ids = set(
            screen.candidates.filter(outputs__system_id=campaign.trap_system_id).values_list("pk", flat=True)
        )
    passed = trap_outcome(campaign.protocol, screen.sentence.text, candidates, trap_ids, answers)
    with transaction.atomic():
        # Lock the assignment row: a concurrent submit of its last screens must see every judgment.
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status != AssignmentStatus.ACTIVE:
            raise GecInputError("this HIT is no longer open for you")
        try:
            with transaction.atomic():
                judgment = ScreenJudgment.objects.create(
                    screen=screen, assignment=locked, judge=worker, seconds=seconds, trap_passed=passed
                )
        except IntegrityError:  # a concurrent duplicate submit won the race
            return ScreenJudgment.objects.get(screen=screen, judge=worker), False
        Rating.objects.bulk_create(
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
        remaining = Screen.objects.filter(hit_id=locked.hit_id).exclude(judgments__judge=worker).exists()
        if not remaining:
            locked.status = AssignmentStatus.SUBMITTED
            locked.submitted = now
            locked.save(update_fields=["status", "submitted"])
        if passed is not None:
            worker_record_refresh(campaign=campaign, worker=worker)
        if not remaining and screen.hit.qualification and not locked.gold:
            from ranking.services.gold import qualification_grade

            qualification_grade(campaign=campaign, assignment=locked)
        if not remaining:
            from ranking.tasks import task_campaign_scores

            campaign_id = campaign.pk
            # robust: with the broker down the judgment is still saved; the periodic recompute repairs results.
            transaction.on_commit(lambda: task_campaign_scores.delay(campaign_id=campaign_id), robust=True)
    return judgment, True


def assignment_next_screen(assignment: Assignment) -> Screen | None:
    """The first screen of the HIT, in order, that the worker has not judged (drawn if it waits for
    active selection)."""
    screen = (
        Screen.objects.filter(hit_id=assignment.hit_id)
        .exclude(judgments__judge_id=assignment.worker_id)
        .select_related("sentence", "campaign")
        .order_by("hit_position")
        .first()
    )
    if screen is not None and screen.campaign.active_selection and not screen.candidates.exists():
        from ranking.services.campaigns import screen_draw_active

        screen = screen_draw_active(screen=screen)
    return screen


def assignment_progress(assignment: Assignment) -> tuple[int, int]:
    counts = Screen.objects.filter(hit_id=assignment.hit_id).aggregate(
        total=Count("id", distinct=True),
        done=Count("judgments", filter=Q(judgments__judge_id=assignment.worker_id), distinct=True),
    )
    return counts["done"], counts["total"]
