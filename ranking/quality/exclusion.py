"""Trap records and evidence per worker, and automatic exclusion by the rules the researcher chose
(issue 17: trap pass rate, Appraise's Mann-Whitney test, consistency on repeats, flat scoring)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Exists, Max, OuterRef, Q, QuerySet
from django.utils import timezone

from annotate.sql_rows import row
from annotate.tasking import task_send_on_commit
from geceval.errors import GecInputError
from geceval.human.worker_checks import RECENT, RECENT_TRAPS
from ranking.models import (
    LIVE_ASSIGNMENT,
    LIVE_CAMPAIGN_STATUSES,
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    HoldReason,
    ScreenJudgment,
    WorkerOverride,
    WorkerRecord,
)
from ranking.quality.evidence import (
    campaign_workers_with_judgments,
    crowd_evidence_kept,
    evidence_recount,
)
from ranking.quality.holds import hold_after_inclusion, pilot_evidence_clears, pilot_release
from ranking.quality.rules import RULE_FIELDS, record_exclusion_reasons
from ranking.services.results import campaign_scores_send
from ranking.statuses import EVIDENCE_HOLDS
from ranking.work.writes import row_update


def _should_exclude(campaign: Campaign, record: WorkerRecord) -> bool:
    if record.override == WorkerOverride.EXCLUDE:
        return True
    if record.override == WorkerOverride.INCLUDE:
        return False
    return bool(record_exclusion_reasons(campaign, record))


TASK_CROWD_EVIDENCE = "ranking.tasks.task_crowd_evidence"


@transaction.atomic
def worker_record_refresh(
    *, campaign: Campaign, worker: AbstractBaseUser, crowd: bool = True
) -> WorkerRecord:
    """Recount the worker's traps and evidence from their judgments and apply exclusion when it changes.

    An excluded worker's judgments are kept, but their assignments leave the
    live set, so results ignore them and their HITs return to the pool until
    each item again has its valid judgments.

    ``crowd=False`` (a submit, issue 38): only the worker's own evidence is recounted (traps, gold,
    speed, drift, Mann-Whitney, consistency, flat scoring); exclusion and holds follow from it and
    from the crowd evidence the record holds, and the crowd evidence (agreement, one person and its
    twins, agreement drift) is left to ``TASK_CROWD_EVIDENCE``, sent on commit when the record was
    not waiting for one already (``crowd_due``): a burst of submits sends one task. The task locks
    the row and recounts everything from the database, so a late or repeated one is harmless, and
    the periodic recompute catches up records whose task was lost (``crowd_evidence_overdue``).
    """
    record = row(WorkerRecord, campaign_id=campaign.pk, worker_id=worker.pk, for_update=True)
    if record is None:  # the worker's first evidence in the campaign (a concurrent first is handled)
        record, _ = WorkerRecord.objects.select_for_update().get_or_create(campaign=campaign, worker=worker)
    record.campaign = campaign
    held_before = bool(record.same_as or record.agreement_low or record.agreement_drift_from)
    reads_began = timezone.now()
    evidence_recount(record, crowd=crowd)
    if crowd:
        record.crowd_due, record.crowd_counted = None, reads_began
    elif record.crowd_due is None and crowd_evidence_kept(campaign):
        record.crowd_due = timezone.now()
        task_send_on_commit(TASK_CROWD_EVIDENCE, campaign_id=campaign.pk, worker_id=worker.pk)
    excluded = _should_exclude(campaign, record)
    changed = excluded != record.excluded
    record.excluded = excluded
    row_update(record)  # record.save() on the locked row, without building the UPDATE (issue 22)
    if changed or excluded:
        # an excluded worker's record is applied again: evidence found since (an agreement drift the
        # crowd task found after the traps excluded them) can move the start of a drift earlier
        _apply_exclusion(
            campaign, worker, excluded, since=_drift_only(campaign, record) if excluded else None
        )
    if record.pilot_doubt and pilot_evidence_clears(campaign, record):  # issue 40: the evidence clears
        pilot_release(campaign=campaign, record=record)
    # on a submit (``crowd=False``) the group is read only for a record that names a twin: a record
    # in a group through others' links alone is held by the crowd task the submit sends on commit
    group = same_person_group(campaign, record) if crowd or record.same_as else {record.worker_id}
    hold = _evidence_hold(record, group)
    if hold or held_before or len(group) > 1:
        _hold_apply(campaign, record, worker, hold)
    if crowd:
        _twins_refresh(campaign, record, group)
    return record


def crowd_evidence_refresh(*, campaign_id: int, worker_id: int) -> bool:
    """``TASK_CROWD_EVIDENCE``: the full refresh of a record waiting for its crowd evidence (with
    its holds, exclusion and twins). False, and nothing done, when the record is not waiting (a
    duplicate, or the periodic catch-up came first) or is gone.

    The worker's assignments in the campaign are locked first, then the record: the order a submit
    takes them (its assignment, then the record), so a hold or exclusion moving the worker's HITs
    never waits on a submit that waits on this record (a deadlock)."""
    with transaction.atomic():
        mine = Assignment.objects.filter(hit__campaign_id=campaign_id, worker_id=worker_id)
        list(mine.select_for_update(of=("self",)).order_by("pk").values_list("pk", flat=True))
        due = (
            WorkerRecord.objects.select_for_update(of=("self",))
            .filter(campaign_id=campaign_id, worker_id=worker_id, crowd_due__isnull=False)
            .select_related("campaign", "worker")
            .first()
        )
        if due is None:
            return False
        worker_record_refresh(campaign=due.campaign, worker=due.worker)
    return True


def crowd_evidence_overdue(*, older_than: timedelta = timedelta(0)) -> int:
    """The periodic catch-up (``task_recompute_active_campaigns``): every record whose crowd evidence
    has waited longer than ``older_than`` (its task lost with the broker down, or not run yet) is
    refreshed. Returns how many were."""
    due = WorkerRecord.objects.filter(crowd_due__lte=timezone.now() - older_than).order_by("crowd_due")
    return sum(
        crowd_evidence_refresh(campaign_id=c, worker_id=w)
        for c, w in due.values_list("campaign_id", "worker_id")
    )


REPAIR_LOOKBACK = timedelta(days=1)
"""How long after a record of a paused or closed campaign was last counted the periodic repair still
looks at the campaign (``repaired_campaigns``)."""


def repaired_campaigns() -> QuerySet[Campaign]:
    """The campaigns the periodic repair of the crowd evidence looks at: live ones, and paused or
    closed ones with a record counted within ``REPAIR_LOOKBACK``. Workers may finish the HITs they
    hold after a close (their judgments count), and a researcher may close a campaign as soon as its
    screens are filled, within beat's interval of the last judgments: a worker ahead of the crowd is
    then recounted against them all the same. A record of such a campaign is counted only by its
    worker's submits and by ``crowd_caught_up`` after others judged its screens, so a campaign that
    judgments no longer reach drops out of the repair a day after the last one."""
    recent = WorkerRecord.objects.filter(crowd_counted__gte=timezone.now() - REPAIR_LOOKBACK)
    return Campaign.objects.filter(
        Q(status__in=LIVE_CAMPAIGN_STATUSES)
        | Q(status__in=(CampaignStatus.PAUSED, CampaignStatus.CLOSED), pk__in=recent.values("campaign_id"))
    )


def drift_holds_reconsidered() -> int:
    """The periodic repair (``task_recompute_active_campaigns``): the crowd evidence of every worker
    of a live campaign held for drift over agreement is recounted. A record is otherwise recounted
    only on its worker's own submits, so a drift found when they stopped, against the few workers
    (and bots not caught yet) who had judged their latest screens by then, would stand after the
    crowd caught up: a careful worker ahead of the crowd stayed held in the benchmark's ranking run
    of 2026-11-28 (database gec_bd5). Recounted, the hold lifts when their latest screens agree with
    the crowd that judged them since, and stays when they do not. Live campaigns only: in a paused or
    closed one, ``crowd_caught_up`` recounts a held record once others have judged its screens since
    (recounting every hold each interval would keep such a campaign looked at for good: see
    ``repaired_campaigns``). Returns how many were recounted."""
    held = WorkerRecord.objects.filter(
        campaign__status__in=LIVE_CAMPAIGN_STATUSES,
        agreement_drift_from__isnull=False,
        excluded=False,
        override=WorkerOverride.NONE,
    )
    held.filter(crowd_due__isnull=True).update(crowd_due=timezone.now())
    return sum(
        crowd_evidence_refresh(campaign_id=c, worker_id=w)
        for c, w in held.order_by("pk").values_list("campaign_id", "worker_id")
    )


def crowd_caught_up(*, older_than: timedelta = timedelta(0)) -> int:
    """The periodic repair (``task_recompute_active_campaigns``): a record of a live campaign whose
    worker's screens other workers have judged since its crowd evidence was counted is recounted, by
    one ``TASK_CROWD_EVIDENCE`` each. A record is otherwise recounted on its worker's own submits, so
    a worker ahead of the crowd (the first to judge their screens, as a fast bot is) who stopped was
    judged against the few who had judged those screens by then, for good: in the benchmark's PRWS
    run of 2026-11-28 (bf1) 3 of 20 drifters kept their random work counted, and 18 of the 20 records
    flagged drift once recounted against the complete crowd. Excluded records are recounted too (a
    drift found since moves the start of their exclusion earlier); records already waiting for their
    task are left to it, and so are records counted within ``older_than`` (beat passes its interval):
    a worker still submitting is recounted by their submits, so the repair adds at most one count per
    interval to a record, and none once the screens it judged are filled. Paused and closed campaigns
    too, while judgments still reach them (``repaired_campaigns``). Returns how many were sent."""
    campaigns = [c for c in repaired_campaigns().only("pk", "protocol") if crowd_evidence_kept(c)]
    judged_since = (
        ScreenJudgment.objects.filter(
            screen__campaign_id=OuterRef("campaign_id"),
            screen__judgments__judge_id=OuterRef("worker_id"),
            created__gte=OuterRef("crowd_counted"),
        )
        .filter(Q(screen__hit__isnull=True) | Q(screen__hit__qualification=False))
        .exclude(judge_id=OuterRef("worker_id"))
    )
    stale = WorkerRecord.objects.filter(campaign__in=campaigns, crowd_due__isnull=True).filter(
        Q(crowd_counted__isnull=True)  # counted before the time was kept
        | (Q(crowd_counted__lt=timezone.now() - older_than) & Exists(judged_since))
    )
    with transaction.atomic():  # a record a submit holds is skipped: its own task is on its way
        due = list(
            stale.select_for_update(skip_locked=True)
            .order_by("pk")
            .values_list("pk", "campaign_id", "worker_id")
        )
        WorkerRecord.objects.filter(pk__in=[pk for pk, _, _ in due]).update(crowd_due=timezone.now())
        for _, campaign_id, worker_id in due:
            task_send_on_commit(TASK_CROWD_EVIDENCE, campaign_id=campaign_id, worker_id=worker_id)
    return len(due)


def same_person_group(campaign: Campaign, record: WorkerRecord) -> set[int]:
    """The worker ids of the record's group (issue 41): every account linked to it through pairs found
    alike (any record's ``same_as``, either way round), however far. One person who copies an answer
    to several accounts and changes one thing on each copy makes copies alike the first answer but
    not each other (two changes apart): the bench's ring-swapped on ranking counted two answers on 40
    screens while only pairs counted (docs/hardening.md). One query: the campaign's records that name
    a twin."""
    links = (
        WorkerRecord.objects.filter(campaign=campaign).exclude(same_as=[]).values_list("worker_id", "same_as")
    )
    edges: dict[int, set[int]] = {record.worker_id: set(record.same_as or ())}
    for worker_id, same_as in links:
        if worker_id == record.worker_id:
            continue  # this record's own links are the ones just counted, not the stored ones
        for other in same_as or ():
            edges.setdefault(worker_id, set()).add(other)
            edges.setdefault(other, set()).add(worker_id)
    for other in record.same_as or ():
        edges.setdefault(other, set()).add(record.worker_id)
    group, frontier = {record.worker_id}, [record.worker_id]
    while frontier:
        found = edges.get(frontier.pop(), set()) - group
        group |= found
        frontier.extend(found)
    return group


def _twins_refresh(campaign: Campaign, record: WorkerRecord, group: set[int]) -> None:
    """The rest of the group after a record's crowd evidence is counted (issue 41). A twin found now
    whose own record does not name this worker yet is refreshed (a record is otherwise refreshed only
    on its worker's submits, so an account of a ring that stopped working before the others had
    copied enough of its screens would keep counting); every other account of the group has its
    holds applied again as the group now stands (its first account may be another), without a
    recount. A record that is locked (submitting now) is skipped: its own refresh will find this
    worker."""
    if len(group) < 2:
        return
    for other in (
        WorkerRecord.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(campaign=campaign, worker_id__in=group - {record.worker_id})
        .select_related("worker")
    ):
        if other.worker_id in record.same_as and record.worker_id not in (other.same_as or ()):
            worker_record_refresh(campaign=campaign, worker=other.worker)
        else:
            _hold_apply(campaign, other, other.worker, _evidence_hold(other, group))


def _hold_apply(campaign: Campaign, record: WorkerRecord, worker: AbstractBaseUser, hold: str) -> None:
    """Hold the record's worker's HITs for ``hold`` (drift over agreement: from where it began), or
    release what the evidence held when ``hold`` is ""."""
    since = record.agreement_drift_from if hold == HoldReason.DISAGREES and not record.agreement_low else None
    _apply_evidence_hold(campaign, worker, hold, since=since)


def _evidence_hold(record: WorkerRecord, group: set[int]) -> str:
    """Why the worker's finished HITs are held by their record (issue 41; "": they are not): while
    the researcher has not decided (an override) and no rule excluded the worker. Of accounts alike
    beyond chance (``group``: ``same_person_group``), every one but the first is held, so the group's
    work counts as one worker's."""
    if record.override or record.excluded:
        return ""
    # one person behind many accounts counts once: the group's first account (lowest id) keeps counting
    if min(group) < record.worker_id:
        return HoldReason.SAME_PERSON
    return HoldReason.DISAGREES if record.agreement_low or record.agreement_drift_from else ""


def _apply_evidence_hold(
    campaign: Campaign, worker: AbstractBaseUser, reason: str, since: datetime | None = None
) -> None:
    """Hold the worker's counted HITs for ``reason`` (a HIT they finish later is held at the refresh
    its last screen brings), or release those held by earlier evidence when ``reason`` is "".
    ``since``: hold only the HITs finished from then on (drift over agreement); earlier ones count."""
    mine = Assignment.objects.filter(hit__campaign=campaign, worker=worker, hit__qualification=False)
    by_evidence = mine.filter(status=AssignmentStatus.HELD, hold_reason__in=EVIDENCE_HOLDS)
    moved = 0
    if reason and since is not None:
        moved = by_evidence.filter(submitted__lt=since).update(
            status=AssignmentStatus.SUBMITTED, hold_reason=HoldReason.NONE
        )
        mine, by_evidence = mine.filter(submitted__gte=since), by_evidence.filter(submitted__gte=since)
    if reason:  # one UPDATE: the counted HITs, and those held by other evidence
        moved += (
            mine.filter(
                Q(status=AssignmentStatus.SUBMITTED)
                | Q(status=AssignmentStatus.HELD, hold_reason__in=EVIDENCE_HOLDS)
            )
            .exclude(status=AssignmentStatus.HELD, hold_reason=reason)
            .update(status=AssignmentStatus.HELD, hold_reason=reason)
        )
    else:
        moved = by_evidence.update(status=AssignmentStatus.SUBMITTED, hold_reason=HoldReason.NONE)
    if moved:
        campaign_scores_send(campaign.pk)


def _drift_only(campaign: Campaign, record: WorkerRecord) -> datetime | None:
    """When drift alone (over traps, over agreement or both) excludes the worker (issue 41): the time
    from which their work is removed, the earliest start of a drift the record holds.

    A drift over agreement counts here even when agreement is not one of the campaign's exclusion
    rules: its hold already kept that work out, and an exclusion, which lifts the holds, must not let
    more of the worker's work count than the hold did (the benchmark's drifters on ranking,
    2026-11-28: excluded from their traps' failing stretch, the HITs between the two starts were
    released and counted). For the same reason a worker whose whole record agrees far below the
    others (held whole) loses all their work (None)."""
    reasons = record_exclusion_reasons(campaign, record)
    if record.override or not reasons or not set(reasons) <= set(RECENT) or record.agreement_low:
        return None
    starts = [record.agreement_drift_from]
    if RECENT_TRAPS in reasons:
        starts.append(record.drift_from)
    return min(s for s in starts if s is not None)


def _apply_exclusion(
    campaign: Campaign, worker: AbstractBaseUser, excluded: bool, since: datetime | None = None
) -> None:
    """``since``: exclude only the HITs with work from then on (not finished before it), so the HITs
    judged before a drift keep counting and the later ones return to the pool."""
    mine = Assignment.objects.filter(hit__campaign=campaign, worker=worker)
    if excluded:
        live = mine.filter(LIVE_ASSIGNMENT)
        if since is not None:
            live = live.filter(Q(submitted__isnull=True) | Q(submitted__gte=since))
        if not live.update(status=AssignmentStatus.EXCLUDED):
            return  # already applied: the results do not change
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
    campaign_scores_send(campaign.pk)


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
    scoring is judged in campaigns without traps too). None, and no query, otherwise. The worker's
    own evidence only: the crowd's goes to a task on commit (issue 38: out of the web process)."""
    if not (evidence or hit_finished):
        return None
    return worker_record_refresh(campaign=campaign, worker=worker, crowd=False)


def campaign_exclusion_rules_set(
    *,
    campaign: Campaign,
    pass_rate: bool,
    mann_whitney: bool,
    consistency: bool,
    flat: bool,
    agreement: bool = False,
) -> int:
    """The researcher's choice of which evidence excludes; every worker's record is refreshed under the
    new rules (some are excluded, some come back). Returns the number of workers now excluded."""
    chosen = {
        "pass_rate": pass_rate,
        "mann_whitney": mann_whitney,
        "consistency": consistency,
        "flat": flat,
        "agreement": agreement,
    }
    with transaction.atomic():
        for rule, value in chosen.items():
            setattr(campaign, RULE_FIELDS[rule], bool(value))
        campaign.save(update_fields=list(RULE_FIELDS.values()))
        records = [
            worker_record_refresh(campaign=campaign, worker=w)
            for w in campaign_workers_with_judgments(campaign)
        ]
    return sum(r.excluded for r in records)
