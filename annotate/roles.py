"""The site-wide role groups: which pages the nav offers ("may this user see researcher pages?").

They never open a project by themselves: what a user may do in a project is their ``ProjectRole``
there (annotate.projects.models; read by ``annotate.selectors.project_list_for`` and the review
queues in ``annotate.rewrites.selectors``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from annotate.models import Role

ResearchUser = AbstractBaseUser | AnonymousUser


def user_roles(user: ResearchUser) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_gec_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        if user.is_superuser:
            cached.add(Role.ADMIN)
        user._gec_roles = cached
    return cached


def is_researcher(user: ResearchUser) -> bool:
    return bool(user_roles(user) & {Role.RESEARCHER, Role.ADMIN})


def is_annotator(user: ResearchUser) -> bool:
    return bool(user_roles(user) & {Role.ANNOTATOR, Role.EXPERT})
