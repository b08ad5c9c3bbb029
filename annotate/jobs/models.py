"""An import running in the background (``annotate.jobs``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import Project

MAX_ATTEMPTS = 3
"""A job whose worker died this many times on it fails (the file may be what kills the worker)."""


class ImportJobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class ImportJob(models.Model):
    """One upload imported by a task. ``files`` are names in file storage, deleted once the job ends;
    ``params`` what the upload form said (plain JSON: ids, names, flags)."""

    kind = models.CharField(max_length=32)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="import_jobs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="import_jobs"
    )
    label = models.CharField(max_length=300, help_text="what is imported, in words, for the pages")
    files = models.JSONField(default=list)
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=ImportJobStatus.choices, default=ImportJobStatus.QUEUED)
    step = models.CharField(max_length=100, blank=True, help_text="what the job is doing now")
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True, help_text="the report when done, the reason when failed")
    result_url = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True, help_text="the last sign of life (progress included)")
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="how many times a worker started it (more than one: a worker died on it)"
    )
    lease_until = models.DateTimeField(
        null=True, blank=True, help_text="a running job's lease, renewed by its worker while it lives"
    )
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in ImportJobStatus]), name="import_job_status_valid"
            ),
            models.CheckConstraint(condition=Q(done__lte=models.F("total")), name="import_job_done_le_total"),
            models.CheckConstraint(
                condition=Q(attempts__lte=MAX_ATTEMPTS), name="import_job_attempts_at_most_max"
            ),
        ]

    def __str__(self) -> str:
        return f"import {self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        if self.status == ImportJobStatus.DONE:
            return 100
        return int(100 * self.done / self.total) if self.total else 0

    @property
    def retrying(self) -> bool:
        """A worker died on it and it runs (or waits to run) again: the page says so."""
        return not self.finished_state and (
            self.attempts > 1 or (self.attempts == 1 and self.status == ImportJobStatus.QUEUED)
        )

    @property
    def finished_state(self) -> bool:
        return self.status in (ImportJobStatus.DONE, ImportJobStatus.FAILED)
