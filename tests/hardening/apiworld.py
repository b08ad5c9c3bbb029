"""The world the API fuzzer (test_api_fuzz.py) runs against: `build_world` plus what the API can show.

A researcher's project with a PRWS campaign (traps, judgments by two workers, campaign scores), a
relative-ranking campaign, an edit-level campaign (its screens list edits, its answers take labels),
a reference system, finished analysis runs of three kinds, and a worker
with an assignment in each campaign (the PRWS one at its last screen, so a valid submit finishes the
HIT and starts the score update). Every role has a DRF token; ``ids`` lists the real objects the
fuzzer substitutes into generated path parameters and bodies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rest_framework.authtoken.models import Token

from annotate.services import outputs_import_lines
from ranking.analysis import services as analysis
from ranking.analysis.models import RunStatus
from ranking.models import Screen
from ranking.services import assignment_request, campaign_create, screen_submit
from ranking.work.assignments import assignment_next_screen
from tests.factories import SYSTEMS, World, build_world
from tests.judging import do_hit, honest_prws

ROLES = ("anonymous", "worker", "researcher", "other_researcher")


@dataclass
class ApiWorld:
    world: World
    tokens: dict[str, str]
    ids: dict[str, list[int]] = field(default_factory=dict)
    screens: dict[int, list[int]] = field(default_factory=dict)  # assignment id -> its HIT's screen ids
    outputs: dict[int, int] = field(default_factory=dict)  # screen id -> outputs shown on it

    def headers(self, role: str) -> dict[str, str]:
        token = self.tokens.get(role)
        return {"Authorization": f"Token {token}"} if token else {}


def _done_run(campaign, researcher, kind: str, **parameters):
    run = analysis.analysis_run_create(
        campaign=campaign, kind=kind, parameters=parameters, seed=1, created_by=researcher
    )
    analysis.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return run


def build_api_world() -> ApiWorld:
    world = build_world(n_workers=3, judgments_per_item=2, screens_per_hit=3, name="fuzzed")
    researcher, worker = world.researcher, world.workers[0]
    reference = outputs_import_lines(
        corpus=world.corpus, system_name="ref", kind="reference", lines=SYSTEMS["a"], filename="ref"
    )
    ranking = campaign_create(
        project=world.project,
        corpus=world.corpus,
        name="fuzzed-ranking",
        systems=[world.systems[n] for n in ("a", "b", "c")],
        created_by=researcher,
        protocol="ranking",
        max_candidates=3,
        judgments_per_item=2,
        screens_per_hit=3,
    )
    edits = campaign_create(
        project=world.project,
        corpus=world.corpus,
        name="fuzzed-edits",
        systems=[world.systems[n] for n in ("a", "b", "c")],
        created_by=researcher,
        protocol="edits",
        max_candidates=3,
        judgments_per_item=2,
        screens_per_hit=3,
    )
    for other in world.workers[1:]:
        do_hit(world.campaign, other, honest_prws)

    prws_assignment = assignment_request(campaign=world.campaign, worker=worker)
    while (screen := assignment_next_screen(prws_assignment)) is not None and Screen.objects.filter(
        hit_id=prws_assignment.hit_id, hit_position__gt=screen.hit_position
    ).exists():
        answers = {c.pk: honest_prws(screen, c) for c in screen.candidates.all()}
        screen_submit(assignment=prws_assignment, screen=screen, worker=worker, answers=answers, seconds=7.0)
    ranking_assignment = assignment_request(campaign=ranking, worker=worker)
    edits_assignment = assignment_request(campaign=edits, worker=worker)

    runs = [
        _done_run(world.campaign, researcher, "trueskill", runs=20, chunks=2),
        _done_run(world.campaign, researcher, "prws_summary", samples=20),
        _done_run(world.campaign, researcher, "metric_scores", metrics=["gleu"]),
    ]
    roles = {"worker": worker, "researcher": researcher, "other_researcher": world.outsider}
    tokens = {role: Token.objects.create(user=user).key for role, user in roles.items()}
    assignments = [prws_assignment, ranking_assignment, edits_assignment]
    return ApiWorld(
        world=world,
        tokens=tokens,
        ids={
            "project": [world.project.pk],
            "corpus": [world.corpus.pk],
            "system": [s.pk for s in (*world.systems.values(), reference)],
            "campaign": [world.campaign.pk, ranking.pk, edits.pk],
            "run": [run.pk for run in runs],
            "assignment": [a.pk for a in assignments],
        },
        screens={
            a.pk: list(
                Screen.objects.filter(hit_id=a.hit_id).order_by("hit_position").values_list("pk", flat=True)
            )
            for a in assignments
        },
        outputs={
            screen.pk: screen.candidates.count()
            for screen in Screen.objects.filter(hit_id__in=[a.hit_id for a in assignments])
        },
    )
