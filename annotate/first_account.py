"""The first account of an empty installation, made in the browser (issue 20: from an empty database,
no shell and no admin page).

While the database has no user at all, ``/setup/`` offers one form: the account it makes is the
site's administrator (superuser, admin and researcher roles) and owns every project that commands
made before anyone could own it. Once any account exists the page is gone. Two people submitting at
once on a new install cannot both become administrator: on PostgreSQL a transaction-scoped advisory
lock orders them, on SQLite writes are serialised, and the second finds an account already there
and is refused with nothing saved.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import AbstractBaseUser, Group
from django.db import connection, transaction

from annotate.models import Project, Role
from annotate.services import project_set_owner

_LOCK_KEY = 0x6765635F61726E61  # "gec_arna": one key for this one decision


class FirstAccountTaken(Exception):
    """Someone made an account first."""


def setup_open() -> bool:
    """True while the installation has no account."""
    return not get_user_model().objects.exists()


class FirstAccountForm(UserCreationForm):
    """Django's own sign-up form (username rules, the two passwords, the password validators)."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)
        self.fields["email"].label = "E-mail address (optional)"
        self.fields["password2"].label = "Password again"  # as the invitation's sign-up says it


@transaction.atomic
def first_account_create(form: FirstAccountForm) -> AbstractBaseUser:
    """Save the validated form's account as the administrator, or raise FirstAccountTaken (nothing saved)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
    if not setup_open():
        raise FirstAccountTaken
    user = form.save(commit=False)
    user.is_staff = user.is_superuser = True
    user.save()
    if get_user_model().objects.count() != 1:  # another account slipped in: roll everything back
        raise FirstAccountTaken
    for role in (Role.ADMIN, Role.RESEARCHER):
        user.groups.add(Group.objects.get_or_create(name=role)[0])
    for project in Project.objects.filter(owner__isnull=True):
        project_set_owner(project=project, owner=user)  # member and researcher of it too
    return user
