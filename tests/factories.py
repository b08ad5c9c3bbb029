"""The test worlds, from one place: plain functions building through the real services.

Users and projects; corpora with systems (``corpus_with_systems``); the judgment-campaign world
(``SOURCES``/``SYSTEMS``/``TRAPS``, ``trap_world``); the hardening world (``build_world``); crowd
campaigns (``crowd_campaign``); rewrite teams and tokenised corpora (``team``,
``tokenized_corpus``); imported judgment sets, made by the importer from in-memory files
(``imported_campaign``, ``ranking_campaign``, ``prws_campaign``, ``prws_corpus_campaign``).
"""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command

from annotate.models import Corpus, Project, ProjectRole, Role
from annotate.rewrites import services as rewrite_services
from annotate.services import (
    InputFile,
    SentenceRecord,
    corpus_create,
    corpus_import_text,
    outputs_import_lines,
    project_create,
)
from crowd.importing import judgments_import
from crowd.models import CrowdSettings
from geceval.formats.judgments import PrwsRating, RankingJudgment
from ranking.models import Campaign
from ranking.services import campaign_create
from tests.shared_data import shared_path


def user(username: str, role: str, password: str = "pw-for-tests-1") -> object:
    u = get_user_model().objects.create_user(username=username, password=password)
    u.groups.add(Group.objects.get(name=role))
    return u


def project(owner, name: str = "Team A", members=()) -> Project:
    """A project with its owner (a researcher there) and ``members``, each with the role of their
    site-wide group in this project (researcher, else expert, else annotator), as 0011 migrates."""
    p = project_create(name=name, owner=owner)
    p.members.add(*members)
    for member in members:
        groups = set(member.groups.values_list("name", flat=True))
        role = next((r for r in (Role.RESEARCHER, Role.EXPERT) if r in groups), Role.ANNOTATOR)
        ProjectRole.objects.get_or_create(project=p, user=member, defaults={"role": role})
    return p


_new_user, _new_project = user, project  # for the builders below, whose locals are named user/project


def corpus_with_systems(
    project, *, sources, systems: dict[str, list[str]], kinds: dict[str, str] | None = None
):
    kinds = kinds or {}
    data = ("\n".join(sources) + "\n").encode()
    corpus = corpus_import_text(project=project, name="c1", source=InputFile("src.txt", data))
    made = [
        outputs_import_lines(
            corpus=corpus, system_name=name, kind=kinds.get(name, "model"), lines=lines, filename=name
        )
        for name, lines in systems.items()
    ]
    return corpus, made


# --------------------------------------------------------------------------- imported judgments


def wmt_csv(rankings: Sequence[RankingJudgment]) -> bytes:
    """The rankings as a WMT ranking CSV in memory (``system<i>Id``/``system<i>rank``, empty cells past k)."""
    width = max(len(r.entries) for r in rankings)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["segmentId", "judgeId", *(f"system{i}{col}" for i in range(1, width + 1) for col in ("Id", "rank"))]
    )
    for r in rankings:
        cells = [cell for system, rank in r.entries for cell in (system, rank)]
        writer.writerow([r.item, r.annotator, *cells, *[""] * (2 * width - len(cells))])
    return out.getvalue().encode()


def prws_csv(ratings: Sequence[PrwsRating]) -> bytes:
    """The ratings as a PRWS CSV in memory (item, worker, system, score, meaning_changed)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["item", "worker", "system", "score", "meaning_changed"])
    writer.writerows([r.item, r.annotator, r.system, r.score, int(r.meaning_changed)] for r in ratings)
    return out.getvalue().encode()


def imported_campaign(
    project: Project,
    name: str,
    *,
    rankings: Sequence[RankingJudgment] = (),
    ratings: Sequence[PrwsRating] = (),
    corpus: Corpus | None = None,
) -> Campaign:
    """A closed imported campaign holding ``rankings`` or ``ratings``, made by the importer from a file.

    Without ``corpus`` the importer makes one sentence per item; with it, items are its sentence
    positions and systems its systems (see crowd.importing).
    """
    if bool(rankings) == bool(ratings):
        raise ValueError("give rankings or ratings (one of them)")
    fmt, data = ("wmt-csv", wmt_csv(rankings)) if rankings else ("prws-csv", prws_csv(ratings))
    report = judgments_import(project=project, name=name, fmt=fmt, path_or_bytes=data, corpus=corpus)
    return report.campaign


# --------------------------------------------------------------------------- judgment campaigns

SOURCES = [
    "He go to school every days .",
    "She have two cat .",
    "I am agree with you .",
    "They was happy yesterday .",
    "We discuss about the problem .",
    "The informations is useful .",
]
SYSTEMS = {
    "src": SOURCES,
    "a": [
        "He goes to school every day .",
        "She has two cats .",
        "I agree with you .",
        "They were happy yesterday .",
        "We discussed the problem .",
        "The information is useful .",
    ],
    "b": [
        "He go to school every day .",
        "She has two cat .",
        "I am agree with you .",
        "They were happy yesterday .",
        "We discuss the problem .",
        "The informations are useful .",
    ],
    "c": [
        "He goes to the school every day .",
        "She have two cats .",
        "I agree with you .",
        "They are happy yesterday .",
        "We discussed about the problem .",
        "The information is useful .",
    ],
    "d": [
        "He went to school every day .",
        "She had two cats .",
        "I agree to you .",
        "They was happy .",
        "We talk about the problem .",
        "Informations are useful .",
    ],
    "e": [
        "Every day he goes to school .",
        "She owns two cats .",
        "I totally agree with you .",
        "Yesterday they were happy .",
        "We talked about the problem .",
        "This information is helpful .",
    ],
    "f": [
        "He is going to school daily .",
        "She has got two cats .",
        "I am in agreement with you .",
        "They felt happy yesterday .",
        "We are discussing the problem .",
        "The info is useful .",
    ],
}
TRAPS = [
    "He go to school every days the .",
    "She have two cat cat .",
    "I am agree wit you .",
    "They was happy yesteday .",
    "We discuss about the problem .",  # equal to the source: never used as a trap
    "The informations is usefull .",
]


def trap_world(n_workers: int):
    """A researcher, ``n_workers`` annotators in one project, and the corpus above with its systems
    (``src`` the source, ``trap`` of kind source+error): (researcher, workers, project, corpus,
    systems by name)."""
    researcher = _new_user("res", "researcher")
    workers = [_new_user(f"w{i}", "annotator") for i in range(n_workers)]
    project = _new_project(researcher, members=workers)
    corpus, systems = judging_corpus(project)
    return researcher, workers, project, corpus, {s.name: s for s in systems}


def judging_corpus(project, sources: list[str] | None = None, systems: dict[str, list[str]] | None = None):
    """The corpus above (or ``sources``/``systems``) with ``src`` the source and ``trap`` of kind source+error."""
    return corpus_with_systems(
        project,
        sources=sources or SOURCES,
        systems=systems or (SYSTEMS | {"trap": TRAPS}),
        kinds={"src": "source", "trap": "source+error"},
    )


# --------------------------------------------------------------------------- the hardening world


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
    researcher = _new_user("owner-res-q7", "researcher")
    outsider = _new_user("other-res-q7", "researcher")
    _new_project(outsider, name="Team B")
    workers = [_new_user(f"worker{i}-q7", "annotator") for i in range(n_workers)]
    expert = _new_user("expert-q7", "expert")
    admin = get_user_model().objects.create_superuser("admin", "admin@example.org", "pw-for-tests-1")
    project = _new_project(researcher, members=[*workers, expert])
    corpus, made = judging_corpus(project, sources, systems)
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


# --------------------------------------------------------------------------- crowd campaigns

CROWD_SOURCES = ["He go home .", "She like cats .", "They was late .", "I has a dog ."]
CROWD_SYSTEMS = {
    "a": ["He goes home .", "She likes cats .", "They were late .", "I have a dog ."],
    "b": ["He went home .", "She liked cats .", "They are late .", "I had a dog ."],
    "src": CROWD_SOURCES,
}


def crowd_campaign(*, protocol="ranking", judgments_per_item=2, hits_per_visit=1, reward="0.50", **crowd):
    researcher = _new_user("res", "researcher", password="res-pass-123")
    project = _new_project(researcher)
    corpus, systems = corpus_with_systems(
        project, sources=CROWD_SOURCES, systems=CROWD_SYSTEMS, kinds={"src": "source"}
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
    data = {"screen": context["screen_handle"], "started": context["started"]}
    for i, c in enumerate(context["candidates"]):
        data[f"rank-{c.position}"] = str(i + 1)
    return data


# --------------------------------------------------------------------------- rewrite collection

REWRITE_SOURCES = [
    "He do n't like cats , she said .",
    "Every person need to know a bit about math .",
    "I goes to school every days .",
    "This are a sentence .",
]


def tokenized_corpus(project, sources=REWRITE_SOURCES, name: str = "jfleg-like") -> Corpus:
    return corpus_create(
        project=project,
        name=name,
        tokenized=True,
        sentences=[
            SentenceRecord(text=s, document_id="d1", paragraph_position=i) for i, s in enumerate(sources)
        ],
    )


def ensure_role_groups() -> None:
    """Transactional tests flush the groups migration 0002 made; the role names are all the app needs."""
    for role in Role:
        Group.objects.get_or_create(name=role)


def team(n_annotators: int = 3, n_experts: int = 2):
    ensure_role_groups()
    researcher = _new_user("res", "researcher")
    annotators = [_new_user(f"ann{i}", "annotator") for i in range(n_annotators)]
    experts = [_new_user(f"exp{i}", "expert") for i in range(n_experts)]
    project = _new_project(researcher, members=annotators + experts)
    return researcher, annotators, experts, project


# --------------------------------------------------------------------------- analysis judgment sets

STRENGTH = {"best": 3.0, "good": 2.0, "mid": 1.0, "src": 0.0}


def synthetic_rankings(n: int = 300, seed: int = 1) -> list[RankingJudgment]:
    """3-way rankings of 4 systems of known strength (noisy), deterministic for a seed."""
    rng = random.Random(seed)
    names = sorted(STRENGTH)
    out = []
    for i in range(n):
        shown = rng.sample(names, 3)
        noisy = {s: STRENGTH[s] + rng.gauss(0, 1.0) for s in shown}
        order = sorted(shown, key=lambda s: -noisy[s])
        out.append(
            RankingJudgment(f"item{i % 40}", f"judge{i % 7}", tuple((s, order.index(s) + 1) for s in shown))
        )
    return out


def synthetic_ratings(items: int = 30, judges: int = 4, seed: int = 2) -> list[PrwsRating]:
    rng = random.Random(seed)
    out = []
    for i in range(items):
        for j in range(judges):
            for s, strength in STRENGTH.items():
                score = max(0, min(100, round(40 + 15 * strength + rng.gauss(0, 10))))
                out.append(PrwsRating(f"s{i}", f"w{j}", s, float(score), s == "best" and i % 5 == 0))
    return out


def researcher_and_project(username: str = "res"):
    user = _new_user(username, "researcher")
    return user, _new_project(user)


def ranking_campaign(n: int = 300, seed: int = 1, name: str = "synthetic"):
    user, project = researcher_and_project()
    rankings = synthetic_rankings(n, seed)
    campaign = imported_campaign(project, name, rankings=rankings)
    return user, campaign, rankings


def prws_campaign(name: str = "prws"):
    user, project = researcher_and_project()
    ratings = synthetic_ratings()
    campaign = imported_campaign(project, name, ratings=ratings)
    return user, campaign, ratings


def prws_corpus_campaign():
    """A PRWS judgment set over a real 10-sentence corpus with one reference and 4 systems whose
    human scores follow how many sentences they corrected."""
    user, project = researcher_and_project()
    sources = [f"He go to school {i} ." for i in range(10)]
    good = [f"He goes to school {i} ." for i in range(10)]
    systems = {
        "ref": good,
        "a": good[:8] + sources[8:],
        "b": good[:4] + sources[4:],
        "c": good[:1] + sources[1:],
        "src": sources,
    }
    kinds = {"ref": "reference", "src": "source"}
    corpus, _made = corpus_with_systems(project, sources=sources, systems=systems, kinds=kinds)
    ratings = [
        PrwsRating(str(i), f"w{j}", name, 90.0 if lines[i] == good[i] else 30.0 + j, False)
        for i in range(10)
        for j in range(2)
        for name, lines in systems.items()
        if name != "ref"
    ]
    campaign = imported_campaign(project, "p", ratings=ratings, corpus=corpus)
    return user, campaign


def gmeg_fce_corpus(tmp_path, systems: Sequence[str]) -> Corpus:
    """GMEG dev FCE from ../shared (source, ref0-3 and ``systems``; skips when absent), imported by
    the command as a researcher would, into project "gmeg" owned by researcher "res"."""
    data = shared_path("GMEG", "data", "dev", "fce")
    folder = tmp_path / "fce"
    folder.mkdir()
    for name in ("source", "ref0", "ref1", "ref2", "ref3", *systems):
        (folder / name).write_bytes((data / name).read_bytes())
    ensure_role_groups()
    owner = user("res", "researcher")
    made = project(owner, "gmeg")
    out = io.StringIO()
    call_command(
        "import_corpus", str(folder), "--format", "gmeg", "--name", "fce", "--project", made.name, stdout=out
    )
    return Corpus.objects.get(project=made, name="fce")


GMEG_FCE_SYSTEMS = ("amu", "lstm", "marian", "nus")
"""Four GMEG dev FCE systems: a screen of up to four of their outputs."""


def gmeg_fce_trap_campaign(
    tmp_path,
    protocol: str,
    name: str,
    *,
    judgments_per_item: int = 1,
    screens_per_hit: int = 20,
    trap_rate: float = 0.2,
) -> Campaign:
    """A campaign of ``protocol`` over GMEG dev FCE (``GMEG_FCE_SYSTEMS``, up to four outputs a
    screen) with hidden traps from a fixed secret, as the hidden-trap tests judge it."""
    corpus = gmeg_fce_corpus(tmp_path, GMEG_FCE_SYSTEMS)
    return campaign_create(
        project=corpus.project,
        corpus=corpus,
        name=name,
        systems=list(corpus.systems.filter(name__in=GMEG_FCE_SYSTEMS)),
        created_by=corpus.project.owner,
        protocol=protocol,
        max_candidates=4,
        judgments_per_item=judgments_per_item,
        screens_per_hit=screens_per_hit,
        trap_rate=trap_rate,
        trap_secret="fixed secret for the tests",
    )


def done_run(campaign, kind: str = "trueskill", *, seed: int = 3, **parameters):
    """An analysis run made and run as the page would (eager Celery), checked finished."""
    from ranking.analysis import services
    from ranking.analysis.models import RunStatus

    run = services.analysis_run_create(campaign=campaign, kind=kind, parameters=parameters, seed=seed)
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return run


def join(*, actor, project: Project, username: str, role: str):
    """Issue 36: a researcher invites the account by username and it accepts; the account."""
    from annotate.projects import services as project_services

    invitation = project_services.member_invite(actor=actor, project=project, username=username, role=role)
    user = get_user_model().objects.get(username=username)
    project_services.invitation_answer(invitation=invitation, user=user, accept=True)
    return user


def prws_crowd(
    names: Sequence[str], sources, systems, *, name: str, screens_per_hit: int, protocol: str = "prws"
):
    """A researcher's PRWS campaign (or ``protocol``'s) without traps or repeats, every HIT judged by
    each of ``names`` (annotators of its project): (campaign, {name: user}). The crowd-evidence tests
    build on it."""
    researcher = user("res", "researcher")
    workers = {n: user(n, "annotator") for n in names}
    team = project(researcher, members=list(workers.values()))
    corpus, outputs = corpus_with_systems(team, sources=sources, systems=systems)
    campaign = campaign_create(
        project=team,
        corpus=corpus,
        name=name,
        systems=outputs,
        created_by=researcher,
        protocol=protocol,
        max_candidates=4,
        screens_per_hit=screens_per_hit,
        judgments_per_item=len(names),
        trap_rate=0.0,
        repeat_rate=0.0,
    )
    return campaign, workers


def work_hits(campaign, worker, answer, *, max_screens: int = 400) -> None:
    """``worker`` does HITs of ``campaign`` through the services, ``answer(screen, candidates)`` giving
    one value (score or rank) or a whole ``CandidateScore`` per candidate, until no work is left,
    they are excluded or ``max_screens`` are done."""
    from ranking.protocols import CandidateScore, protocol_get
    from ranking.quality.records import WorkerRecord
    from ranking.selectors import screen_candidates
    from ranking.services import NoWork, assignment_request, screen_submit
    from ranking.work.assignments import assignment_next_screen

    field = protocol_get(campaign.protocol).answer_field
    done = 0
    while done < max_screens:
        try:
            assignment = assignment_request(campaign=campaign, worker=worker)
        except NoWork:
            return
        while (screen := assignment_next_screen(assignment)) is not None and done < max_screens:
            candidates = screen_candidates(screen)
            values = answer(screen, candidates)
            answers = {
                c.pk: v if isinstance(v, CandidateScore) else CandidateScore(**{field: v})
                for c, v in zip(candidates, values, strict=True)
            }
            screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers)
            done += 1
            if assignment.status != "active":
                break
        if WorkerRecord.objects.filter(campaign=campaign, worker=worker, excluded=True).exists():
            return
