"""Small builders for tests (plain functions over the services)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotate.models import Project
from annotate.services import InputFile, corpus_import_text, outputs_import_lines, project_create


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
