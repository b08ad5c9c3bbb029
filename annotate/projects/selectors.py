"""Reads for projects: who sees and manages which project, members with their roles, the nav."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Case, OuterRef, Q, QuerySet, Subquery, Value, When
from django.http import HttpRequest
from django.utils import timezone

from annotate.models import Project, Role
from annotate.projects.models import ProjectInvitation, ProjectRole
from annotate.roles import user_roles
from annotate.selectors import project_list_for

SESSION_KEY = "current_project_id"
NAV_PROJECTS_MAX = 100


def is_admin(user: AbstractBaseUser) -> bool:
    return Role.ADMIN in user_roles(user)


def project_visible_list_for(user: AbstractBaseUser) -> QuerySet[Project]:
    """Projects a user belongs to (owner or member, whatever their role); admins see all."""
    if not user.is_authenticated:
        return Project.objects.none()
    if is_admin(user):
        return Project.objects.order_by("name")
    return Project.objects.filter(Q(owner=user) | Q(members=user)).distinct().order_by("name")


def project_managed_list_for(user: AbstractBaseUser) -> QuerySet[Project]:
    """Projects whose members this user may change: the project's owner and researchers
    (``ProjectRole``), admins."""
    return project_list_for(user)


def may_manage_project(user: AbstractBaseUser, project: Project) -> bool:
    return project_managed_list_for(user).filter(pk=project.pk).exists()


@dataclass(frozen=True)
class Member:
    user: AbstractBaseUser
    role: str  # the role in this project ("" when a member has none yet)
    is_owner: bool
    is_admin: bool


def project_members(project: Project) -> list[Member]:
    """Members in username order with their role in this project; two queries whatever the number."""
    here = ProjectRole.objects.filter(project=project, user=OuterRef("pk")).values("role")[:1]
    members = (
        project.members.order_by("username").annotate(project_role=Subquery(here)).prefetch_related("groups")
    )
    out = []
    for user in members:
        admin = user.is_superuser or any(g.name == Role.ADMIN for g in user.groups.all())
        role = Role.RESEARCHER.value if user.pk == project.owner_id else user.project_role or ""
        out.append(Member(user=user, role=role, is_owner=user.pk == project.owner_id, is_admin=admin))
    return out


def invitation_pending_list(project: Project) -> QuerySet[ProjectInvitation]:
    """E-mail invitations only: listing the accounts invited by username would tell which names exist."""
    pending = project.invitations.filter(used__isnull=True, user__isnull=True)
    return pending.select_related("invited_by").order_by("-created")


def invitations_for(user: AbstractBaseUser) -> QuerySet[ProjectInvitation]:
    """Pending invitations this account may accept: addressed to it, or to its e-mail address."""
    addressed = Q(user=user)
    email = (user.email or "").strip()
    if email:
        addressed |= Q(user__isnull=True, email__iexact=email)
    pending = ProjectInvitation.objects.filter(addressed, used__isnull=True, expires__gt=timezone.now())
    return pending.select_related("project", "invited_by").order_by("-created")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_for_token(token: str) -> ProjectInvitation | None:
    if not token or len(token) > 100:
        return None
    return ProjectInvitation.objects.select_related("project").filter(token_hash=token_digest(token)).first()


ALL_PROJECTS = "all"
"""The session's value when the user chose "All my projects" in the switcher."""


@dataclass(frozen=True)
class NavProjects:
    projects: list[tuple[int, str]]
    current: tuple[int, str] | None  # None: no project, or all of them (``all_chosen``)
    all_chosen: bool = False


def nav_projects(request: HttpRequest) -> NavProjects:
    """The projects of the switcher and the current one: the session's choice when the user still
    belongs to it, else their first project; none when they chose all their projects. One query per
    request: the view and the nav's context processor share the answer."""
    cached = getattr(request, "_gec_nav_projects", None)
    if cached is not None:
        return cached
    user = request.user
    if not user.is_authenticated:
        return NavProjects([], None)
    projects = list(project_visible_list_for(user).values_list("pk", "name")[:NAV_PROJECTS_MAX])
    chosen = request.session.get(SESSION_KEY)
    if chosen == ALL_PROJECTS and projects:
        found = NavProjects(projects, None, all_chosen=True)
    else:
        found = NavProjects(
            projects, next((p for p in projects if p[0] == chosen), projects[0] if projects else None)
        )
    request._gec_nav_projects = found
    return found


def in_current_project(request: HttpRequest, items: QuerySet, field: str = "project") -> QuerySet:
    """``items`` of the request's current project (``field`` leads to the project): what a
    researcher's lists show. All of them when the user chose "All my projects" in the switcher.
    Detail pages never use this: a link to another of the user's projects keeps working."""
    found = nav_projects(request)
    if found.all_chosen:
        return items
    if found.current is None:
        return items.none()
    return items.filter(**{f"{field}_id": found.current[0]})


def current_project_id(request: HttpRequest) -> int | None:
    """The current project's id, for forms to preselect; None when all projects are shown."""
    current = nav_projects(request).current
    return current[0] if current else None


def current_first(items: QuerySet, project_id: int | None, *order: str, field: str = "project") -> QuerySet:
    """``items`` with the current project's first, then in ``order``: what a form offers."""
    if project_id is None:
        return items.order_by(*order)
    here = Case(When(**{f"{field}_id": project_id}, then=Value(0)), default=Value(1))
    return items.order_by(here, *order)
