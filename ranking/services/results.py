"""Campaign results, recomputed from the valid judgments (``ranking.selectors.valid_judgment``):
re-runs are harmless."""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.db import transaction
from django.db.models import Avg, Count, Q

from geceval.judgments import expand_pairwise
from geceval.ranking import rank
from ranking.models import Campaign, Protocol, SystemScore
from ranking.rankings import campaign_rankings
from ranking.selectors import valid_ratings

# The task that runs campaign_scores_recompute, by name (services never import tasks.py: annotate.tasking).
TASK_CAMPAIGN_SCORES = "ranking.tasks.task_campaign_scores"


@transaction.atomic
def campaign_scores_recompute(*, campaign_id: int) -> list[SystemScore]:
    campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
    wanted = {s.pk: s for s in campaign.systems.all()}
    if campaign.protocol == Protocol.PRWS:
        rows = _prws_scores(campaign, wanted)
    else:
        rows = _ranking_scores(campaign, wanted)
    SystemScore.objects.filter(campaign=campaign).exclude(system_id__in=rows.keys()).delete()
    return [
        SystemScore.objects.update_or_create(campaign=campaign, system_id=system_id, defaults=values)[0]
        for system_id, values in rows.items()
    ]


def _prws_scores(campaign: Campaign, wanted: dict) -> dict[int, dict]:
    """GMEG: a system's score is the mean over sentences of the sentence's mean rating.

    A rating of a collapsed candidate counts for every system that produced its text.
    """
    rows = (
        valid_ratings(campaign)
        .filter(score__isnull=False)
        .values("candidate__outputs__system_id", "candidate__screen__sentence_id")
        .annotate(mean=Avg("score"), n=Count("id"), changed=Count("id", filter=Q(meaning_changed=True)))
    )
    per_system: dict[int, list[tuple[float, int, int]]] = defaultdict(list)
    for row in rows:
        if row["candidate__outputs__system_id"] in wanted:
            per_system[row["candidate__outputs__system_id"]].append((row["mean"], row["n"], row["changed"]))
    return {
        system_id: {
            "mean_score": sum(m for m, _, _ in segs) / len(segs),
            "ratings": sum(n for _, n, _ in segs),
            "items": len(segs),
            "meaning_changed": sum(c for _, _, c in segs),
            "rank_lo": None,
            "rank_hi": None,
            "cluster": None,
        }
        for system_id, segs in per_system.items()
    }


def _ranking_scores(campaign: Campaign, wanted: dict) -> dict[int, dict]:
    """TrueSkill as the papers ran it (geceval.ranking), on the pairwise expansion of the valid rankings."""
    rankings = campaign_rankings(campaign)
    pairs = expand_pairwise(rankings)
    if not pairs:
        return {}
    result = rank(pairs, runs=settings.RANKING_LIVE_RUNS, seed=campaign.seed)
    by_name = {s.name: pk for pk, s in wanted.items()}
    counts: dict[str, int] = defaultdict(int)
    items: dict[str, set[str]] = defaultdict(set)
    for p in pairs:
        for name in (p.sys1, p.sys2):
            counts[name] += 1
            items[name].add(p.item)
    return {
        by_name[s.name]: {
            "mean_score": s.mu,
            "ratings": counts[s.name],
            "items": len(items[s.name]),
            "meaning_changed": 0,
            "rank_lo": s.rank_range[0],
            "rank_hi": s.rank_range[1],
            "cluster": s.cluster,
        }
        for s in result.systems
        if s.name in by_name
    }
