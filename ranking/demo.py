"""The demo data set (written by us) and demo accounts, loaded by ``make run``."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from annotate.models import Corpus, Project, ProjectRole, RewriteCampaign, Role, System, SystemKind
from annotate.rewrites.services import rewrite_campaign_create
from annotate.services import SentenceRecord, corpus_create, outputs_import_lines, trap_system_generate
from ranking.services import campaign_create

DEMO_FILE = Path(__file__).parent / "demo" / "demo_corpus.json"
DEMO_PROJECT = "Demo project"
DEMO_CAMPAIGN = "Demo PRWS judgments"
DEMO_RANKING_CAMPAIGN = "Demo relative ranking"
DEMO_REWRITE_CAMPAIGN = "Demo JFLEG-style rewrites"

# Local demo accounts only: printed by the run command, never used in production.
DEMO_ACCOUNTS = [
    ("admin", "demo-admin-pass", Role.ADMIN),
    ("researcher", "demo-researcher-pass", Role.RESEARCHER),
    ("expert", "demo-expert-pass", Role.EXPERT),
    ("annotator1", "demo-annotator-pass", Role.ANNOTATOR),
    ("annotator2", "demo-annotator-pass", Role.ANNOTATOR),
    ("annotator3", "demo-annotator-pass", Role.ANNOTATOR),
]


@dataclass
class DemoInfo:
    created: bool
    accounts: list[tuple[str, str | None, str]]


@transaction.atomic
def demo_load(*, random_passwords: bool = False) -> DemoInfo:
    """Create the demo accounts, project, corpus, systems and one PRWS campaign; idempotent.

    ``random_passwords`` (production): accounts made now get a random password instead of the published
    one; ``accounts`` then lists it, and accounts that already existed as ``None`` (left unchanged).
    """
    users, passwords = _demo_users(random_passwords)
    accounts = [(u, passwords[u], r.value) for u, _p, r in DEMO_ACCOUNTS]
    project, _ = Project.objects.get_or_create(name=DEMO_PROJECT, defaults={"owner": users["researcher"]})
    project.members.add(*users.values())
    for username, _password, role in DEMO_ACCOUNTS:  # a role changed on the project page stays
        here = Role.RESEARCHER if role == Role.ADMIN else role
        ProjectRole.objects.get_or_create(project=project, user=users[username], defaults={"role": here})
    if Corpus.objects.filter(project=project).exists():
        _demo_rewrites(project, users)
        return DemoInfo(created=False, accounts=accounts)

    corpus, systems = _demo_corpus(project)
    traps = trap_system_generate(corpus=corpus)
    # the same sentences, systems and traps judged both ways
    shared = {
        "project": project,
        "corpus": corpus,
        "systems": systems,
        "created_by": users["researcher"],
        "judgments_per_item": 3,
        "screens_per_hit": 10,
        "trap_system": traps,
        "trap_rate": 0.3,
        "trap_min_seen": 3,
    }
    campaign_create(name=DEMO_CAMPAIGN, **shared)
    campaign_create(name=DEMO_RANKING_CAMPAIGN, protocol="ranking", max_candidates=5, **shared)
    _demo_rewrites(project, users)
    return DemoInfo(created=True, accounts=accounts)


def _demo_users(random_passwords: bool) -> tuple[dict, dict]:
    """The demo accounts by username, each in its role's group, and the passwords set when first made."""
    User = get_user_model()
    users, passwords = {}, {}
    for username, password, role in DEMO_ACCOUNTS:
        user, made = User.objects.get_or_create(username=username)
        passwords[username] = password
        if random_passwords:
            passwords[username] = secrets.token_urlsafe(15) if made else None
        if made:
            user.set_password(passwords[username])
            user.is_staff = user.is_superuser = role == Role.ADMIN
            user.save()
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        users[username] = user
    return users, passwords


def _demo_corpus(project: Project) -> tuple[Corpus, list[System]]:
    """The demo corpus with its references, and the systems campaigns compare (the source first)."""
    data = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    meta = data["corpus"]
    rows = data["sentences"]
    corpus = corpus_create(
        project=project,
        name=meta["name"],
        language=meta["language"],
        description=meta["description"],
        tokenized=meta["tokenized"],
        sentences=[
            SentenceRecord(
                text=r["source"],
                domain=r["domain"],
                document_id=r["document"],
                paragraph_position=r["paragraph_position"],
            )
            for r in rows
        ],
    )
    systems = [
        outputs_import_lines(
            corpus=corpus,
            system_name="source",
            kind=SystemKind.SOURCE,
            lines=[r["source"] for r in rows],
            filename="demo",
        )
    ]
    for i, ref in enumerate(data["references"]):
        outputs_import_lines(
            corpus=corpus,
            system_name=ref,
            kind=SystemKind.REFERENCE,
            lines=[r["references"][i] for r in rows],
            filename="demo",
        )
    for system in data["systems"]:
        systems.append(
            outputs_import_lines(
                corpus=corpus,
                system_name=system["name"],
                kind=system["kind"],
                lines=[r["outputs"][system["name"]] for r in rows],
                filename="demo",
            )
        )
    return corpus, systems


def _demo_rewrites(project: Project, users: dict) -> None:
    """A small JFLEG-style rewrite campaign (2 rewrites of the first 10 sentences, expert review)."""
    if RewriteCampaign.objects.filter(project=project, name=DEMO_REWRITE_CAMPAIGN).exists():
        return
    corpus = Corpus.objects.filter(project=project).order_by("pk").first()
    rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name=DEMO_REWRITE_CAMPAIGN,
        created_by=users["researcher"],
        preset="jfleg",
        rewrites_per_sentence=2,
        ask_difficulty=True,
        require_review=True,
        pay_per_sentence="0.10",
        first_position=0,
        last_position=9,
    )
