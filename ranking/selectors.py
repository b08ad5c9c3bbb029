"""Reads for systems, campaigns, HITs and results, scoped to what a user may see."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotate.models import System
from annotate.roles import is_annotator
from annotate.selectors import project_list_for
from geceval.human.crowd_evidence import fence
from geceval.human.worker_checks import Rules, exclusion_reasons, pass_line
from geceval.traps.hidden import ADDED_CORRECTION, ADDED_ERROR, UNDONE_CORRECTION
from ranking.models import (
    LIVE_CAMPAIGN_STATUSES,
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Candidate,
    Hit,
    ImportedEntry,
    Rating,
    Screen,
    ScreenJudgment,
    SystemScore,
    WorkerRecord,
)
from ranking.quality.rules import campaign_rules, record_evidence
from ranking.statuses import EVIDENCE_HOLDS
from ranking.work.reads import screen_candidates_marked, screen_candidates_shown


def valid_judgment(prefix: str = "") -> Q:
    """The one rule of a valid judgment, as a filter on ``ScreenJudgment`` reached through ``prefix``
    (``"judgment__"`` from a ``Rating``, ``"screens__judgments__"`` from a ``Campaign``).

    Valid: its assignment is submitted, i.e. finished, neither expired nor returned, not held (awaiting
    the platform's confirmation or finished too fast, ``ranking.quality.holds``) and not excluded
    (an excluded worker's assignments leave ``submitted``; a researcher's "include" override puts them
    back), it is not on a qualification HIT (neither the expert's gold answers nor a worker's test), and
    it is not on a control screen (a hidden trap's or a repeat's copy: it tests the worker; its
    original screen carries the judgment). A paper-design trap candidate stands for the trap system, never one of the campaign's systems, so every reader
    drops its ratings where it maps candidates to the campaign's systems."""
    return Q(
        **{
            f"{prefix}assignment__status": AssignmentStatus.SUBMITTED,
            f"{prefix}screen__hit__qualification": False,
            f"{prefix}screen__control__isnull": True,
        }
    )


def valid_judgments(campaign: Campaign) -> QuerySet[ScreenJudgment]:
    """The campaign's valid judgments (``valid_judgment``): what results, analyses and exports count."""
    return ScreenJudgment.objects.filter(valid_judgment(), screen__campaign=campaign)


def campaign_left_out(campaign: Campaign) -> dict[str, int]:
    """Judged screens the exports and results leave out, by their assignment's status (issue 40: an
    edit-level JSONL of 0 bytes after 3 judged screens said nothing of why): ``active`` (a HIT not
    finished yet), ``held``, ``excluded``, and ``other`` (expired, returned or dropped HITs). Only
    screens that would count once finished: qualification tests and control copies never do."""
    rows = (
        ScreenJudgment.objects.filter(
            screen__campaign=campaign, screen__hit__qualification=False, screen__control__isnull=True
        )
        .exclude(assignment__status=AssignmentStatus.SUBMITTED)
        .order_by()
        .values_list("assignment__status")
        .annotate(n=Count("pk"))
    )
    left = {"active": 0, "held": 0, "excluded": 0, "other": 0}
    for status, n in rows:
        left[status if status in left else "other"] += n
    return left


def valid_ratings(campaign: Campaign) -> QuerySet[Rating]:
    """The ratings of the campaign's valid judgments."""
    return Rating.objects.filter(valid_judgment("judgment__"), judgment__screen__campaign=campaign)


def campaign_list_for(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """The user's campaigns with their screens and valid judgments counted, each by a subquery of
    its own (no join of every screen and judgment under a GROUP BY). A compact imported campaign
    has no screens: its judgments are numbered 0..n-1, and the (campaign, judgment) index finds its
    last."""
    screens = Screen.objects.filter(campaign=OuterRef("pk")).order_by().values("campaign")
    judgments = (
        ScreenJudgment.objects.filter(valid_judgment(), screen__campaign=OuterRef("pk"))
        .order_by()
        .values("screen__campaign")
    )
    last_imported = (
        ImportedEntry.objects.filter(campaign=OuterRef("pk")).order_by("-judgment").values("judgment")[:1]
    )
    return (
        Campaign.objects.filter(project__in=project_list_for(user))
        .select_related("project", "corpus", "preview_sentence")
        .prefetch_related(Prefetch("systems", queryset=System.objects.order_by("name")))
        .annotate(
            screen_count=_subquery_count(screens),
            judgment_count=_subquery_count(judgments)
            + Coalesce(Subquery(last_imported, output_field=IntegerField()), -1)
            + 1,
        )
        .order_by("-created")
    )


def _subquery_count(rows: QuerySet) -> Coalesce:
    """COUNT(*) of ``rows`` (grouped by the outer row's key, as ``values(...)`` made them), 0 for none."""
    counted = rows.annotate(n=Count("pk", distinct=True)).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def campaign_member_list_for(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """Campaigns of the annotator's projects whatever their status: asking one for work says why
    there is none (a draft, paused or closed campaign) instead of a bare 404."""
    if not is_annotator(user):
        return Campaign.objects.none()
    return Campaign.objects.filter(Q(project__members=user) | Q(project__owner=user)).distinct()


def campaign_work_list_for(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """Active campaigns an annotator may work on: those of projects they belong to."""
    if not is_annotator(user):  # annotator or expert; the roles are read once per request and cached
        return Campaign.objects.none()
    return (
        Campaign.objects.filter(status__in=[*LIVE_CAMPAIGN_STATUSES, CampaignStatus.PAUSED])
        .filter(Q(project__members=user) | Q(project__owner=user))
        .distinct()
        .select_related("corpus")
        .order_by("-created")
    )


def campaign_work_progress_for(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """``campaign_work_list_for`` with the worker's "N of M": ``my_screens`` judged of ``screen_total``
    (the campaign's screens outside its qualification test), one query for the whole list."""

    def count_of(qs: QuerySet) -> Subquery:
        return Subquery(qs.order_by().values("n")[:1], output_field=IntegerField())

    screens = Screen.objects.filter(campaign=OuterRef("pk"), hit__qualification=False)
    mine = ScreenJudgment.objects.filter(
        screen__campaign=OuterRef("pk"), screen__hit__qualification=False, judge=user
    )
    return campaign_work_list_for(user).annotate(
        screen_total=Coalesce(count_of(screens.values("campaign").annotate(n=Count("pk"))), 0),
        my_screens=Coalesce(count_of(mine.values("screen__campaign").annotate(n=Count("pk"))), 0),
    )


def campaign_held_assignments(campaign: Campaign) -> QuerySet[Assignment]:
    """The campaign's held and dropped assignments (newest first), with their worker and HIT: what
    the campaign page lists with why, and release and drop buttons for the held ones."""
    return (
        Assignment.objects.filter(
            hit__campaign=campaign, status__in=[AssignmentStatus.HELD, AssignmentStatus.DROPPED]
        )
        .select_related("worker", "hit")
        .annotate(screens=Count("judgments"))
        .order_by("-status", "-submitted", "-pk")
    )


def campaign_results(campaign: Campaign) -> QuerySet[SystemScore]:
    return (
        SystemScore.objects.filter(campaign=campaign)
        .select_related("system")
        .order_by("-mean_score", "system__name")
    )


def campaign_progress(campaign: Campaign) -> dict[str, int | float]:
    """Items with their valid judgments, against ``judgments_per_item`` per screen (HIT-level slots).
    Held assignments (``ranking.quality.holds``) keep their slots but are not judgments yet."""
    target = campaign.judgments_per_item
    hits = Hit.objects.filter(campaign=campaign, qualification=False).annotate(
        n_screens=Count("screens", distinct=True),
        valid=Count("assignments", filter=Q(assignments__status=AssignmentStatus.SUBMITTED), distinct=True),
        active=Count("assignments", filter=Q(assignments__status=AssignmentStatus.ACTIVE), distinct=True),
        held=Count("assignments", filter=Q(assignments__status=AssignmentStatus.HELD), distinct=True),
    )
    screens = done = judgments = active = held = 0
    for hit in hits:
        screens += hit.n_screens
        done += hit.n_screens if hit.valid >= target else 0
        judgments += hit.n_screens * min(hit.valid, target)
        active += hit.active
        held += hit.held
    recent = ScreenJudgment.objects.filter(
        screen__campaign=campaign,
        screen__hit__qualification=False,
        created__gte=timezone.now() - timedelta(hours=1),
    ).count()
    needed = screens * target
    return {
        "screens": screens,
        "screens_done": done,
        "judgments": judgments,
        "judgments_needed": needed,
        "percent": round(100 * judgments / needed) if needed else 0,
        "active_assignments": active,
        "held_assignments": held,
        "judgments_last_hour": recent,
        "hits": len(hits),
    }


@dataclass
class WorkerRow:
    worker_id: int
    username: str
    screens: int
    median_seconds: float | None
    too_fast: int
    traps_seen: int
    traps_passed: int
    pass_rate: float | None
    excluded: bool
    override: str
    qualified: bool | None
    gold_agreement: float | None
    no_server_time: int = 0
    mann_whitney_p: float | None = None
    repeats_seen: int = 0
    repeat_distance: float | None = None
    inconsistent: bool = False
    flat_reason: str = ""
    score_spread: float | None = None
    position_rho: float | None = None
    pilot_doubt: str = ""
    """Why the pilot check holds the worker's HITs (issue 40; "" : it does not)."""
    gold_seen: int = 0
    gold_passed: int = 0
    """Of the trap verdicts, copies of the researcher's gold screens seen and answered as expected."""
    drift_from: datetime | None = None
    """When the recent traps began to fail while the total passes (issue 41)."""
    trap_kinds: tuple[tuple[str, int, int], ...] = ()
    """Per kind of hidden trap met, in words: (kind, seen, passed) (issue 41)."""
    kind_failed: str = ""
    """The kind of trap, in words, of which the worker failed every one (at least 4; 3 added
    corrections), or ""."""
    agreement: float | None = None
    agreement_screens: int = 0
    agreement_low: bool = False
    agreement_family: int = 0
    """Other accounts answering much like this one (r 0.7 or more, and 0.3 above its agreement with
    everyone), left out of the crowd its agreement is measured against."""
    agreement_vouches: bool = False
    """The crowd vouches for the worker (agreement at least half the median worker's and 0.25, not
    drifting, no twin)."""
    pass_line: float | None = None
    """The pass rate under which the pass-rate rule excludes this worker: the campaign's threshold,
    ``VOUCH_MARGIN`` lower when the crowd vouches for them."""
    agreement_fence: float | None = None
    agreement_drift_from: datetime | None = None
    """When the recent screens began to agree far below the others while the total does not."""
    """The campaign's line under which a worker's agreement is far below the others' (None: too few)."""
    same_as: tuple[str, ...] = ()
    """Usernames of the workers whose answers are alike this one's beyond chance (one person?)."""
    held: int = 0
    """Finished HITs held by the record's evidence (disagreement, one person)."""
    reasons: tuple[str, ...] = ()
    """The campaign's chosen rules the worker breaks (why they are excluded, the override aside)."""

    @property
    def suspicious_time(self) -> int:
        """Screens too fast or without a server time (a missing or forged stamp)."""
        return self.too_fast + self.no_server_time


def campaign_pilot_held_count(campaign: Campaign) -> int:
    """Workers whose HITs the pilot check holds now (issue 40)."""
    return WorkerRecord.objects.filter(campaign=campaign).exclude(pilot_doubt="").count()


def campaign_worker_list(campaign: Campaign) -> QuerySet:
    """The campaign's workers (a judgment or a trap record) as ``(pk, username)`` by username: what
    the workers table pages and searches in the database before any row is built."""
    judged = ScreenJudgment.objects.filter(screen__campaign=campaign).values("judge_id")
    recorded = WorkerRecord.objects.filter(campaign=campaign).values("worker_id")
    return (
        get_user_model()
        .objects.filter(Q(pk__in=judged) | Q(pk__in=recorded))
        .order_by("username", "pk")
        .values_list("pk", "username")
    )


def campaign_worker_rows(campaign: Campaign, workers: Iterable[tuple[int, str]]) -> list[WorkerRow]:
    """Per worker of ``workers`` (``(pk, username)``, in their order): screens judged, median server
    time, too-fast screens and screens without a server time, trap record, evidence (Appraise's test,
    consistency, flat scoring), exclusion. Two queries, reading only these workers' judgments."""
    workers = list(workers)
    ids = [pk for pk, _ in workers]
    times: dict[int, list[float]] = {pk: [] for pk in ids}
    untimed: dict[int, int] = {}
    fast: dict[int, int] = {}
    judged = ScreenJudgment.objects.filter(screen__campaign=campaign, judge_id__in=ids)
    for judge_id, seconds, minimum in judged.values_list("judge_id", "seconds", "min_seconds"):
        if seconds is not None:
            times[judge_id].append(seconds)
        else:
            untimed[judge_id] = untimed.get(judge_id, 0) + 1
        # under the speed rule each screen has its own minimum; else the campaign's flat one flags
        if seconds is not None and seconds < (campaign.min_seconds if minimum is None else minimum):
            fast[judge_id] = fast.get(judge_id, 0) + 1
    records = {r.worker_id: r for r in WorkerRecord.objects.filter(campaign=campaign, worker_id__in=ids)}
    crowd = _crowd_figures(campaign, list(records.values()))
    rules = campaign_rules(campaign)
    rows = []
    for worker_id, username in workers:
        seconds = times[worker_id]
        record = records.get(worker_id)
        rows.append(
            WorkerRow(
                worker_id=worker_id,
                username=username,
                screens=len(seconds) + untimed.get(worker_id, 0),
                median_seconds=statistics.median(seconds) if seconds else None,
                too_fast=fast.get(worker_id, 0),
                traps_seen=record.traps_seen if record else 0,
                traps_passed=record.traps_passed if record else 0,
                pass_rate=record.pass_rate if record else None,
                excluded=record.excluded if record else False,
                override=record.override if record else "",
                qualified=record.qualified if record else None,
                gold_agreement=record.gold_agreement if record else None,
                no_server_time=untimed.get(worker_id, 0),
                **_evidence(rules, record),
                **crowd.get(worker_id, {}),
            )
        )
    return rows


def campaign_workers(campaign: Campaign) -> list[WorkerRow]:
    """Every worker's row, by username (the page builds only the rows of the page it shows)."""
    return campaign_worker_rows(campaign, campaign_worker_list(campaign))


_EVIDENCE_FIELDS = (
    "mann_whitney_p",
    "repeats_seen",
    "repeat_distance",
    "inconsistent",
    "flat_reason",
    "score_spread",
    "position_rho",
    "pilot_doubt",
    "drift_from",
    "gold_seen",
    "gold_passed",
    "agreement_vouches",
)


def _crowd_figures(campaign: Campaign, records: list[WorkerRecord]) -> dict[int, dict]:
    """Per worker id, the crowd evidence as the table shows it (issue 41): the campaign's fence, the
    names of the workers alike, HITs held. Nothing, and no query, when no record has any."""
    if not any(r.agreement is not None or r.same_as for r in records):
        return {}
    figures = WorkerRecord.objects.filter(campaign=campaign, excluded=False, agreement__isnull=False)
    line = fence(list(figures.values_list("agreement", flat=True)))
    twins = {pk for r in records for pk in r.same_as}
    names = dict(get_user_model().objects.filter(pk__in=twins).values_list("pk", "username")) if twins else {}
    held = dict(
        Assignment.objects.filter(
            hit__campaign=campaign,
            worker_id__in=[r.worker_id for r in records],
            status=AssignmentStatus.HELD,
            hold_reason__in=EVIDENCE_HOLDS,
        )
        .values_list("worker_id")
        .annotate(n=Count("pk"))
        .values_list("worker_id", "n")
    )
    return {
        r.worker_id: {
            "agreement": r.agreement,
            "agreement_screens": r.agreement_screens,
            "agreement_family": r.agreement_family,
            "agreement_low": r.agreement_low,
            "agreement_fence": line,
            "agreement_drift_from": r.agreement_drift_from,
            "same_as": tuple(sorted(names.get(pk, str(pk)) for pk in r.same_as)),
            "held": held.get(r.worker_id, 0),
        }
        for r in records
    }


TRAP_KIND_WORDS = {
    ADDED_ERROR: "added errors",
    UNDONE_CORRECTION: "undone corrections",
    ADDED_CORRECTION: "added corrections",
}
"""A hidden trap's kind as the workers table names it."""


def _evidence(rules: Rules, record: WorkerRecord | None) -> dict:
    """The record's evidence for its row, under the campaign's ``rules`` (read once for the table):
    the core's ``Evidence`` built once and read for the reasons, the pass line and the failed kind."""
    if record is None:
        return {}
    fields = {name: getattr(record, name) for name in _EVIDENCE_FIELDS}
    evidence = record_evidence(record)
    kinds, failed = record.trap_kinds, evidence.kind_failed
    return fields | {
        "reasons": tuple(exclusion_reasons(evidence, rules)),
        "pass_line": pass_line(evidence, rules),
        "trap_kinds": tuple(
            (words, *kinds[kind]) for kind, words in TRAP_KIND_WORDS.items() if kind in kinds
        ),
        "kind_failed": TRAP_KIND_WORDS.get(failed, failed),
    }


def screen_candidates(screen: Screen) -> list[Candidate]:
    """Candidates in display order; nothing about which systems (or traps) they stand for."""
    return screen_candidates_shown(screen.pk)


def screen_candidates_for_submit(screen: Screen, campaign: Campaign) -> list[Candidate]:
    """The screen's candidates in display order, each with ``is_trap`` (it stands for an output of the
    campaign's trap system): one query. For checking a submission on the server only, never for a page:
    nothing rendered may tell a trap apart."""
    return screen_candidates_marked(screen_id=screen.pk, trap_system_id=campaign.trap_system_id)


def assignment_for_worker(worker: AbstractBaseUser, pk: int) -> Assignment | None:
    """With its HIT, campaign, the campaign's reference system and corpus (how its text is shown):
    what a worker's page or the workers' API shows of it."""
    return (
        Assignment.objects.filter(pk=pk, worker=worker)
        .select_related("hit__campaign__reference", "hit__campaign__corpus")
        .first()
    )
