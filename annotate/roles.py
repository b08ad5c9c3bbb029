"""The site-wide role groups: which pages the nav offers ("may this user see researcher pages?").

They never open a project by themselves: what a user may do in a project is their ``ProjectRole``
there (annotate.projects.models; read by ``annotate.selectors.project_list_for`` and the review
queues in ``annotate.rewrites.selectors``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db.models import F

from annotate.models import ProjectRole, Role

ResearchUser = AbstractBaseUser | AnonymousUser


def user_roles(user: ResearchUser) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_gec_roles", None)
    if cached is None:
        _roles_keep(user, set(user.groups.values_list("name", flat=True)))
        cached = user._gec_roles
    return cached


def _roles_keep(user: AbstractBaseUser, names: set[str]) -> None:
    if user.is_superuser:
        names.add(Role.ADMIN)
    user._gec_roles = names


def user_with_roles(pk: object) -> AbstractBaseUser | None:
    """The user ``pk`` (None if there is none) with their role names, read in one query: what every
    logged-in request needs (the authentication backend's ``get_user``), instead of a user query and
    a roles query (the groups joined: one row per group, or one without a group)."""
    User = get_user_model()
    try:
        pk = User._meta.pk.to_python(pk)
    except ValidationError:
        return None
    rows = list(User.objects.filter(pk=pk).annotate(role=F("groups__name")))  # a row per group, or one
    if not rows:
        return None
    user = rows[0]
    _roles_keep(user, {row.role for row in rows if row.role is not None})
    return user


def is_researcher(user: ResearchUser) -> bool:
    return bool(user_roles(user) & {Role.RESEARCHER, Role.ADMIN})


def researches_a_project(user: ResearchUser) -> bool:
    """A researcher of some project without the site-wide role: their project's researcher pages open
    (each scoped to the projects where they are one), creating projects and uploading corpora do not."""
    if not user.is_authenticated:
        return False
    return ProjectRole.objects.filter(user=user, role=Role.RESEARCHER).exists()


def is_annotator(user: ResearchUser) -> bool:
    return bool(user_roles(user) & {Role.ANNOTATOR, Role.EXPERT})
