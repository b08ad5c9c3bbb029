"""Trap records and evidence per worker, and automatic exclusion by the rules the researcher chose
(issue 17: trap pass rate, Appraise's Mann-Whitney test, consistency on repeats, flat scoring)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotate.sql_rows import row
from annotate.tasking import task_send_on_commit
from geceval.errors import GecInputError
from ranking.evidence import RULE_FIELDS, record_exclusion_reasons
from ranking.models import (
    LIVE_ASSIGNMENT,
    Assignment,
    AssignmentStatus,
    Campaign,
    WorkerOverride,
    WorkerRecord,
)
from ranking.services.evidence import campaign_workers_with_judgments, evidence_recount
from ranking.services.holds import hold_after_inclusion, pilot_evidence_clears, pilot_release
from ranking.services.results import TASK_CAMPAIGN_SCORES
from ranking.work_writes import row_update


def _should_exclude(campaign: Campaign, record: WorkerRecord) -> bool:
    if record.override == WorkerOverride.EXCLUDE:
        return True
    if record.override == WorkerOverride.INCLUDE:
        return False
    return bool(record_exclusion_reasons(campaign, record))


@transaction.atomic
def worker_record_refresh(*, campaign: Campaign, worker: AbstractBaseUser) -> WorkerRecord:
    """Recount the worker's traps and evidence from their judgments and apply exclusion when it changes.

    An excluded worker's judgments are kept, but their assignments leave the
    live set, so results ignore them and their HITs return to the pool until
    each item again has its valid judgments.
    """
    record = row(WorkerRecord, campaign_id=campaign.pk, worker_id=worker.pk, for_update=True)
    if record is None:  # the worker's first evidence in the campaign (a concurrent first is handled)
        record, _ = WorkerRecord.objects.select_for_update().get_or_create(campaign=campaign, worker=worker)
    record.campaign = campaign
    evidence_recount(record)
    excluded = _should_exclude(campaign, record)
    changed = excluded != record.excluded
    record.excluded = excluded
    row_update(record)  # record.save() on the locked row, without building the UPDATE (issue 22)
    if changed:
        _apply_exclusion(campaign, worker, excluded)
    if record.pilot_doubt and pilot_evidence_clears(campaign, record):  # issue 40: the evidence clears
        pilot_release(campaign=campaign, record=record)
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
            if assignment.submitted is not None:  # finished: counted, or held again for its reason
                assignment.hold_reason = hold_after_inclusion(assignment, campaign)
                assignment.status = (
                    AssignmentStatus.HELD if assignment.hold_reason else AssignmentStatus.SUBMITTED
                )
            elif assignment.expires > now:
                assignment.status = AssignmentStatus.ACTIVE
            else:
                assignment.status = AssignmentStatus.EXPIRED
                assignment.save(update_fields=["status"])
                continue
            top = Assignment.objects.filter(hit_id=assignment.hit_id).aggregate(m=Max("slot"))["m"] or 0
            assignment.slot = max(top + 1, campaign.judgments_per_item)
            assignment.save(update_fields=["slot", "status", "hold_reason"])
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


def worker_record_refresh_after_submit(
    *, campaign: Campaign, worker: AbstractBaseUser, evidence: bool, hit_finished: bool
) -> WorkerRecord | None:
    """Inside the submit's transaction: refresh the worker's record when the judgment brought
    ``evidence`` (it completed a trap or a repeat: ``controls_judged``) or finished the HIT (so flat
    scoring is judged in campaigns without traps too). None, and no query, otherwise."""
    if not (evidence or hit_finished):
        return None
    return worker_record_refresh(campaign=campaign, worker=worker)


def campaign_exclusion_rules_set(
    *, campaign: Campaign, pass_rate: bool, mann_whitney: bool, consistency: bool, flat: bool
) -> int:
    """The researcher's choice of which evidence excludes; every worker's record is refreshed under the
    new rules (some are excluded, some come back). Returns the number of workers now excluded."""
    chosen = {"pass_rate": pass_rate, "mann_whitney": mann_whitney, "consistency": consistency, "flat": flat}
    with transaction.atomic():
        for rule, value in chosen.items():
            setattr(campaign, RULE_FIELDS[rule], bool(value))
        campaign.save(update_fields=list(RULE_FIELDS.values()))
        records = [
            worker_record_refresh(campaign=campaign, worker=w)
            for w in campaign_workers_with_judgments(campaign)
        ]
    return sum(r.excluded for r in records)
