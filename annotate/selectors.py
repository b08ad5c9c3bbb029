"""Reads: querysets scoped to what a user may see."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q, QuerySet

from annotate.models import Corpus, Output, Project, ProjectRole, Role, Sentence, System, SystemKind
from annotate.roles import user_roles


def project_ids_with_role(user: AbstractBaseUser, role: str) -> QuerySet[ProjectRole]:
    """The ids of the projects where ``user`` has ``role`` (a subquery: no query of its own)."""
    return ProjectRole.objects.filter(user=user, role=role).values("project_id")


def project_list_for(user: AbstractBaseUser) -> QuerySet[Project]:
    """Projects a researcher owns or is a researcher of (``ProjectRole``); admins see all; others none.

    The site-wide researcher group gives nothing in a project without a researcher row there (or
    owning it); a researcher row opens its project without the group (issue 36: a project role never
    gives the site-wide one, so it must not need it either)."""
    roles = user_roles(user)  # cached on the user: no query after the first call of a request
    if Role.ADMIN in roles:
        return Project.objects.all()
    if not user.is_authenticated:
        return Project.objects.none()
    return Project.objects.filter(Q(owner=user) | Q(pk__in=project_ids_with_role(user, Role.RESEARCHER)))


def corpus_list_for(user: AbstractBaseUser) -> QuerySet[Corpus]:
    return (
        Corpus.objects.filter(project__in=project_list_for(user))
        .select_related("project")
        .annotate(sentence_count=Count("sentences", distinct=True))
        .order_by("project__name", "name")
    )


def sentence_context(sentence: Sentence, *, window: int = 1) -> tuple[list[Sentence], list[Sentence]]:
    """The sentences before and after ``sentence`` in its paragraph (same document)."""
    if not sentence.document_id or sentence.paragraph_position is None:
        return [], []
    siblings = Sentence.objects.filter(corpus_id=sentence.corpus_id, document_id=sentence.document_id)
    before = list(
        siblings.filter(paragraph_position__lt=sentence.paragraph_position).order_by("-paragraph_position")[
            :window
        ]
    )[::-1]
    after = list(
        siblings.filter(paragraph_position__gt=sentence.paragraph_position).order_by("paragraph_position")[
            :window
        ]
    )
    return before, after


def corpus_item_names(corpus_id: int) -> dict[int, str]:
    """How judgment files name the corpus's sentences, by sentence id, when it names them: the id in
    ``metadata["id"]`` (every corpus the judgment importer makes keeps its file's item ids there; a
    JSONL corpus may give them). Empty when no sentence carries one: files then name a sentence by
    its 0-based position. The judgment importer reads items and the judgment exports write them by
    this one rule, so an export imported onto its campaign's corpus lands on the same sentences."""
    rows = Sentence.objects.filter(corpus_id=corpus_id, metadata__has_key="id")
    return {pk: str(name) for pk, name in rows.values_list("pk", "metadata__id")}


def system_list_for(user: AbstractBaseUser) -> QuerySet[System]:
    return (
        System.objects.filter(corpus__project__in=project_list_for(user))
        .select_related("corpus")
        .annotate(output_count=Count("outputs"))
        .order_by("corpus_id", "name")
    )


def corpus_references(corpus_id: int, sentence_ids: Iterable[int] | None = None) -> dict[int, list[str]]:
    """The texts of the corpus's reference systems per sentence id (by system name), in one query:
    what grading a rewrite and checking a trap against the references read."""
    rows = Output.objects.filter(system__corpus_id=corpus_id, system__kind=SystemKind.REFERENCE)
    if sentence_ids is not None:
        rows = rows.filter(sentence_id__in=list(sentence_ids))
    refs: dict[int, list[str]] = {}
    for sentence_id, text in rows.order_by("system__name").values_list("sentence_id", "text"):
        refs.setdefault(sentence_id, []).append(text)
    return refs
