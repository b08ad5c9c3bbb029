"""A World with one of everything a URL can point at, and the path parameters of every route."""

from __future__ import annotations

from annotate.jobs.models import ImportJob
from annotate.projects.services import invitation_create
from annotate.rewrites import qualifications as quals
from ranking.analysis.models import AnalysisRun, ImportedScores
from ranking.models import Screen
from ranking.services import assignment_request
from ranking.work.screen_handles import screen_handle
from tests.factories import World, build_world

ROLES = ("anonymous", "worker", "expert", "other_researcher", "researcher", "admin")


def matrix_world() -> World:
    world = build_world()
    q = quals.qualification_create(
        project=world.project,
        name="q",
        sentences=list(world.rewrite_corpus.sentences.all()[:2]),
        created_by=world.researcher,
    )
    attempt = quals.qualification_start(qualification=q, worker=world.workers[1])
    assignment = assignment_request(campaign=world.campaign, worker=world.workers[0])
    screen = Screen.objects.filter(hit_id=assignment.hit_id).order_by("hit_position").first()
    run = AnalysisRun.objects.create(
        campaign=world.campaign, kind="prws_summary", created_by=world.researcher
    )
    job = ImportJob.objects.create(
        kind="corpus", project=world.project, created_by=world.researcher, label="c"
    )
    scores = ImportedScores.objects.create(
        corpus=world.campaign.corpus, name="SOME", level="system", scores={"a": 0.5}, systems=1
    )
    invitation = invitation_create(
        actor=world.researcher,
        project=world.project,
        email="pending@example.org",
        role="annotator",
        link_for=lambda token: f"http://testserver/invitations/{token}/",
    ).invitation
    world.extra.update(
        invitation=invitation,
        qualification=q,
        attempt=attempt,
        assignment=assignment,
        screen=screen,
        run=run,
        import_job=job,
        imported_scores=scores,
    )
    return world


def user_for(world: World, role: str):
    return {
        "anonymous": None,
        "worker": world.workers[0],
        "expert": world.expert,
        "other_researcher": world.outsider,
        "researcher": world.researcher,
        "admin": world.admin,
    }[role]


def params_for(world: World) -> dict[str, dict[str, object]]:
    """Path parameters per route name; a route missing here fails the matrix test with its name."""
    e = world.extra
    corpus = {"pk": world.corpus.pk}
    rewrite = {"pk": world.rewrite_campaign.pk}
    campaign = {"pk": world.campaign.pk}
    run = {"pk": e["run"].pk}
    values: dict[str, dict[str, object]] = {
        "corpus-detail": corpus,
        "corpus-export": corpus,
        "corpus-stats": corpus,
        "qualification": {"pk": e["qualification"].pk},
        "qualification-take": {"pk": e["qualification"].pk},
        "qualification-decide": {"pk": e["attempt"].pk},
        "campaign-worker-override": campaign | {"worker_id": world.workers[0].pk},
        "campaign-hold": campaign | {"assignment_id": e["assignment"].pk},
        "campaign-worker-forget": campaign | {"worker_id": world.workers[0].pk},
        "campaign-judgments-export": campaign | {"fmt": "wmt-csv"},
        "assignment": {"pk": e["assignment"].pk},
        "assignment-return": {"pk": e["assignment"].pk},
        "assignment-heartbeat": {"pk": e["assignment"].pk},
        "analysis-run-export": run | {"fmt": "ranking.csv"},
        "analysis-run-plot": run | {"name": "ranks"},
        "crowd-platform-action": campaign | {"platform": "mturk", "action": "sync"},
        "crowd-invite": {"code": "no-such-code"},
        "invitation": {"token": "no-such-token"},
        "login-unlock": {"token": "no-such-token"},
        "invitation-answer": {"pk": 999999},
        "account": {"pk": world.researcher.pk},
        "project": {"pk": world.project.pk},
        # two different members: the researcher's empty POST to "remove" does remove its member
        "project-member-remove": {"pk": world.project.pk, "user_id": world.workers[2].pk},
        "project-member-role": {"pk": world.project.pk, "user_id": world.workers[1].pk},
        "crowd-prolific": {"key": "no-such-key"},
        "crowd-mturk": {"key": "no-such-key"},
        "crowd-session": {"token": "no-such-token"},
        "crowd-heartbeat": {"token": "no-such-token"},
        "api:project-detail": {"pk": world.project.pk},
        "api:corpus-detail": corpus,
        "api:system-detail": {"pk": world.systems["a"].pk},
        "api:campaign-detail": campaign,
        "api:campaign-results": campaign,
        "api:campaign-transition": campaign,
        "api:work-assignment": {"assignment_id": e["assignment"].pk},
        "api:work-heartbeat": {"assignment_id": e["assignment"].pk},
        "api:work-request-hit": {"campaign_id": world.campaign.pk},
        "api:work-submit": {
            "assignment_id": e["assignment"].pk,
            "screen_id": screen_handle(assignment_id=e["assignment"].pk, screen_id=e["screen"].pk),
        },
    }
    for name in (
        "rewrite-campaign",
        "rewrite-campaign-export",
        "rewrite-campaign-stats",
        "rewrite-campaign-status",
    ):
        values[name] = rewrite
    for name in ("rewrite-work", "rewrite-skip", "rewrite-draft", "rewrite-mine", "rewrite-review"):
        values[name] = rewrite
    for name in (
        "campaign-detail",
        "campaign-status",
        "campaign-exclusion-rules",
        "campaign-pilot",
        "campaign-scores-csv",
        "campaign-study",
        "campaign-work",
    ):
        values[name] = campaign
    for name in (
        "campaign-analysis",
        "crowd-campaign",
        "crowd-settings",
        "crowd-invites",
        "crowd-invites-csv",
    ):
        values[name] = campaign
    values["crowd-payments-csv"] = campaign
    values["system-tags"] = corpus | {"system_pk": world.systems["a"].pk}
    values["imported-scores-upload"] = campaign
    values["imported-scores-delete"] = campaign | {"scores_pk": e["imported_scores"].pk}
    for name in (
        "campaign-gold-test",
        "campaign-gold-record",
        "campaign-gold-screens",
        "api:judgment-export-detail",
    ):
        values[name] = campaign
    for name in ("detail", "export", "progress", "results", "resume"):
        values[f"api:analysis-run-{name}"] = run
    for name in ("analysis-run", "analysis-run-progress", "analysis-run-resume"):
        values[name] = run
    values["project-invitation-renew"] = {"pk": world.project.pk, "invitation_id": e["invitation"].pk}
    for name in ("import-job", "import-job-progress", "import-job-download"):
        values[name] = {"pk": e["import_job"].pk}
    return values
