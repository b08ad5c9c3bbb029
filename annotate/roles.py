"""The site-wide role groups: which pages the nav offers ("may this user see researcher pages?").

They never open a project by themselves: what a user may do in a project is their ``ProjectRole``
there (annotate.projects.models; read by ``annotate.selectors.project_list_for`` and the review
queues in ``annotate.rewrites.selectors``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.core.exceptions import ValidationError
from django.db import connection

from annotate.models import ProjectRole, Role
from annotate.sql_rows import columns, joined_rows

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


_USER_WITH_ROLES_SQL: str | None = None


def _user_with_roles_sql() -> str:
    """One portable statement: the user's row once per group (or once, with NULL, without one)."""
    global _USER_WITH_ROLES_SQL
    if _USER_WITH_ROLES_SQL is None:
        User = get_user_model()
        through = User.groups.through._meta
        user_col = through.get_field("user").column
        group_col = through.get_field("group").column
        q = connection.ops.quote_name
        (u,) = columns((User, "u"))
        _USER_WITH_ROLES_SQL = (
            f"SELECT {u.select}, g.{q(Group._meta.get_field('name').column)} "
            f"FROM {q(User._meta.db_table)} u "
            f"LEFT OUTER JOIN {q(through.db_table)} ug ON ug.{q(user_col)} = u.{q(User._meta.pk.column)} "
            f"LEFT OUTER JOIN {q(Group._meta.db_table)} g ON g.{q(Group._meta.pk.column)} = ug.{q(group_col)} "
            f"WHERE u.{q(User._meta.pk.column)} = %s"
        )
    return _USER_WITH_ROLES_SQL


def user_with_roles(pk: object) -> AbstractBaseUser | None:
    """The user ``pk`` (None if there is none) with their role names, read in one query: what every
    logged-in request needs (the authentication backend's ``get_user``), instead of a user query and
    a roles query, each built by the ORM (about 1 ms of the web process's CPU per request)."""
    User = get_user_model()
    try:
        pk = User._meta.pk.to_python(pk)
    except ValidationError:
        return None
    rows = joined_rows(columns((User, "u")), _user_with_roles_sql(), [pk])
    if not rows:
        return None
    user = rows[0][0]
    _roles_keep(user, {role for _, role in rows if role is not None})
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
