"""An e-mail invitation into a project with a role: single use, expires (imported by annotate.models)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import Project, Role

INVITABLE_ROLES = (Role.RESEARCHER, Role.EXPERT, Role.ANNOTATOR)


class ProjectInvitation(models.Model):
    """The link carries a secret token; only its SHA-256 is stored, so a database leak gives no link.

    Single use: ``used`` is set by a conditional UPDATE (``used IS NULL``), so two people
    opening the same link at once cannot both join.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
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
        ]

    def __str__(self) -> str:
        return f"invitation of {self.email} to {self.project_id}"
