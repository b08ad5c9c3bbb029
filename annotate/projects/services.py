"""Writes for projects in the browser: create, members and roles, e-mail invitations.

A project's members are ``Project.members``; each has one role in that project (``ProjectRole``),
which is what gives access there. Nobody is added without consent: a researcher invites an account
(by username) or an e-mail address, and the account accepts (issue 36). The expert and annotator
groups are added with a role and only choose which pages the nav offers; the researcher group is the
site-wide researcher role and is never given by a project (annotate.accounts.services). Every function checks that ``actor`` may do it, so a view
cannot forget to.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser, Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from annotate.models import Project, Role
from annotate.projects.models import INVITABLE_ROLES, ProjectInvitation, ProjectRole
from annotate.projects.selectors import invitation_for_token, may_manage_project, token_digest
from annotate.roles import is_researcher
from annotate.services import project_create
from geceval.errors import GecInputError

ROLE_NAMES = {r.value for r in INVITABLE_ROLES}
ALREADY_USED = "This invitation was already used. Ask the researcher who invited you for a new one."


class ProjectError(ValueError):
    """A refusal to show the person as it is (plain words)."""


def _check_manager(actor: AbstractBaseUser, project: Project) -> None:
    if not may_manage_project(actor, project):
        raise PermissionDenied("only the project's researchers manage its members")


def _check_role(role: str) -> None:
    if role not in ROLE_NAMES:
        raise ProjectError("Choose a role: researcher, expert or annotator.")


def project_new(*, actor: AbstractBaseUser, name: str, description: str = "") -> Project:
    """A project made in the browser: its creator owns it and is its first member."""
    if not is_researcher(actor):
        raise PermissionDenied("only researchers and admins create projects")
    try:
        return project_create(name=name, owner=actor, description=description.replace("\r\n", "\n"))
    except GecInputError as exc:
        raise ProjectError(exc.problem[:1].upper() + exc.problem[1:] + ".") from None


def _give_role(project: Project, user: AbstractBaseUser, role: str) -> None:
    """Make ``user`` a member of ``project`` with ``role`` there (and nowhere else).

    An expert's or annotator's site-wide group is added too: it only says which pages the nav offers.
    The researcher group is not: it is the site-wide researcher role (creating projects, uploading
    corpora), given by an administrator on the account's page or by the first-account set-up (issue 36)."""
    project.members.add(user)
    ProjectRole.objects.update_or_create(project=project, user=user, defaults={"role": role})
    if role != Role.RESEARCHER:
        user.groups.add(Group.objects.get(name=role))


INVITED_BY_NAME = (
    "If an account is called “{username}”, it is invited as {role}: it joins {project} when it accepts "
    "(its invitations are on its Projects page)."
)


@transaction.atomic
def member_invite(
    *, actor: AbstractBaseUser, project: Project, username: str, role: str
) -> ProjectInvitation | None:
    """Invite an existing account by username; it joins when it accepts (issue 36: no one is added
    without consent). None when no account has that name: the caller says the same either way
    (``INVITED_BY_NAME``), so the answer tells nobody which usernames exist."""
    _check_manager(actor, project)
    _check_role(role)
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        return None
    if project.members.filter(pk=user.pk).exists():  # the manager sees the members' list anyway
        raise ProjectError(f"{user.get_username()} is already a member; change their role in the list.")
    ProjectInvitation.objects.filter(
        project=project, user=user, used__isnull=True
    ).delete()  # the newest counts
    return ProjectInvitation.objects.create(
        project=project,
        user=user,
        email="",
        role=role,
        token_hash=token_digest(secrets.token_urlsafe(32)),  # answered from the account's page, not a link
        invited_by=actor,
        expires=timezone.now() + timedelta(days=settings.INVITATION_DAYS),
    )


def _drop_unused_groups(user: AbstractBaseUser) -> None:
    """Keep the expert and annotator groups (the nav's pages) to the roles ``user`` holds in some project;
    the researcher group is the site-wide role an administrator gives, and stays."""
    held = set(ProjectRole.objects.filter(user=user).values_list("role", flat=True))
    user.groups.remove(*Group.objects.filter(name__in=ROLE_NAMES - held - {Role.RESEARCHER}))


@transaction.atomic
def member_set_role(*, actor: AbstractBaseUser, project: Project, user: AbstractBaseUser, role: str) -> None:
    """Give a member exactly one of researcher/expert/annotator in this project.

    A role counts in its project only, so a member of projects ``actor`` does not manage may have it
    changed here (the old refusal for them is gone): their roles elsewhere are untouched. The groups
    that role no longer needs anywhere are taken away."""
    _check_manager(actor, project)
    _check_role(role)
    if not project.members.filter(pk=user.pk).exists():
        raise ProjectError("This person is not a member of the project.")
    if user.pk == actor.pk:
        raise ProjectError("You cannot change your own role.")
    if user.pk == project.owner_id:
        raise ProjectError("The project's owner stays a researcher.")
    if user.is_superuser or user.groups.filter(name="admin").exists():
        raise ProjectError("An admin's roles are changed by an admin.")
    _give_role(project, user, role)
    _drop_unused_groups(user)


@transaction.atomic
def member_remove(*, actor: AbstractBaseUser, project: Project, user: AbstractBaseUser) -> None:
    """Take a member and their role out of the project; their account, groups and past work stay."""
    _check_manager(actor, project)
    if user.pk == project.owner_id:
        raise ProjectError("The project's owner cannot be removed.")
    if not project.members.filter(pk=user.pk).exists():
        raise ProjectError("This person is not a member of the project.")
    project.members.remove(user)
    ProjectRole.objects.filter(project=project, user=user).delete()


# --------------------------------------------------------------------------- invitations


@dataclass(frozen=True)
class SentInvitation:
    invitation: ProjectInvitation
    token: str
    mailed: bool


def invitation_create(
    *, actor: AbstractBaseUser, project: Project, email: str, role: str, link_for
) -> SentInvitation:
    """Make a single-use invitation and e-mail its link (``link_for(token)`` builds the URL).

    The invitation is saved before the e-mail goes out: when the mail server fails,
    ``mailed`` is False and the inviter can pass the link on themselves.
    """
    _check_manager(actor, project)
    _check_role(role)
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise ProjectError("Enter a valid e-mail address.") from None
    token = secrets.token_urlsafe(32)
    invitation = ProjectInvitation.objects.create(
        project=project,
        email=email,
        role=role,
        token_hash=token_digest(token),
        invited_by=actor,
        expires=timezone.now() + timedelta(days=settings.INVITATION_DAYS),
    )
    return _mailed(actor, invitation, token, link_for)


def _mailed(actor: AbstractBaseUser, invitation: ProjectInvitation, token: str, link_for) -> SentInvitation:
    project, link = invitation.project, link_for(token)
    subject = f"Invitation to the GEC Arena project {project.name}"
    body = (
        f"{actor.get_username()} invites you to join the project “{project.name}” on GEC Arena as "
        f"{invitation.role}.\n\nOpen this link to create your account or sign in:\n{link}\n\n"
        f"The link works once and expires on {invitation.expires:%Y-%m-%d %H:%M} UTC."
    )
    try:
        send_mail(subject, body, None, [invitation.email])
    except OSError:
        return SentInvitation(invitation, token, mailed=False)
    return SentInvitation(invitation, token, mailed=True)


@transaction.atomic
def invitation_renew(*, actor: AbstractBaseUser, invitation: ProjectInvitation, link_for) -> SentInvitation:
    """A new link for an e-mail invitation not used yet (issue 40), mailed again. Only a hash of each
    token is stored, so the old link cannot be shown; its hash is replaced, which revokes it, and the
    new link runs for the full time again."""
    invitation = ProjectInvitation.objects.select_for_update().select_related("project").get(pk=invitation.pk)
    _check_manager(actor, invitation.project)
    if invitation.used is not None or not invitation.email:
        raise ProjectError(
            ALREADY_USED if invitation.used is not None else "Only e-mail invitations get a new link."
        )
    token = secrets.token_urlsafe(32)
    invitation.token_hash = token_digest(token)
    invitation.expires = timezone.now() + timedelta(days=settings.INVITATION_DAYS)
    invitation.save(update_fields=["token_hash", "expires"])
    return _mailed(actor, invitation, token, link_for)


def invitation_problem(invitation: ProjectInvitation | None, *, now=None) -> str:
    """Why this invitation cannot be used, in plain words, or "" when it can."""
    if invitation is None:
        return "This invitation link is not valid. Check that you copied all of it."
    if invitation.used is not None:
        return ALREADY_USED
    if invitation.expires <= (now or timezone.now()):
        return (
            f"This invitation expired on {invitation.expires:%Y-%m-%d}. "
            "Ask the researcher who invited you for a new one."
        )
    return ""


def addressed_to(invitation: ProjectInvitation, user: AbstractBaseUser) -> bool:
    """Whether ``user`` may accept: the account it names, or an account with its e-mail address."""
    if invitation.user_id is not None:
        return invitation.user_id == user.pk
    email = (getattr(user, "email", "") or "").strip().lower()
    return bool(email) and email == invitation.email.strip().lower()


def wrong_account(invitation: ProjectInvitation) -> str:
    if invitation.user_id is not None:
        return "This invitation is for another account. Sign in as that account to accept it."
    return (
        f"This invitation was sent to {invitation.email}, and only an account with that e-mail address "
        "can accept it. Sign out, then sign in as that account or create it from this link."
    )


def _claim(invitation: ProjectInvitation | None, user: AbstractBaseUser) -> ProjectInvitation:
    """Mark the invitation used by ``user`` and add them; inside the caller's transaction."""
    if invitation is not None:
        invitation = ProjectInvitation.objects.select_for_update().get(pk=invitation.pk)
    problem = invitation_problem(invitation)
    if problem:
        raise ProjectError(problem)
    if not addressed_to(invitation, user):
        raise ProjectError(wrong_account(invitation))
    # the conditional UPDATE is the single-use guarantee, even where select_for_update is a no-op
    claimed = ProjectInvitation.objects.filter(pk=invitation.pk, used__isnull=True).update(
        used=timezone.now(), used_by=user
    )
    if claimed != 1:
        raise ProjectError(ALREADY_USED)
    owner = user.pk == invitation.project.owner_id
    _give_role(invitation.project, user, Role.RESEARCHER if owner else invitation.role)  # the owner stays one
    return invitation


@transaction.atomic
def invitation_accept(*, token: str, user: AbstractBaseUser) -> ProjectInvitation:
    """A signed-in person accepts the link: they join the project with the invitation's role."""
    return _claim(invitation_for_token(token), user)


@transaction.atomic
def invitation_answer(*, invitation: ProjectInvitation, user: AbstractBaseUser, accept: bool) -> None:
    """The invited account accepts (joins) or declines (the invitation is deleted) from its Projects page."""
    if not addressed_to(invitation, user):
        raise PermissionDenied("not your invitation")
    if accept:
        _claim(invitation, user)
    else:
        ProjectInvitation.objects.filter(pk=invitation.pk, used__isnull=True).delete()


def _valid_username(username: str) -> bool:
    try:
        get_user_model().username_validator(username)
    except ValidationError:
        return False
    return True


@transaction.atomic
def invitation_signup(*, token: str, username: str, password: str, password2: str) -> AbstractBaseUser:
    """A new person creates their account from the invitation and joins; nothing is saved on error."""
    invitation = invitation_for_token(token)
    problem = invitation_problem(invitation)
    if problem:
        raise ProjectError(problem)
    if invitation.user_id is not None:
        raise ProjectError(wrong_account(invitation))
    User = get_user_model()
    username = username.strip()
    errors = []
    if not username or len(username) > 150:
        errors.append("Choose a username of 1 to 150 characters.")
    elif not _valid_username(username):
        errors.append("A username may contain letters, digits and @ . + - _ only.")
    elif User.objects.filter(username__iexact=username).exists():
        errors.append(f"The username “{username}” is taken; choose another.")
    if password != password2:
        errors.append("The two passwords differ.")
    candidate = User(username=username, email=invitation.email)
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as exc:
        errors.extend(exc.messages)
    if errors:
        raise ProjectError(" ".join(dict.fromkeys(errors)))
    user = User.objects.create_user(username=username, email=invitation.email, password=password)
    _claim(invitation, user)
    return user
