"""Celery tasks for the crowd layer: ids in, a client from the environment, one service. Safe to run twice."""

from __future__ import annotations

from celery import shared_task

from crowd.models import MturkHit
from crowd.services import mturk, prolific
from crowd.services.confirmation import held_sessions_confirm
from geceval.errors import GecInputError
from ranking.models import Campaign


@shared_task(name="crowd.tasks.task_mturk_sync")
def task_mturk_sync(*, campaign_id: int) -> int:
    """Store the state of a campaign's MTurk assignments (ListAssignmentsForHIT); returns how many."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or not MturkHit.objects.filter(campaign=campaign).exists():
        return 0
    return mturk.mturk_assignments_sync(client=mturk.mturk_client(), campaign=campaign)


@shared_task(name="crowd.tasks.task_mturk_sync_open")
def task_mturk_sync_open() -> int:
    """Periodic (beat, optional): sync every campaign with unexpired MTurk HITs; returns campaigns synced."""
    ids = sorted(set(MturkHit.objects.filter(expired=False).values_list("campaign_id", flat=True)))
    for campaign_id in ids:
        task_mturk_sync(campaign_id=campaign_id)
    return len(ids)


@shared_task(name="crowd.tasks.task_confirm_held")
def task_confirm_held() -> dict:
    """Periodic (beat): ask MTurk and Prolific about every session whose finished HITs are held for
    their confirmation; release or drop them (crowd.services.confirmation). A platform without
    credentials in the environment is skipped."""
    clients = {}
    for name, make in (("mturk_client", mturk.mturk_client), ("prolific_client", prolific.prolific_client)):
        try:
            clients[name] = make()
        except GecInputError:
            clients[name] = None
    return held_sessions_confirm(**clients)
