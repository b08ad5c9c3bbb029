"""Builders shared by the hardening tests: a project with a PRWS campaign (with traps) and a rewrite campaign."""

from __future__ import annotations

from dataclasses import dataclass, field

from annotate.rewrites import services as rewrite_services
from ranking.services import campaign_create
from tests import factories
from tests.annotate.rewrite_fixtures import tokenized_corpus
from tests.test_judgment_campaigns import SOURCES, SYSTEMS, TRAPS


@dataclass
class World:
    researcher: object
    outsider: object  # a researcher of another project
    workers: list
    expert: object
    admin: object
    project: object
    corpus: object
    systems: dict
    campaign: object  # PRWS with traps
    rewrite_corpus: object
    rewrite_campaign: object
    extra: dict = field(default_factory=dict)


def build_world(
    *,
    n_workers: int = 3,
    judgments_per_item: int = 2,
    screens_per_hit: int = 3,
    name: str = "hardening",
    sources: list[str] | None = None,
    systems: dict[str, list[str]] | None = None,
    protocol: str = "prws",
) -> World:
    from django.contrib.auth import get_user_model

    researcher = factories.user("owner-res-q7", "researcher")
    outsider = factories.user("other-res-q7", "researcher")
    factories.project(outsider, name="Team B")
    workers = [factories.user(f"worker{i}-q7", "annotator") for i in range(n_workers)]
    expert = factories.user("expert-q7", "expert")
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "pw-for-tests-1")
    project = factories.project(researcher, members=[*workers, expert])
    sources = sources or SOURCES
    systems = systems or (SYSTEMS | {"trap": TRAPS})
    corpus, made = factories.corpus_with_systems(
        project, sources=sources, systems=systems, kinds={"src": "source", "trap": "source+error"}
    )
    by_name = {s.name: s for s in made}
    chosen = [by_name[n] for n in ("src", "a", "b") if n in by_name] or list(by_name.values())
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name=name,
        systems=chosen,
        created_by=researcher,
        protocol=protocol,
        trap_system=by_name.get("trap"),
        trap_rate=1.0 if "trap" in by_name else 0.0,
        judgments_per_item=judgments_per_item,
        screens_per_hit=screens_per_hit,
    )
    rewrite_corpus = tokenized_corpus(project)
    rewrite_campaign = rewrite_services.rewrite_campaign_create(
        project=project,
        corpus=rewrite_corpus,
        name=f"{name}-rw",
        created_by=researcher,
        rewrites_per_sentence=2,
    )
    return World(
        researcher=researcher,
        outsider=outsider,
        workers=workers,
        expert=expert,
        admin=admin,
        project=project,
        corpus=corpus,
        systems=by_name,
        campaign=campaign,
        rewrite_corpus=rewrite_corpus,
        rewrite_campaign=rewrite_campaign,
    )
