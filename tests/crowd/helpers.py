"""Builders for crowd tests: a small ranking campaign (2 HITs of 2 screens) with crowd settings."""

from __future__ import annotations

from decimal import Decimal

from crowd.models import CrowdSettings
from ranking.services import campaign_create
from tests import factories

SOURCES = ["He go home .", "She like cats .", "They was late .", "I has a dog ."]
SYSTEMS = {
    "a": ["He goes home .", "She likes cats .", "They were late .", "I have a dog ."],
    "b": ["He went home .", "She liked cats .", "They are late .", "I had a dog ."],
    "src": SOURCES,
}


def crowd_campaign(*, protocol="ranking", judgments_per_item=2, hits_per_visit=1, reward="0.50", **crowd):
    researcher = factories.user("res", "researcher", password="res-pass-123")
    project = factories.project(researcher)
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="crowd study",
        systems=systems,
        created_by=researcher,
        protocol=protocol,
        judgments_per_item=judgments_per_item,
        max_candidates=3,
        screens_per_hit=2,
        reward_per_hit=Decimal(reward),
        instructions="Rank the corrections from best (1) to worst.",
    )
    CrowdSettings.objects.create(
        campaign=campaign,
        consent_text="We store your answers without your name.",
        completion_code="C0DE-42",
        prolific_completed_code="PROLIFIC-OK",
        prolific_screened_out_code="PROLIFIC-OUT",
        hits_per_visit=hits_per_visit,
        **crowd,
    )
    return researcher, project, campaign


def rank_form(response) -> dict:
    """Answers for the ranking screen in a response: rank by display position, screen id, timer."""
    context = response.context
    data = {"screen": str(context["screen"].pk), "started": context["started"]}
    for i, c in enumerate(context["candidates"]):
        data[f"rank-{c.position}"] = str(i + 1)
    return data
