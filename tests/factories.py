"""Small builders for tests (plain functions over the services)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotate.models import Corpus, Project
from annotate.services import InputFile, corpus_import_text, outputs_import_lines, project_create
from crowd.importing import judgments_import
from geceval.judgments import PrwsRating, RankingJudgment
from ranking.models import Campaign


def user(username: str, role: str, password: str = "pw-for-tests-1") -> object:
    u = get_user_model().objects.create_user(username=username, password=password)
    u.groups.add(Group.objects.get(name=role))
    return u


def project(owner, name: str = "Team A", members=()) -> Project:
    p = project_create(name=name, owner=owner)
    p.members.add(*members)
    return p


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
