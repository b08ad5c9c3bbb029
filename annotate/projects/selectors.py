"""Reads for projects: who sees and manages which project, members with their roles, the nav."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from annotate.models import Project, Role
from annotate.projects.models import INVITABLE_ROLES, ProjectInvitation
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
    """Projects whose members this user may change: researchers of the project (owner or member), admins."""
    return project_list_for(user)


def may_manage_project(user: AbstractBaseUser, project: Project) -> bool:
    return project_managed_list_for(user).filter(pk=project.pk).exists()


@dataclass(frozen=True)
class Member:
    user: AbstractBaseUser
    roles: list[str]
    is_owner: bool
    is_admin: bool


def project_members(project: Project) -> list[Member]:
    """Members in username order with their role groups; two queries whatever the number."""
    members = project.members.order_by("username").prefetch_related("groups")
    out = []
    for user in members:
        names = {g.name for g in user.groups.all()}
        roles = [r.value for r in (Role.ADMIN, *INVITABLE_ROLES) if r.value in names]
        admin = user.is_superuser or Role.ADMIN in names
        out.append(Member(user=user, roles=roles, is_owner=user.pk == project.owner_id, is_admin=admin))
    return out


def invitation_pending_list(project: Project) -> QuerySet[ProjectInvitation]:
    return project.invitations.filter(used__isnull=True).select_related("invited_by").order_by("-created")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_for_token(token: str) -> ProjectInvitation | None:
    if not token or len(token) > 100:
        return None
    return ProjectInvitation.objects.select_related("project").filter(token_hash=token_digest(token)).first()


@dataclass(frozen=True)
class NavProjects:
    projects: list[tuple[int, str]]
    current: tuple[int, str] | None


def nav_projects(request: HttpRequest) -> NavProjects:
    """The projects of the switcher and the current one: the session's choice when the user still
    belongs to it, else their first project. One query."""
    user = request.user
    if not user.is_authenticated:
        return NavProjects([], None)
    projects = list(project_visible_list_for(user).values_list("pk", "name")[:NAV_PROJECTS_MAX])
    chosen = request.session.get(SESSION_KEY)
    current = next((p for p in projects if p[0] == chosen), projects[0] if projects else None)
    return NavProjects(projects, current)
