"""Reads of the crowd layer: payments and costs of a campaign, its links, sessions and audit log."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.db.models import QuerySet

from crowd.models import Bonus, CrowdSession, CrowdWorker, InviteLink, MturkHit, PlatformCall, Review
from crowd.services.sessions import crowd_settings_for
from ranking.models import Assignment, AssignmentStatus, Campaign, ScreenJudgment

CENT = Decimal("0.01")


def _money(value: Decimal) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def min_hourly_wage(campaign: Campaign) -> Decimal:
    """The campaign's minimum wage, else settings CROWD_MIN_HOURLY_WAGE (default 7.25, US federal)."""
    own = crowd_settings_for(campaign).min_hourly_wage
    return Decimal(str(own if own is not None else settings.CROWD_MIN_HOURLY_WAGE))


@dataclass
class WorkerPay:
    worker_id: int
    identity: str
    platform: str
    hits: int
    rejected: int
    seconds: float
    earnings: Decimal
    bonuses: Decimal

    @property
    def hours(self) -> float:
        return self.seconds / 3600


@dataclass
class CampaignCosts:
    reward_per_hit: Decimal
    fee_percent: Decimal
    hits_submitted: int
    hits_rejected: int
    hits_total: int
    rewards: Decimal
    bonuses: Decimal
    fees: Decimal
    spent: Decimal
    projected: Decimal
    budget: Decimal | None
    median_seconds: float | None
    hourly: Decimal | None
    min_wage: Decimal
    workers: list[WorkerPay] = field(default_factory=list)

    @property
    def below_min_wage(self) -> bool:
        return self.hourly is not None and self.hourly < self.min_wage


def _work_seconds(campaign: Campaign) -> dict[int, float]:
    """Per submitted assignment: the sum of its screens' measured times, else submitted - started."""
    sums: dict[int, float] = defaultdict(float)
    complete: dict[int, bool] = defaultdict(lambda: True)
    for assignment_id, seconds in ScreenJudgment.objects.filter(
        assignment__hit__campaign=campaign, assignment__status=AssignmentStatus.SUBMITTED
    ).values_list("assignment_id", "seconds"):
        if seconds is None:
            complete[assignment_id] = False
        else:
            sums[assignment_id] += seconds
    out = {}
    for pk, started, submitted in Assignment.objects.filter(
        hit__campaign=campaign, status=AssignmentStatus.SUBMITTED
    ).values_list("pk", "started", "submitted"):
        if pk in sums and complete[pk]:
            out[pk] = sums[pk]
        elif submitted and started and submitted > started:
            out[pk] = (submitted - started).total_seconds()
    return out


def campaign_costs(campaign: Campaign) -> CampaignCosts:
    """Reward per HIT, bonuses, platform fee, spend so far and projected, per-worker pay.

    Paid HITs = submitted assignments not rejected in a review. Spend = (paid
    rewards + bonuses) * (1 + fee). Projected = every slot of every HIT paid
    (HITs x judgments per item x reward) plus the bonuses so far, with the fee.
    Hourly pay = reward / median time per HIT (measured screen times).
    """
    crowd = crowd_settings_for(campaign)
    fee = Decimal(crowd.fee_percent or 0) / 100
    reward = Decimal(campaign.reward_per_hit or 0)
    rows = list(
        Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED).values_list(
            "pk", "worker_id"
        )
    )
    rejected_ids = set(
        Review.objects.filter(assignment__hit__campaign=campaign, approved=False).values_list(
            "assignment_id", flat=True
        )
    )
    seconds = _work_seconds(campaign)
    bonus_by_user: dict[int, Decimal] = defaultdict(Decimal)
    for user_id, amount in Bonus.objects.filter(campaign=campaign).values_list("worker__user_id", "amount"):
        bonus_by_user[user_id] += amount
    workers = _workers_pay(rows, rejected_ids, seconds, bonus_by_user, reward)
    paid = len(rows) - len(rejected_ids & {pk for pk, _ in rows})
    bonuses = sum(bonus_by_user.values(), Decimal(0))
    rewards = paid * reward
    total = campaign.hits.count() * campaign.judgments_per_item
    median = statistics.median(seconds.values()) if seconds else None
    hourly = _money(reward * 3600 / Decimal(str(median))) if median else None
    return CampaignCosts(
        reward_per_hit=_money(reward),
        fee_percent=Decimal(crowd.fee_percent or 0),
        hits_submitted=len(rows),
        hits_rejected=len(rows) - paid,
        hits_total=total,
        rewards=_money(rewards),
        bonuses=_money(bonuses),
        fees=_money((rewards + bonuses) * fee),
        spent=_money((rewards + bonuses) * (1 + fee)),
        projected=_money((total * reward + bonuses) * (1 + fee)),
        budget=campaign.budget,
        median_seconds=median,
        hourly=hourly,
        min_wage=min_hourly_wage(campaign),
        workers=workers,
    )


def _workers_pay(
    rows: list[tuple[int, int]],
    rejected_ids: set[int],
    seconds: dict[int, float],
    bonus_by_user: dict[int, Decimal],
    reward: Decimal,
) -> list[WorkerPay]:
    """Per worker (with submitted assignments or bonuses): paid and rejected HITs, time, earnings."""
    identities: dict[int, CrowdWorker] = {}
    user_ids = {w for _, w in rows} | set(bonus_by_user)
    for cw in CrowdWorker.objects.filter(user_id__in=user_ids).select_related("user").order_by("-created"):
        identities[cw.user_id] = cw
    per: dict[int, dict] = defaultdict(lambda: {"hits": 0, "rejected": 0, "seconds": 0.0})
    for pk, worker in rows:
        p = per[worker]
        if pk in rejected_ids:
            p["rejected"] += 1
        else:
            p["hits"] += 1
        p["seconds"] += seconds.get(pk, 0.0)
    for user_id in bonus_by_user:
        per[user_id]
    from django.contrib.auth import get_user_model

    names = dict(get_user_model().objects.filter(pk__in=per.keys()).values_list("pk", "username"))
    workers = []
    for user_id, p in per.items():
        cw = identities.get(user_id)
        bonus = bonus_by_user.get(user_id, Decimal(0))
        workers.append(
            WorkerPay(
                worker_id=user_id,
                identity=cw.external_id if cw else names.get(user_id, str(user_id)),
                platform=cw.platform if cw else "",
                hits=p["hits"],
                rejected=p["rejected"],
                seconds=p["seconds"],
                earnings=_money(p["hits"] * reward + bonus),
                bonuses=_money(bonus),
            )
        )
    workers.sort(key=lambda w: (w.platform, w.identity))
    return workers


def invite_links(campaign: Campaign) -> QuerySet[InviteLink]:
    return InviteLink.objects.filter(campaign=campaign).select_related("worker").order_by("-id")


def mturk_hits(campaign: Campaign) -> QuerySet[MturkHit]:
    return MturkHit.objects.filter(campaign=campaign).order_by("-created")


def platform_calls(campaign: Campaign, limit: int = 50) -> QuerySet[PlatformCall]:
    return PlatformCall.objects.filter(campaign=campaign).order_by("-created")[:limit]


def platform_session(campaign: Campaign, platform: str, external_session: str) -> CrowdSession | None:
    """The crowd session a platform id (MTurk assignmentId, Prolific submission id) came through."""
    return (
        CrowdSession.objects.filter(campaign=campaign, platform=platform, external_session=external_session)
        .select_related("worker")
        .first()
    )
