"""Celery tasks: ids in, load, call a service. Every task is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from ranking.models import LIVE_CAMPAIGN_STATUSES, Campaign
from ranking.services import assignments_expire, campaign_scores_recompute


@shared_task(name="ranking.tasks.task_campaign_scores")
def task_campaign_scores(*, campaign_id: int) -> int:
    """Recompute a campaign's per-system results; returns the number of systems scored."""
    if not Campaign.objects.filter(pk=campaign_id).exists():
        return 0
    return len(campaign_scores_recompute(campaign_id=campaign_id))


@shared_task(name="ranking.tasks.task_expire_assignments")
def task_expire_assignments() -> int:
    """Periodic (beat): unfinished HITs past their time return to the pool even when nobody asks for work."""
    return assignments_expire()


@shared_task(name="ranking.tasks.task_recompute_active_campaigns")
def task_recompute_active_campaigns() -> int:
    """Periodic safety net (beat): a submit whose enqueue was lost (broker down) is still counted."""
    ids = list(Campaign.objects.filter(status__in=LIVE_CAMPAIGN_STATUSES).values_list("id", flat=True))
    for campaign_id in ids:
        campaign_scores_recompute(campaign_id=campaign_id)
    return len(ids)
