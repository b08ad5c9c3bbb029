"""A member's role in one project, and e-mail invitations into a project with a role: single use,
expires (both imported by annotate.models)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import Project, Role

INVITABLE_ROLES = (Role.RESEARCHER, Role.EXPERT, Role.ANNOTATOR)


class ProjectInvitation(models.Model):
    """The link carries a secret token; only its SHA-256 is stored, so a database leak gives no link.

    Addressed (issue 36): to an e-mail, accepted only by an account with that e-mail address; or to
    one account (a researcher "adds" a person by username), accepted only by that account.

    Single use: ``used`` is set by a conditional UPDATE (``used IS NULL``), so two people
    opening the same link at once cannot both join.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    # addressed to an e-mail (accepted only by an account with that address) or to one account
    email = models.EmailField(blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    role = models.CharField(max_length=16, choices=[(r.value, r.label) for r in INVITABLE_ROLES])
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    used = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=[r.value for r in INVITABLE_ROLES]), name="invitation_role_valid"
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=False) | ~Q(email=""), name="invitation_addressed"
            ),
        ]

    def __str__(self) -> str:
        return f"invitation of {self.email} to {self.project_id}"


class ProjectRole(models.Model):
    """What a member may do in this project, and nowhere else: researcher, expert or annotator.

    One row per (project, user). The site-wide groups of the same names only say which pages the
    nav offers; access to a project's corpora, campaigns and review queues comes from these rows
    (and ``Project.owner``, always a researcher of their project).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="roles")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="project_roles")
    role = models.CharField(max_length=16, choices=[(r.value, r.label) for r in INVITABLE_ROLES])

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="project_role_one_per_member"),
            models.CheckConstraint(
                condition=Q(role__in=[r.value for r in INVITABLE_ROLES]), name="project_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} is {self.role} of {self.project_id}"
