"""Reads for rewrite collection: who may work where, what a worker sees, campaign progress."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from enum import StrEnum
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.db.models.lookups import Exact
from django.utils import timezone

from annotate.models import (
    Project,
    Qualification,
    QualificationAttempt,
    QualificationStatus,
    Rewrite,
    RewriteCampaign,
    RewriteCampaignStatus,
    RewriteDraft,
    RewriteSlot,
    RewriteStatus,
    Role,
    Sentence,
)
from annotate.roles import is_researcher, user_roles
from annotate.selectors import corpus_references, project_ids_with_role, project_list_for


def claim_cutoff(now=None):
    """Claims older than this have been abandoned and go back to the pool."""
    return (now or timezone.now()) - timedelta(minutes=settings.ASSIGNMENT_TIMEOUT_MINUTES)


def qualification_granted(user: AbstractBaseUser, qualification: Qualification | None) -> bool:
    """True when an expert accepted this worker's qualification answers (None: nothing required)."""
    if qualification is None:
        return True
    if not user.is_authenticated:
        return False
    return QualificationAttempt.objects.filter(
        qualification=qualification, worker=user, status=QualificationStatus.ACCEPTED
    ).exists()


def qualification_attempt_for(
    user: AbstractBaseUser, qualification: Qualification
) -> QualificationAttempt | None:
    return QualificationAttempt.objects.filter(qualification=qualification, worker=user).first()


def qualification_list_for(user: AbstractBaseUser) -> QuerySet[Qualification]:
    return Qualification.objects.filter(project__in=project_list_for(user)).select_related("project")


def _member_projects(user: AbstractBaseUser) -> QuerySet[Project]:
    return Project.objects.filter(Q(members=user) | Q(owner=user))


def qualification_attempts_awaiting(user: AbstractBaseUser) -> QuerySet[QualificationAttempt]:
    """Submitted attempts this expert may decide: in the projects where they are an expert
    (``ProjectRole``; admins: all), never their own."""
    if not may_review(user):
        return QualificationAttempt.objects.none()
    attempts = QualificationAttempt.objects.filter(status=QualificationStatus.SUBMITTED).exclude(worker=user)
    if Role.ADMIN not in user_roles(user):
        attempts = attempts.filter(qualification__project__in=project_ids_with_role(user, Role.EXPERT))
    return attempts.select_related("qualification__project", "worker").order_by("submitted", "pk")


def qualifications_open_to(user: AbstractBaseUser) -> QuerySet[Qualification]:
    """Qualifications of the projects a worker belongs to, each with ``my_status`` (None: not taken)
    and ``my_retry`` from the worker's attempt; one query."""
    if not user.is_authenticated or not user_roles(user) & {Role.ANNOTATOR, Role.EXPERT}:
        return Qualification.objects.none()
    mine = QualificationAttempt.objects.filter(qualification=OuterRef("pk"), worker=user)
    return (
        Qualification.objects.filter(project__in=_member_projects(user))
        .annotate(
            my_status=Subquery(mine.values("status")[:1]), my_retry=Subquery(mine.values("retry_allowed")[:1])
        )
        .select_related("project")
        .order_by("project__name", "name")
    )


def qualification_review_queue(qualification: Qualification) -> QuerySet[QualificationAttempt]:
    return (
        QualificationAttempt.objects.filter(qualification=qualification)
        .select_related("worker", "reviewer")
        .prefetch_related("answers__sample__sentence")
        .order_by("status", "submitted")
    )


def rewrite_campaign_list_for(user: AbstractBaseUser) -> QuerySet[RewriteCampaign]:
    """Campaigns a researcher manages."""
    return (
        RewriteCampaign.objects.filter(project__in=project_list_for(user))
        .select_related("corpus", "project")
        .order_by("-created")
    )


def _member_campaigns(user: AbstractBaseUser) -> QuerySet[RewriteCampaign]:
    return RewriteCampaign.objects.filter(Q(project__members=user) | Q(project__owner=user)).distinct()


def worker_groups(campaign: RewriteCampaign, user: AbstractBaseUser) -> list[int]:
    """Ids of the campaign's allowed groups this user is in (all the user's groups when none are set)."""
    user_group_ids = set(user.groups.values_list("id", flat=True))
    allowed = {link.group_id for link in campaign.group_links.all()}
    return sorted(user_group_ids & allowed if allowed else user_group_ids)


class RefusalCode(StrEnum):
    LOGIN = "login"
    ROLE = "role"
    NOT_MEMBER = "not_member"
    INACTIVE = "inactive"
    GROUP = "group"
    QUALIFICATION = "qualification"


class Refusal(NamedTuple):
    """Why a user may not rewrite in a campaign: ``code`` for code to branch on, ``message`` to show."""

    code: RefusalCode
    message: str


def rewrite_campaign_refusal(campaign: RewriteCampaign, user: AbstractBaseUser) -> Refusal | None:
    """Why this user may not rewrite in this campaign, or None when they may."""
    if not user.is_authenticated:
        return Refusal(RefusalCode.LOGIN, "Log in first.")
    if not user_roles(user) & {Role.ANNOTATOR, Role.EXPERT}:
        return Refusal(RefusalCode.ROLE, "Only annotators and experts rewrite sentences.")
    if not _member_campaigns(user).filter(pk=campaign.pk).exists():
        return Refusal(RefusalCode.NOT_MEMBER, "You are not a member of this campaign's project.")
    if campaign.status != RewriteCampaignStatus.ACTIVE:
        return Refusal(RefusalCode.INACTIVE, "This campaign is not accepting rewrites at the moment.")
    if campaign.group_links.exists() and not worker_groups(campaign, user):
        return Refusal(RefusalCode.GROUP, "Your annotator group is not part of this campaign.")
    if not qualification_granted(user, campaign.qualification):
        return Refusal(
            RefusalCode.QUALIFICATION,
            f"This campaign needs the qualification “{campaign.qualification.name}” first.",
        )
    return None


def rewrite_work_list_for(user: AbstractBaseUser) -> list[RewriteCampaign]:
    """Active campaigns this worker may open; ``needs_qualification`` marks those gated by a test.

    Three queries whatever the number of campaigns (roles are cached on the user).
    """
    if not user.is_authenticated or not user_roles(user) & {Role.ANNOTATOR, Role.EXPERT}:
        return []
    campaigns = (
        _member_campaigns(user)
        .filter(status=RewriteCampaignStatus.ACTIVE)
        .select_related("corpus", "qualification")
        .prefetch_related("group_links")
        .annotate(**rewrite_progress_annotations(user))
        .order_by("-created")
    )
    user_group_ids = set(user.groups.values_list("id", flat=True))
    granted = set(
        QualificationAttempt.objects.filter(worker=user, status=QualificationStatus.ACCEPTED).values_list(
            "qualification_id", flat=True
        )
    )
    out = []
    for c in campaigns:
        allowed = {link.group_id for link in c.group_links.all()}
        if allowed and not allowed & user_group_ids:
            continue
        c.needs_qualification = c.qualification_id is not None and c.qualification_id not in granted
        out.append(c)
    return out


def review_campaign_list_for(user: AbstractBaseUser) -> QuerySet[RewriteCampaign]:
    """Campaigns with expert review in the projects where the user is an expert (``ProjectRole``;
    admins: all), and those with a rewrite far from its sentence awaiting review (reviewed whatever
    the campaign's setting)."""
    if not may_review(user):
        return RewriteCampaign.objects.none()
    far = Rewrite.objects.filter(far_from_sentence=True, status=RewriteStatus.SUBMITTED)
    campaigns = RewriteCampaign.objects.filter(Q(require_review=True) | Q(pk__in=far.values("campaign_id")))
    if Role.ADMIN not in user_roles(user):
        campaigns = campaigns.filter(project__in=project_ids_with_role(user, Role.EXPERT))
    return campaigns.select_related("corpus")


def may_review(user: AbstractBaseUser) -> bool:
    """Whether the nav offers review pages (the expert or admin group); which projects' work an
    expert reviews is ``may_review_in``."""
    return user.is_authenticated and bool(user_roles(user) & {Role.EXPERT, Role.ADMIN})


def may_review_in(user: AbstractBaseUser, project_id: int) -> bool:
    """An expert of this project (``ProjectRole``) or an admin; one query for a non-admin expert."""
    if not may_review(user):
        return False
    if Role.ADMIN in user_roles(user):
        return True
    return project_ids_with_role(user, Role.EXPERT).filter(project_id=project_id).exists()


def may_manage(user: AbstractBaseUser, campaign: RewriteCampaign | Qualification) -> bool:
    return is_researcher(user) and project_list_for(user).filter(pk=campaign.project_id).exists()


def draft_for(campaign: RewriteCampaign, sentence: Sentence, user: AbstractBaseUser) -> RewriteDraft | None:
    return RewriteDraft.objects.filter(campaign=campaign, sentence=sentence, annotator=user).first()


def _count(qs: QuerySet, key: str) -> Coalesce:
    return Coalesce(
        Subquery(
            qs.order_by().values(key).annotate(n=Count("pk")).values("n")[:1], output_field=IntegerField()
        ),
        0,
    )


def rewrite_progress_annotations(user: AbstractBaseUser) -> dict:
    """A worker's "N of M" on a campaign queryset: ``my_done`` rewrites and flags of ``sentence_total``
    (the sentences of ``rewrite_campaign_sentences``, counted in the same query)."""
    in_campaign = Sentence.objects.filter(
        Q(domain=OuterRef("domain")) | Q(Exact(OuterRef("domain"), Value(""))),
        corpus=OuterRef("corpus"),
        position__gte=Coalesce(OuterRef("first_position"), Value(-1)),
        position__lte=Coalesce(OuterRef("last_position"), Value(2**31 - 1)),
    )
    mine = Rewrite.objects.filter(campaign=OuterRef("pk"), annotator=user)
    return {"sentence_total": _count(in_campaign, "corpus"), "my_done": _count(mine, "campaign")}


def rewrite_progress(campaign: RewriteCampaign, user: AbstractBaseUser) -> tuple[int, int]:
    """(done, total) for one campaign, as ``rewrite_progress_annotations`` counts it."""
    row = RewriteCampaign.objects.filter(pk=campaign.pk).annotate(**rewrite_progress_annotations(user))
    return tuple(row.values_list("my_done", "sentence_total").get())


def my_rewrites(campaign: RewriteCampaign, user: AbstractBaseUser) -> QuerySet[Rewrite]:
    """A worker's own rewrites in a campaign (workers never see each other's)."""
    return Rewrite.objects.filter(campaign=campaign, annotator=user).select_related("sentence")


@dataclass
class GroupProgress:
    group: str
    sentences: int = 0
    done: int = 0
    in_progress: int = 0
    remaining: int = 0
    rewrites: int = 0
    target: int = 0

    @property
    def percent(self) -> int:
        return round(100 * self.rewrites / self.target) if self.target else 0


@dataclass
class CampaignProgress:
    groups: list[GroupProgress] = field(default_factory=list)
    sentences: int = 0
    done: int = 0
    rewrites: int = 0
    target: int = 0
    median_seconds: float | None = None
    cost: Decimal = Decimal(0)
    awaiting_review: int = 0
    rejected: int = 0
    flags: dict[str, int] = field(default_factory=dict)

    @property
    def percent(self) -> int:
        return round(100 * self.rewrites / self.target) if self.target else 0


def rewrite_campaign_progress(campaign: RewriteCampaign, *, now=None) -> CampaignProgress:
    """Per group: sentences whose slots are all filled (done), partly filled or claimed, untouched.

    Cost counts every rewrite that was not rejected (pay per sentence rewritten).
    """
    cutoff = claim_cutoff(now)
    per_group: dict[str, dict[int, list[int]]] = {}
    slots = RewriteSlot.objects.filter(campaign=campaign).values_list(
        "group__name", "sentence_id", "rewrite_id", "claimed_at"
    )
    all_sentences: dict[int, bool] = {}
    for group, sentence_id, rewrite_id, claimed_at in slots.iterator():
        state = per_group.setdefault(group or "any", {}).setdefault(sentence_id, [0, 0, 0])
        state[0] += 1
        if rewrite_id is not None:
            state[1] += 1
        elif claimed_at is not None and claimed_at >= cutoff:
            state[2] += 1
    progress = CampaignProgress()
    for name in sorted(per_group):
        g = GroupProgress(group=name)
        for sentence_id, (total, filled, live) in per_group[name].items():
            g.sentences += 1
            g.target += total
            g.rewrites += filled
            if filled == total:
                g.done += 1
            elif filled or live:
                g.in_progress += 1
            else:
                g.remaining += 1
            all_sentences[sentence_id] = all_sentences.get(sentence_id, True) and filled == total
        progress.groups.append(g)
        progress.target += g.target
        progress.rewrites += g.rewrites
    progress.sentences = len(all_sentences)
    progress.done = sum(all_sentences.values())
    rows = list(Rewrite.objects.filter(campaign=campaign).values_list("status", "seconds", "flag"))
    seconds = [s for _, s, _ in rows if s is not None]
    progress.median_seconds = statistics.median(seconds) if seconds else None
    paid = sum(1 for status, _, _ in rows if status != RewriteStatus.REJECTED)
    progress.cost = campaign.pay_per_sentence * paid
    progress.awaiting_review = sum(1 for status, _, _ in rows if status == RewriteStatus.SUBMITTED)
    progress.rejected = sum(1 for status, _, _ in rows if status == RewriteStatus.REJECTED)
    for _, _, flag in rows:
        if flag:
            progress.flags[flag] = progress.flags.get(flag, 0) + 1
    return progress


def rewrite_campaign_sentences(campaign: RewriteCampaign) -> QuerySet[Sentence]:
    """The campaign's subset of its corpus: optional domain and line range."""
    qs = Sentence.objects.filter(corpus=campaign.corpus)
    if campaign.domain:
        qs = qs.filter(domain=campaign.domain)
    if campaign.first_position is not None:
        qs = qs.filter(position__gte=campaign.first_position)
    if campaign.last_position is not None:
        qs = qs.filter(position__lte=campaign.last_position)
    return qs.order_by("position")


def sentence_references(sentence: Sentence) -> list[str]:
    """The texts of the corpus's reference systems for this sentence (qualification grading)."""
    return corpus_references(sentence.corpus_id, [sentence.pk]).get(sentence.pk, [])
