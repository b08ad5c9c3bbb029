"""Roles are Django groups; these helpers answer "may this user ...?"."""

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
