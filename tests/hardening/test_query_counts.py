"""Query counts (issue 9): every page and API list takes as many queries with 3 items as with 1.

One world is measured, then grown from 1 to 3 of everything a page lists (projects, corpora,
systems, judgment and rewrite campaigns, workers with finished HITs, rewrites, qualification
attempts, analysis runs) and measured again, for every route each role may open. Each URL is
fetched twice and the second fetch counted, so a GET that claims work (a HIT, a rewrite slot) is
measured in its steady state. A difference is an N+1: the failure names the route.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotate.rewrites import qualifications as quals
from annotate.rewrites import services as rw
from annotate.services import SentenceRecord, corpus_create, outputs_import_lines
from ranking.analysis.models import AnalysisRun
from ranking.services import campaign_create, campaign_scores_recompute
from tests import factories
from tests.hardening.matrixworld import matrix_world, params_for
from tests.hardening.test_permissions import expected
from tests.hardening.urlmap import url_for, walk_routes
from tests.judging import do_hit, honest_prws

pytestmark = pytest.mark.django_db

ROLES = ("worker", "expert", "researcher")
# Pages whose count legitimately depends on the data, with why (none today).
DATA_DEPENDENT: dict[str, str] = {}


def grow(world, i: int) -> None:
    """Add one more of every listed thing (call with i = 1, 2 to go from 1 to 3)."""
    sources = [s.text for s in world.corpus.sentences.order_by("position")]
    project = factories.project(world.researcher, name=f"extra project {i}", members=[world.workers[0]])
    corpus_create(project=project, name=f"extra {i}", sentences=[SentenceRecord(text=s) for s in sources[:2]])
    corpus_create(
        project=world.project, name=f"more {i}", sentences=[SentenceRecord(text=s) for s in sources[:2]]
    )
    system = outputs_import_lines(
        corpus=world.corpus, system_name=f"extra{i}", kind="model", lines=sources, filename=f"extra{i}"
    )
    campaign_create(
        project=world.project,
        corpus=world.corpus,
        name=f"extra campaign {i}",
        systems=[world.systems["a"], system],
        created_by=world.researcher,
        judgments_per_item=1,
    )
    rw.rewrite_campaign_create(
        project=world.project,
        corpus=world.rewrite_corpus,
        name=f"extra rewrites {i}",
        created_by=world.researcher,
        rewrites_per_sentence=1,
        require_review=True,
    )
    worker = factories.user(f"grown{i}", "annotator")
    world.project.members.add(worker)
    do_hit(world.campaign, worker, honest_prws)
    slot = rw.slot_claim(campaign=world.rewrite_campaign, user=worker)
    if slot is not None:
        rw.rewrite_submit(
            campaign=world.rewrite_campaign,
            user=worker,
            sentence=slot.sentence,
            text=slot.sentence.text + " x",
        )
    quals.qualification_start(qualification=world.extra["qualification"], worker=worker)
    AnalysisRun.objects.create(campaign=world.campaign, kind="prws_summary", created_by=world.researcher)
    campaign_scores_recompute(campaign_id=world.campaign.pk)


def measure(world, role: str) -> dict[str, int]:
    user = {"worker": world.workers[0], "expert": world.expert, "researcher": world.researcher}[role]
    client = Client()
    client.force_login(user)
    api = APIClient()
    api.force_login(user)
    values = params_for(world)
    table = expected()
    counts = {}
    for route in walk_routes():
        if route.name in ("logout", "api-docs", "schema") or table[route.name][role][0] != 200:
            continue
        url = url_for(route, values)
        agent = api if route.name.startswith("api:") else client
        agent.get(url)
        with CaptureQueriesContext(connection) as ctx:
            response = agent.get(url)
            if getattr(response, "streaming", False):
                b"".join(response.streaming_content)
        counts[route.name] = len(ctx.captured_queries)
    return counts


@pytest.mark.parametrize("role", ROLES)
def test_every_page_and_api_list_takes_the_same_queries_with_one_or_three_items(role):
    world = matrix_world()
    do_hit(world.campaign, world.workers[1], honest_prws)
    campaign_scores_recompute(campaign_id=world.campaign.pk)
    one = measure(world, role)
    grow(world, 1)
    grow(world, 2)
    three = measure(world, role)
    assert set(one) == set(three)
    grew = {
        name: (one[name], three[name])
        for name in one
        if one[name] != three[name] and name not in DATA_DEPENDENT
    }
    assert grew == {}, "queries (1 item, 3 items) per route: an N+1"
    assert len(one) >= 5
