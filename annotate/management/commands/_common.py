"""Helpers shared by the management commands."""

from __future__ import annotations

from django.core.management.base import CommandError

from annotate.models import Corpus, Project, RewriteCampaign
from annotate.services import InputFile, open_upload, project_find_or_create
from geceval.errors import GecInputError


def read_input(path: str) -> InputFile:
    """A file named on the command line, opened as an upload is (gzip, UPLOAD_MAX_BYTES)."""
    try:
        return open_upload(path)
    except GecInputError as exc:
        raise CommandError(str(exc)) from None


def find_project(name: str | None, stdout=None) -> Project:
    """The project of a command's ``--project``: found, or created (see ``project_find_or_create``).

    The one line saying what was created goes to ``stdout`` (a command's
    ``self.stdout``).
    """
    try:
        found = project_find_or_create(name)
    except GecInputError as exc:
        raise CommandError(str(exc)) from None
    if found.created and stdout is not None:
        stdout.write(found.created)
    return found.project


def export_project(name: str | None, stdout=None) -> str | None:
    """The ``--project`` of a command that reads (an export), looked up as every command does: named
    and missing, it is created (and says so); with no project at all, ``default`` is. Returns the name
    to narrow the search by, or None to search every project (a unique NAME needs no --project)."""
    if name or not Project.objects.exists():
        return find_project(name, stdout).name
    return None


def find_corpus(name: str, project: str | None) -> Corpus:
    corpora = Corpus.objects.filter(name=name).select_related("project")
    if project:
        corpora = corpora.filter(project__name=project)
    found = list(corpora[:2])
    if not found:
        raise CommandError(f"no corpus named {name!r}" + (f" in project {project!r}" if project else ""))
    if len(found) > 1:
        raise CommandError(f"several corpora are named {name!r}: name the project with --project")
    return found[0]


def find_rewrite_campaign(name: str, project: str | None):

    campaigns = RewriteCampaign.objects.filter(name=name).select_related("corpus", "project")
    if project:
        campaigns = campaigns.filter(project__name=project)
    found = list(campaigns[:2])
    if not found:
        raise CommandError(
            f"no rewrite campaign named {name!r}" + (f" in project {project!r}" if project else "")
        )
    if len(found) > 1:
        raise CommandError(f"several rewrite campaigns are named {name!r}: name the project with --project")
    return found[0]
