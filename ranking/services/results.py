"""Campaign results, recomputed from the valid judgments (``ranking.selectors.valid_judgment``):
re-runs are harmless."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from django.db import transaction
from django.utils import timezone

from annotate.tasking import task_send
from ranking.models import Campaign, ScoresDue, SystemScore
from ranking.protocols import protocol_get
from ranking.rankings import campaign_rankings  # noqa: F401  (re-exported: the live path's rankings)

# The task that runs campaign_scores_recompute, by name (services never import tasks.py: annotate.tasking).
TASK_CAMPAIGN_SCORES = "ranking.tasks.task_campaign_scores"
SCORES_DUE_STALE = timedelta(minutes=5)
"""A recompute sent this long ago and not started is taken for lost (a broker that took the message
and lost it: a Redis restart without persistence), and the next change sends another. Beat's repair
covers live campaigns; this covers a closed one whose held work the researcher releases later. A
duplicate of a task still queued only recomputes twice."""


def campaign_scores_send(campaign_id: int) -> None:
    """Send ``TASK_CAMPAIGN_SCORES`` once the current transaction commits, unless one sent earlier has
    not started yet (``ScoresDue``): that one reads this transaction's work too, since it deletes the
    row before it reads. A recompute of a large campaign takes seconds and a busy crowd finishes HITs
    faster (2,189 tasks were queued behind the crowd evidence in the bots benchmark of 2026-11-28):
    one task waiting per campaign keeps the queue short. Sent after the commit in its own statement,
    so the submit holds no lock for it."""
    transaction.on_commit(partial(_scores_send_now, campaign_id), robust=True)


def _scores_send_now(campaign_id: int) -> None:
    now = timezone.now()
    _due, send = ScoresDue.objects.get_or_create(campaign_id=campaign_id)
    if not send:  # one waits; unless it is stale, and this caller is the one that renews it
        send = ScoresDue.objects.filter(campaign_id=campaign_id, since__lt=now - SCORES_DUE_STALE).update(
            since=now
        )
    if send and not task_send(TASK_CAMPAIGN_SCORES, campaign_id=campaign_id):
        ScoresDue.objects.filter(campaign_id=campaign_id).delete()  # not sent: the next submit tries again


def campaign_scores_due_clear(campaign_id: int) -> None:
    """The task's first step, committed before it reads (its own statement, outside its transaction):
    a submit that commits from now on sends a task of its own, and one that committed before is read."""
    ScoresDue.objects.filter(campaign_id=campaign_id).delete()


@transaction.atomic
def campaign_scores_recompute(*, campaign_id: int) -> list[SystemScore]:
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    wanted = {s.pk: s for s in campaign.systems.all()}
    rows = protocol_get(campaign.protocol).live_scores(campaign, wanted)
    SystemScore.objects.filter(campaign=campaign).exclude(system_id__in=rows.keys()).delete()
    return [
        SystemScore.objects.update_or_create(campaign=campaign, system_id=system_id, defaults=values)[0]
        for system_id, values in rows.items()
    ]
