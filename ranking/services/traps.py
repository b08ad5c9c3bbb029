"""Trap records per worker, and automatic exclusion (GMEG: Source+error rated below Source)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from annotate.tasking import task_send_on_commit
from geceval.errors import GecInputError
from ranking.models import (
    LIVE_ASSIGNMENT,
    Assignment,
    AssignmentStatus,
    Campaign,
    ScreenJudgment,
    WorkerOverride,
    WorkerRecord,
)
from ranking.services.results import TASK_CAMPAIGN_SCORES


def _should_exclude(campaign: Campaign, record: WorkerRecord) -> bool:
    if record.override == WorkerOverride.EXCLUDE:
        return True
    if record.override == WorkerOverride.INCLUDE:
        return False
    if record.traps_seen < campaign.trap_min_seen:
        return False
    return record.traps_passed / record.traps_seen < campaign.trap_threshold


@transaction.atomic
def worker_record_refresh(*, campaign: Campaign, worker: AbstractBaseUser) -> WorkerRecord:
    """Recount the worker's traps from their judgments and apply exclusion when it changes.

    An excluded worker's judgments are kept, but their assignments leave the
    live set, so results ignore them and their HITs return to the pool until
    each item again has its valid judgments.
    """
    record, _ = WorkerRecord.objects.select_for_update().get_or_create(campaign=campaign, worker=worker)
    counts = ScreenJudgment.objects.filter(
        screen__campaign=campaign, judge=worker, trap_passed__isnull=False
    ).aggregate(seen=Count("id"), passed=Count("id", filter=Q(trap_passed=True)))
    record.traps_seen, record.traps_passed = counts["seen"], counts["passed"]
    excluded = _should_exclude(campaign, record)
    changed = excluded != record.excluded
    record.excluded = excluded
    record.save()
    if changed:
        _apply_exclusion(campaign, worker, excluded)
    return record


def _apply_exclusion(campaign: Campaign, worker: AbstractBaseUser, excluded: bool) -> None:
    mine = Assignment.objects.filter(hit__campaign=campaign, worker=worker)
    if excluded:
        mine.filter(LIVE_ASSIGNMENT).update(status=AssignmentStatus.EXCLUDED)
    else:
        # Back in: a finished HIT counts again, an interrupted one resumes while time is left; each on a
        # slot above any in use, so no live slot clashes.
        now = timezone.now()
        for assignment in mine.filter(status=AssignmentStatus.EXCLUDED):
            if assignment.submitted is not None:
                assignment.status = AssignmentStatus.SUBMITTED
            elif assignment.expires > now:
                assignment.status = AssignmentStatus.ACTIVE
            else:
                assignment.status = AssignmentStatus.EXPIRED
                assignment.save(update_fields=["status"])
                continue
            top = Assignment.objects.filter(hit_id=assignment.hit_id).aggregate(m=Max("slot"))["m"] or 0
            assignment.slot = max(top + 1, campaign.judgments_per_item)
            assignment.save(update_fields=["slot", "status"])
    task_send_on_commit(TASK_CAMPAIGN_SCORES, campaign_id=campaign.pk)


def worker_override_set(*, campaign: Campaign, worker: AbstractBaseUser, override: str) -> WorkerRecord:
    """A researcher's decision on a worker: always include, always exclude, or automatic ("")."""
    if override not in WorkerOverride.values:
        raise GecInputError(f"unknown override {override!r}")
    with transaction.atomic():
        record, _ = WorkerRecord.objects.select_for_update().get_or_create(campaign=campaign, worker=worker)
        record.override = override
        record.save(update_fields=["override"])
        return worker_record_refresh(campaign=campaign, worker=worker)
