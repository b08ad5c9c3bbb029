"""Campaign results, recomputed from the valid judgments (``ranking.selectors.valid_judgment``):
re-runs are harmless."""

from __future__ import annotations

from django.db import transaction

from ranking.models import Campaign, SystemScore
from ranking.protocols import protocol_get
from ranking.rankings import campaign_rankings  # noqa: F401  (re-exported: the live path's rankings)

# The task that runs campaign_scores_recompute, by name (services never import tasks.py: annotate.tasking).
TASK_CAMPAIGN_SCORES = "ranking.tasks.task_campaign_scores"


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
