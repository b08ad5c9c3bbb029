"""Celery tasks: ids in, load, call a service. Every task is safe to run twice."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from ranking.models import LIVE_CAMPAIGN_STATUSES, Campaign
from ranking.services import (
    assignments_expire,
    campaign_scores_due_clear,
    campaign_scores_recompute,
    crowd_caught_up,
    crowd_evidence_overdue,
    crowd_evidence_refresh,
    drift_holds_reconsidered,
)


@shared_task(name="ranking.tasks.task_campaign_scores")
def task_campaign_scores(*, campaign_id: int) -> int:
    """Recompute a campaign's per-system results; returns the number of systems scored."""
    campaign_scores_due_clear(campaign_id)
    if not Campaign.objects.filter(pk=campaign_id).exists():
        return 0
    return len(campaign_scores_recompute(campaign_id=campaign_id))


@shared_task(name="ranking.tasks.task_crowd_evidence")
def task_crowd_evidence(*, campaign_id: int, worker_id: int) -> bool:
    """A worker's evidence from the rest of the crowd, sent on commit by their submit (issue 38):
    agreement, one person behind many accounts, agreement drift and the holds that follow. False
    when the record was not waiting for it (a duplicate: nothing done)."""
    return crowd_evidence_refresh(campaign_id=campaign_id, worker_id=worker_id)


@shared_task(name="ranking.tasks.task_expire_assignments")
def task_expire_assignments() -> int:
    """Periodic (beat): unfinished HITs past their time return to the pool even when nobody asks for work."""
    return assignments_expire()


@shared_task(name="ranking.tasks.task_recompute_active_campaigns")
def task_recompute_active_campaigns() -> int:
    """Periodic safety net (beat): a submit whose enqueue was lost (broker down) is still counted, and
    its worker's crowd evidence recounted (records waiting for it over a minute: their task was lost,
    or the queue is long; one still queued finds the record done and does nothing), and the holds
    for drift over agreement reconsidered against the crowd that has judged since; then every record
    counted over an interval ago whose worker's screens others have judged since is sent to be
    recounted."""
    crowd_evidence_overdue(older_than=timedelta(minutes=1))
    drift_holds_reconsidered()
    crowd_caught_up(older_than=timedelta(seconds=settings.CELERY_REPAIR_SECONDS))
    ids = list(Campaign.objects.filter(status__in=LIVE_CAMPAIGN_STATUSES).values_list("id", flat=True))
    for campaign_id in ids:
        campaign_scores_due_clear(campaign_id)  # a task lost with the broker down sent nothing since
        campaign_scores_recompute(campaign_id=campaign_id)
    return len(ids)
