"""Writes for projects, corpora, systems and outputs: imports from files, all-or-nothing.

Every import validates the whole input before saving anything and runs in
one transaction, so a bad file leaves the database unchanged. Errors are
GecInputError, whose message names the file, line and problem.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Q

from annotate.models import Corpus, Output, Project, ProjectRole, Role, Sentence, System, SystemKind
from annotate.records import MAX_LINE_CHARS, MAX_SENTENCES, MAX_SYSTEMS, SentenceRecord
from annotate.selectors import corpus_references
from annotate.streaming import Progress, corpus_save, outputs_import_streamed, text_stream
from geceval.errors import GecInputError
from geceval.formats.inputs import Input, Source, read_input
from geceval.formats.text import decode_lines
from geceval.traps.hidden import DEFAULT_MIN_DROP, source_error
from geceval.traps.inserter import line_seed

InputFile = Input
"""An uploaded or opened file: its display name and bytes, opened by ``open_upload`` (gzip undone)."""


def open_upload(source: Source, *, name: str | None = None) -> InputFile:
    """A path, bytes or uploaded file opened as every import opens it: gzip detected by its magic
    bytes and the decompressed size bounded by ``settings.UPLOAD_MAX_BYTES``."""
    return read_input(source, limit=settings.UPLOAD_MAX_BYTES, name=name)


def text_lines(file: InputFile, *, allow_empty_file: bool = False) -> list[str]:
    """Decode and check a line-aligned text file: UTF-8, no NUL, bounded line length."""
    lines = decode_lines(file.data, path=file.name, allow_empty=allow_empty_file)
    for number, line in enumerate(lines, start=1):
        if "\x00" in line:
            raise GecInputError("contains a NUL character", path=file.name, line=number)
        if len(line) > MAX_LINE_CHARS:
            raise GecInputError(
                f"line is longer than {MAX_LINE_CHARS} characters", path=file.name, line=number
            )
    return lines


def check_same_length(expected: int, expected_name: str, lines: list[str], name: str) -> None:
    if len(lines) != expected:
        raise GecInputError(
            f"has {len(lines)} lines but {expected_name} has {expected}; files must be line-aligned",
            path=name,
        )


@transaction.atomic
def corpus_create(
    *,
    project: Project,
    name: str,
    sentences: list[SentenceRecord],
    language: str = "en",
    description: str = "",
    tokenized: bool = False,
) -> Corpus:
    name = name.strip()
    if not name:
        raise GecInputError("the corpus needs a name")
    if not sentences:
        raise GecInputError("the corpus has no sentences", path=name)
    if len(sentences) > MAX_SENTENCES:
        raise GecInputError(f"more than {MAX_SENTENCES} sentences", path=name)
    _check_sentence_fields(sentences, name)
    if Corpus.objects.filter(project=project, name=name).exists():
        raise GecInputError(f"a corpus named {name!r} already exists in project {project.name!r}")
    try:
        with transaction.atomic():
            corpus = Corpus.objects.create(
                project=project, name=name, language=language, description=description, tokenized=tokenized
            )
    except IntegrityError:  # a concurrent import of the same name won the race
        raise GecInputError(f"a corpus named {name!r} already exists in project {project.name!r}") from None
    Sentence.objects.bulk_create(
        [
            Sentence(
                corpus=corpus,
                position=i,
                text=s.text,
                domain=s.domain,
                document_id=s.document_id,
                paragraph_position=s.paragraph_position,
                metadata=s.metadata,
            )
            for i, s in enumerate(sentences)
        ],
        batch_size=2000,
    )
    return corpus


def _check_sentence_fields(sentences: list[SentenceRecord], where: str) -> None:
    """What the database would refuse, refused first with a message (PostgreSQL stores no NUL)."""
    limits = {
        "domain": Sentence._meta.get_field("domain").max_length,
        "document_id": Sentence._meta.get_field("document_id").max_length,
    }
    for line, s in enumerate(sentences, start=1):
        if "\x00" in s.text:
            raise GecInputError("contains a NUL character", path=where, line=line)
        if len(s.text) > MAX_LINE_CHARS:
            raise GecInputError(f"sentence is longer than {MAX_LINE_CHARS} characters", path=where, line=line)
        for name, limit in limits.items():
            value = getattr(s, name)
            if len(value) > limit or "\x00" in value:
                raise GecInputError(
                    f"{name} is longer than {limit} characters or has a NUL", path=where, line=line
                )


def corpus_import_text(
    *,
    project: Project,
    name: str,
    source: Source,
    references: list[Source] | None = None,
    reference_names: list[str] | None = None,
    domain: str = "",
    tokenized: bool = False,
    language: str = "en",
    description: str = "",
    progress: Progress | None = None,
) -> Corpus:
    """A plain text corpus (one sentence a line), or JFLEG layout when references are given.

    Each reference file becomes a System of kind ``reference`` (named
    ``ref0``, ``ref1``, ... unless ``reference_names`` says otherwise). The files (paths, uploads or
    opened files, gzip or not) stream: checked whole, then saved in batches (``annotate.streaming``).
    """
    references = references or []
    names = reference_names or [f"ref{i}" for i in range(len(references))]
    if len(set(names)) != len(names):
        raise GecInputError(f"reference names repeat: {names}")
    stream = text_stream(
        source, [(n, SystemKind.REFERENCE, f) for n, f in zip(names, references)], domain=domain
    )
    return corpus_save(
        project=project,
        name=name,
        stream=stream,
        language=language,
        description=description,
        tokenized=tokenized,
        progress=progress,
    )


def project_create(*, name: str, owner: AbstractBaseUser | None, description: str = "") -> Project:
    name = name.strip()
    if not name:
        raise GecInputError("the project needs a name")
    if len(name) > Project._meta.get_field("name").max_length:
        raise GecInputError(
            f"project name is longer than {Project._meta.get_field('name').max_length} characters"
        )
    try:
        with transaction.atomic():
            project = Project.objects.create(name=name, owner=owner, description=description)
    except IntegrityError:
        raise GecInputError(f"a project named {name!r} already exists") from None
    if owner is not None:
        _owner_is_researcher(project, owner)
    return project


def _owner_is_researcher(project: Project, owner: AbstractBaseUser) -> None:
    """The owner is a member and a researcher of their project (``ProjectRole``)."""
    project.members.add(owner)
    ProjectRole.objects.update_or_create(project=project, user=owner, defaults={"role": Role.RESEARCHER})


def default_owner() -> AbstractBaseUser | None:
    """The one superuser-or-researcher when there is exactly one (counted together), else nobody."""
    users = get_user_model().objects.filter(Q(is_superuser=True) | Q(groups__name=Role.RESEARCHER)).distinct()
    found = list(users[:2])
    return found[0] if len(found) == 1 else None


DEFAULT_PROJECT = "default"


@dataclass
class ProjectLookup:
    project: Project
    created: str = ""
    """One line saying what was created, empty when the project already existed."""


@transaction.atomic
def project_find_or_create(name: str | None) -> ProjectLookup:
    """The project a command works in, shared by every command that takes ``--project``.

    ``name`` given: that project (by name, or by id when no project has that
    name), created when missing. No name: the only project; ``default``
    created when there is none; an error when there are several.
    A created project's owner is :func:`default_owner`.
    """
    if name:
        project = Project.objects.filter(name=name).first()
        if project is None and name.isdigit():
            project = Project.objects.filter(pk=int(name)).first()
        if project is not None:
            return ProjectLookup(project)
    else:
        projects = list(Project.objects.order_by("name")[:2])
        if len(projects) == 1:
            return ProjectLookup(projects[0])
        if projects:
            names = list(Project.objects.order_by("name").values_list("name", flat=True)[:10])
            raise GecInputError(f"several projects exist ({', '.join(names)}): name one with --project")
        name = DEFAULT_PROJECT
    owner = default_owner()
    project = project_create(name=name, owner=owner)
    if owner is not None:
        line = f"created project {project.name!r} owned by {owner.get_username()!r}"
    else:
        line = (
            f"created project {project.name!r} with no owner yet "
            f"(set one: python manage.py create_project {project.name} --owner USERNAME)"
        )
    return ProjectLookup(project, line)


def project_set_owner(*, project: Project, owner: AbstractBaseUser) -> Project:
    project.owner = owner
    project.save(update_fields=["owner"])
    _owner_is_researcher(project, owner)
    return project


# --------------------------------------------------------------------------- systems and outputs


@transaction.atomic
def outputs_import_lines(
    *, corpus: Corpus, system_name: str, kind: str, lines: list[str], filename: str
) -> System:
    """One system's line-aligned outputs. An empty line is a valid (empty) output."""
    system_name = system_name.strip()
    if not system_name:
        raise GecInputError("the system needs a name", path=filename)
    if kind not in SystemKind.values:
        raise GecInputError(f"unknown system kind {kind!r}; one of {', '.join(SystemKind.values)}")
    sentence_ids = list(corpus.sentences.order_by("position").values_list("id", flat=True))
    check_same_length(len(sentence_ids), f"corpus {corpus.name!r}", lines, filename)
    if System.objects.filter(corpus=corpus, name=system_name).exists():
        raise GecInputError(f"a system named {system_name!r} already exists in corpus {corpus.name!r}")
    if System.objects.filter(corpus=corpus).count() >= MAX_SYSTEMS:
        raise GecInputError(f"corpus {corpus.name!r} already has {MAX_SYSTEMS} systems, the most it may have")
    bad = next((i for i, line in enumerate(lines, start=1) if "\x00" in line), None)
    if bad is not None:
        raise GecInputError("contains a NUL character", path=filename, line=bad)
    try:
        with transaction.atomic():
            system = System.objects.create(corpus=corpus, name=system_name, kind=kind)
    except IntegrityError:
        raise GecInputError(
            f"a system named {system_name!r} already exists in corpus {corpus.name!r}"
        ) from None
    Output.objects.bulk_create(
        [Output(system=system, sentence_id=sid, text=text) for sid, text in zip(sentence_ids, lines)],
        batch_size=2000,
    )
    return system


def outputs_import(
    *, corpus: Corpus, system_name: str, kind: str, file: Source, progress: Progress | None = None
) -> System:
    """One system's outputs from a file (path, upload or opened file), streamed (``annotate.streaming``)."""
    return outputs_import_streamed(
        corpus=corpus, system_name=system_name, kind=kind, file=file, progress=progress
    )


def trap_system_generate(
    *,
    corpus: Corpus,
    seed: int | str | None = None,
    name: str = "source+error",
    min_drop: float = DEFAULT_MIN_DROP,
    error_types: Sequence[str] | None = None,
    n_errors: int | None = None,
) -> System:
    """GMEG's trap: every source sentence with 1-2 rule-inserted errors.

    ``seed`` None (the default) draws a secret one that is kept nowhere: with the code and the public
    data nobody can regenerate the traps. Where the corpus has references a trap must score at least
    ``min_drop`` lower than the source on sentence GLEU+ (``geceval.traps.hidden.source_error``); a sentence
    with no such trap gets its source, which a campaign never shows as a trap. ``error_types`` and
    ``n_errors`` narrow the inserted errors (None: every type, 1 or 2).
    """
    seed = secrets.token_hex(16) if seed is None else seed
    sentences = list(corpus.sentences.order_by("position").values_list("pk", "text"))
    refs = corpus_references(corpus.pk)
    lines = []
    for i, (pk, text) in enumerate(sentences):
        trap = source_error(
            text,
            refs.get(pk, ()),
            seed=line_seed(seed, i),
            min_drop=min_drop,
            error_types=error_types,
            n_errors=n_errors,
        )
        lines.append(text if trap is None else trap.text)
    return outputs_import_lines(
        corpus=corpus,
        system_name=name,
        kind=SystemKind.SOURCE_ERROR,
        lines=lines,
        filename="generated traps",
    )
