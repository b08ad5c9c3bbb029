"""The site-wide researcher role: given and taken by an administrator on the account's page
(or by the first-account set-up), never by a role in a project (issue 36)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, Group
from django.core.exceptions import PermissionDenied

from annotate.models import Role
from annotate.roles import user_roles


def site_researcher_set(*, actor: AbstractBaseUser, user: AbstractBaseUser, on: bool) -> None:
    """Give (``on``) or take away the researcher group, which lets an account create projects and
    upload corpora. Roles the account holds in projects are untouched."""
    if Role.ADMIN not in user_roles(actor):
        raise PermissionDenied("administrators only")
    group = Group.objects.get_or_create(name=Role.RESEARCHER)[0]
    if on:
        user.groups.add(group)
    else:
        user.groups.remove(group)
    user.__dict__.pop("_gec_roles", None)
