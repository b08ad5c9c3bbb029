"""python manage.py create_project NAME [--owner USERNAME] [--description TEXT] [--password-stdin]"""

from __future__ import annotations

import secrets
import sys

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotate.models import Project, Role
from annotate.services import default_owner, project_create, project_set_owner
from geceval.errors import GecInputError


class Command(BaseCommand):
    help = (
        "Create a project. --owner USERNAME: a user that does not exist is created as a researcher "
        "with the password read from --password-stdin, or a generated one printed once. Without "
        "--owner the owner is the only superuser-or-researcher when there is exactly one. On an "
        "existing project that has no owner, --owner sets it."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--owner", help="username of the owner (created as a researcher if missing)")
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--password-stdin", action="store_true", help="read a new owner's password from standard input"
        )

    @transaction.atomic
    def handle(self, *args, **opts):
        name = opts["name"].strip()
        existing = Project.objects.filter(name=name).first()
        if existing is not None and (existing.owner_id is not None or not opts["owner"]):
            raise CommandError(f"a project named {name!r} already exists")
        owner, password = None, None
        if opts["owner"]:
            owner, password = self._owner(opts["owner"], opts["password_stdin"])
        elif opts["password_stdin"]:
            raise CommandError("--password-stdin applies to a new --owner only")
        if existing is not None:
            project_set_owner(project=existing, owner=owner)
            self.stdout.write(f"project {name!r} is now owned by {owner.get_username()!r}")
            return
        if owner is None:
            owner = default_owner()
        try:
            project = project_create(name=name, owner=owner, description=opts["description"])
        except GecInputError as exc:
            raise CommandError(str(exc)) from None
        if owner is None:
            self.stdout.write(
                f"created project {project.name!r} with no owner yet "
                f"(set one: python manage.py create_project {project.name} --owner USERNAME)"
            )
        else:
            self.stdout.write(f"created project {project.name!r} owned by {owner.get_username()!r}")
        if password is not None:
            self.stdout.write(f"password of {owner.get_username()!r} (shown once): {password}")

    def _owner(self, username: str, password_stdin: bool):
        """The owner, and the generated password to print when one was made for a new user."""
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        if user is not None:
            if password_stdin:
                raise CommandError(f"user {username!r} exists: --password-stdin applies to a new owner only")
            return user, None
        generated = None
        if password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
            if not password:
                raise CommandError("--password-stdin: standard input gave an empty password")
        else:
            password = generated = secrets.token_urlsafe(12)
        user = User.objects.create_user(username=username, password=password)
        user.groups.add(Group.objects.get(name=Role.RESEARCHER))
        self.stdout.write(f"created researcher {username!r}")
        return user, generated
