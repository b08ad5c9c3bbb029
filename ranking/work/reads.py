"""The reads every request of a working crowd makes (issue 22, "Load under noise"), one query each.

A claim, a screen and a submit each read the assignment with its HIT and campaign, the screen with
its sentence and candidates, and the next screen with the HIT's progress. These were plain SQL
statements whose rows became instances through a hand-made copy of the ORM's row handling, to save
about 1 ms of the web process's CPU per request; issue 38 measured the ORM again under the load
benchmark (``bench/load_workers.py``, figures in docs/benchmarks.md) and these are ordinary ORM
queries now. Nothing here decides anything: the services and the API do, with what these return.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import BooleanField, Count, Exists, OuterRef, Q, Subquery, Value, Window

from annotate.models import Project
from ranking.models import (
    LIVE_STATUSES,
    Assignment,
    AssignmentStatus,
    Campaign,
    Candidate,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
)
from ranking.statuses import IDENTITY_HOLDS, JUDGMENT_NOT_EVIDENCE


def assignment_with_campaign(*, worker_id: int, pk: int) -> Assignment | None:
    """The worker's assignment ``pk`` with its HIT and campaign loaded (``assignment.hit.campaign``
    needs no query): the workers' API's ``selectors.assignment_for_worker``."""
    return Assignment.objects.select_related("hit__campaign").filter(pk=pk, worker_id=worker_id).first()


def active_assignment(*, campaign_id: int, worker_id: int, now: datetime) -> Assignment | None:
    """The worker's active, not overdue assignment in the campaign, with its HIT loaded."""
    return (
        Assignment.objects.filter(
            hit__campaign_id=campaign_id,
            worker_id=worker_id,
            status=AssignmentStatus.ACTIVE,
            expires__gte=now,
        )
        .select_related("hit")
        .order_by("pk")
        .first()
    )


def claimable_hits(
    *,
    campaign_id: int,
    worker_id: int,
    target: int,
    hit_ids: list[int] | None = None,
    domains: set[str] | None = None,
    limit: int = 50,
) -> list[Hit]:
    """The campaign's HITs (qualification tests apart) the worker has never had, with fewer than
    ``target`` live assignments, fullest first then by index, each with ``live`` (its live
    assignments); only ``hit_ids`` (a pilot's) and only ``domains`` when given."""
    if (hit_ids is not None and not hit_ids) or (domains is not None and not domains):
        return []
    hits = Hit.objects.filter(campaign_id=campaign_id, qualification=False).exclude(
        Exists(Assignment.objects.filter(hit=OuterRef("pk"), worker_id=worker_id))
    )
    if hit_ids is not None:
        hits = hits.filter(pk__in=hit_ids)
    if domains:
        hits = hits.filter(domain__in=domains)
    live = Count("assignments", filter=Q(assignments__status__in=LIVE_STATUSES))
    return list(hits.annotate(live=live).filter(live__lt=target).order_by("-live", "index")[:limit])


def member_campaign(*, pk: int, user_id: int) -> Campaign | None:
    """Campaign ``pk`` if it belongs to a project the user owns or is a member of, whatever its
    status: ``selectors.campaign_member_list_for(user).filter(pk=pk).first()`` in one query (the
    caller checks the user is an annotator)."""
    member = Project.members.through.objects.filter(project_id=OuterRef("project_id"), user_id=user_id)
    return Campaign.objects.filter(Q(project__owner_id=user_id) | Exists(member), pk=pk).first()


def screen_of_hit(*, pk: int, hit_id: int) -> Screen | None:
    """Screen ``pk`` if it belongs to HIT ``hit_id``, with its sentence loaded."""
    return Screen.objects.select_related("sentence").filter(pk=pk, hit_id=hit_id).first()


def _shown(screen_id: int):
    return Candidate.objects.filter(screen_id=screen_id).only("pk", "position", "text").order_by("position")


def screen_candidates_marked(*, screen_id: int, trap_system_id: int | None) -> list[Candidate]:
    """The screen's candidates in display order with ``is_trap`` (stands for an output of the trap
    system): ``selectors.screen_candidates_for_submit`` in one query. For the server's checks only."""
    is_trap = (
        Exists(
            Candidate.outputs.through.objects.filter(
                candidate_id=OuterRef("pk"), output__system_id=trap_system_id
            )
        )
        if trap_system_id
        else Value(False, output_field=BooleanField())
    )
    return list(_shown(screen_id).annotate(is_trap=is_trap))


def screen_candidates_shown(screen_id: int) -> list[Candidate]:
    """Candidates in display order, id, position and text only: ``selectors.screen_candidates``."""
    return list(_shown(screen_id))


def first_unjudged_screen(*, hit_id: int, worker_id: int) -> tuple[Screen | None, int, int]:
    """(The HIT's first screen in order that the worker has not judged, with its sentence loaded, or
    None; the screens the worker has left in the HIT; the HIT's screens), in one query. Without
    an unjudged screen the counts are (0, 0): ask ``assignment_progress`` then."""
    total = (
        Screen.objects.filter(hit_id=hit_id).order_by().values("hit_id").annotate(n=Count("pk")).values("n")
    )
    screen = (
        Screen.objects.filter(hit_id=hit_id)
        .exclude(Exists(ScreenJudgment.objects.filter(screen=OuterRef("pk"), judge_id=worker_id)))
        .select_related("sentence")
        .annotate(left=Window(Count("pk")), total=Subquery(total))
        .order_by("hit_position")
        .first()
    )
    if screen is None:
        return None, 0, 0
    return screen, screen.left, screen.total


def screens_left(*, hit_id: int, worker_id: int) -> bool:
    """Whether the HIT has a screen the worker has not judged."""
    judged = ScreenJudgment.objects.filter(screen=OuterRef("pk"), judge_id=worker_id)
    return Screen.objects.filter(hit_id=hit_id).exclude(Exists(judged)).exists()


def hit_progress(*, hit_id: int, worker_id: int) -> tuple[int, int]:
    """(screens of the HIT the worker has judged, screens in the HIT): ``assignment_progress``."""
    counts = Screen.objects.filter(hit_id=hit_id).aggregate(
        total=Count("pk", distinct=True),
        done=Count("judgments__screen", filter=Q(judgments__judge_id=worker_id), distinct=True),
    )
    return counts["done"], counts["total"]


# ------------------------------------------------------------------ a worker's evidence (issue 17)
# Read after each submit that brings evidence (a trap's verdict, a repeat, a HIT's last screen).


def worker_trap_verdicts(*, campaign_id: int, worker_id: int) -> list[tuple[bool, int | None, int | None]]:
    """(passed, answer on the base, answer on the trap) of each of the worker's trap verdicts, from
    assignments that are their evidence (not ``ranking.statuses.JUDGMENT_NOT_EVIDENCE``)."""
    return list(
        ScreenJudgment.objects.filter(
            screen__campaign_id=campaign_id, judge_id=worker_id, trap_passed__isnull=False
        )
        .exclude(JUDGMENT_NOT_EVIDENCE)
        .order_by("pk")
        .values_list("trap_passed", "trap_base_answer", "trap_answer")
    )


def worker_ratings(*, campaign_id: int, worker_id: int, answer: str) -> list[tuple]:
    """(screen, control kind or None, control's original or None, position, text, answer) of every
    rating the worker gave in the campaign, qualification tests and assignments that are not their
    evidence aside, in the order they were saved.
    ``answer``: the Rating field the protocol's answers are in."""
    return list(
        Rating.objects.filter(judgment__judge_id=worker_id, judgment__screen__campaign_id=campaign_id)
        .exclude(judgment__screen__hit__qualification=True)
        .exclude(judgment__assignment__status=AssignmentStatus.DROPPED)
        .exclude(judgment__assignment__hold_reason__in=IDENTITY_HOLDS)
        .order_by("pk")
        .values_list(
            "judgment__screen_id",
            "judgment__screen__control__kind",
            "judgment__screen__control__original_id",
            "candidate__position",
            "candidate__text",
            answer,
        )
    )
