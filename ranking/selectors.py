"""Reads for systems, campaigns and results, scoped to what a user may see."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Prefetch, Q, QuerySet

from annotate.models import Role
from annotate.selectors import project_list_for
from ranking.models import Campaign, CampaignStatus, Candidate, Screen, System, SystemScore


def system_list_for(user: AbstractBaseUser) -> QuerySet[System]:
    return (
        System.objects.filter(corpus__project__in=project_list_for(user))
        .select_related("corpus")
        .annotate(output_count=Count("outputs"))
        .order_by("corpus_id", "name")
    )


def campaign_list_for(user: AbstractBaseUser) -> QuerySet[Campaign]:
    return (
        Campaign.objects.filter(project__in=project_list_for(user))
        .select_related("project", "corpus")
        .prefetch_related(Prefetch("systems", queryset=System.objects.order_by("name")))
        .annotate(
            screen_count=Count("screens", distinct=True),
            judgment_count=Count("screens__judgments", distinct=True),
        )
        .order_by("-created")
    )


def campaign_work_list_for(user: AbstractBaseUser) -> QuerySet[Campaign]:
    """Active campaigns an annotator may work on: those of projects they belong to."""
    if not user.is_authenticated or not user.groups.filter(name__in=[Role.ANNOTATOR, Role.EXPERT]).exists():
        return Campaign.objects.none()
    return (
        Campaign.objects.filter(status=CampaignStatus.ACTIVE)
        .filter(Q(project__members=user) | Q(project__owner=user))
        .distinct()
        .select_related("corpus")
        .order_by("-created")
    )


def campaign_results(campaign: Campaign) -> QuerySet[SystemScore]:
    return (
        SystemScore.objects.filter(campaign=campaign)
        .select_related("system")
        .order_by("-mean_score", "system__name")
    )


def campaign_progress(campaign: Campaign) -> dict[str, int]:
    screens = Screen.objects.filter(campaign=campaign).annotate(n=Count("judgments"))
    target = campaign.judgments_per_item
    total = done = judgments = 0
    for n in screens.values_list("n", flat=True):
        total += 1
        judgments += n
        done += n >= target
    return {
        "screens": total,
        "screens_done": done,
        "judgments": judgments,
        "judgments_needed": total * target,
        "percent": round(100 * judgments / (total * target)) if total else 0,
    }


def screen_candidates(screen: Screen) -> list[Candidate]:
    """Candidates in display order; nothing about which systems (or traps) they stand for."""
    return list(Candidate.objects.filter(screen=screen).order_by("position").only("id", "position", "text"))
