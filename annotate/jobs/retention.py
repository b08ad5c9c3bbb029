"""How long a background export's file is kept (issue 40): ``EXPORT_JOB_FILES_KEEP_DAYS`` after its job
ended. Then beat (``task_export_files_expire``, hourly; with eager Celery and no beat, as under ``make run``,
the next export job) deletes it and the job forgets it: its
``params`` lose ``output`` and gain ``expired`` (when), its ``result_url`` (the download link) is
emptied, and its page says when the file was deleted instead of offering a link that fails.

A file of a job that has not ended is never touched: only finished (done) jobs expire, and a file in
``exports/jobs/`` that no job names (a worker that died between writing the file and recording it, or
an attempt whose job another worker took over) is deleted only once it is older than the retention
and than every export job still queued or running.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Min
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotate.jobs.models import ImportJob, ImportJobStatus
from annotate.jobs.runners import EXPORT, EXPORT_FILES

logger = logging.getLogger(__name__)

EXPIRED = "expired"
"""The ``params`` key of an export job whose file was deleted: when (ISO 8601)."""


def export_file_expires(job: ImportJob) -> datetime | None:
    """When a finished export job's file will be deleted; ``None`` when it has none or is kept for good."""
    days = settings.EXPORT_JOB_FILES_KEEP_DAYS
    if not days or job.kind != EXPORT or job.finished is None or not job.params.get("output"):
        return None
    return job.finished + timedelta(days=days)


def export_file_expired(job: ImportJob) -> datetime | None:
    """When the export job's file was deleted by the retention, or ``None``."""
    when = job.params.get(EXPIRED) if job.kind == EXPORT else None
    return parse_datetime(when) if when else None


def export_files_expire(*, now: datetime | None = None) -> int:
    """Delete the files of export jobs that ended more than ``EXPORT_JOB_FILES_KEEP_DAYS`` ago, and
    files nobody names that are as old (see the module docstring). Returns how many files were
    deleted. Safe to run twice or side by side: each job is locked while it forgets its file."""
    days = settings.EXPORT_JOB_FILES_KEEP_DAYS
    if days <= 0:
        return 0
    now = now or timezone.now()
    cutoff = now - timedelta(days=days)
    deleted = 0
    due = ImportJob.objects.filter(
        kind=EXPORT, status=ImportJobStatus.DONE, finished__lt=cutoff, params__has_key="output"
    ).values_list("pk", flat=True)
    for pk in list(due):
        with transaction.atomic():
            job = (
                ImportJob.objects.select_for_update()
                .filter(pk=pk, status=ImportJobStatus.DONE, finished__lt=cutoff)
                .first()
            )
            name = job.params.get("output") if job is not None else None
            if not name:
                continue  # another run expired it meanwhile
            job.params = {k: v for k, v in job.params.items() if k != "output"} | {EXPIRED: now.isoformat()}
            job.result_url = ""
            job.save(update_fields=["params", "result_url", "updated"])
        # after the row forgets it: a file that cannot be deleted now is an orphan the next run retries
        deleted += _delete(name)
    return deleted + _orphans_expire(cutoff)


def _orphans_expire(cutoff: datetime) -> int:
    """Files in ``EXPORT_FILES`` that no job names, older than ``cutoff`` and than the oldest export
    job not yet finished (its file may be written but not yet recorded)."""
    if not default_storage.exists(EXPORT_FILES):
        return 0
    unfinished = ImportJob.objects.filter(
        kind=EXPORT, status__in=[ImportJobStatus.QUEUED, ImportJobStatus.RUNNING]
    ).aggregate(oldest=Min("created"))["oldest"]
    before = min(cutoff, unfinished) if unfinished is not None else cutoff
    named = {
        params.get("output")
        for params in ImportJob.objects.filter(kind=EXPORT, params__has_key="output").values_list(
            "params", flat=True
        )
    }
    deleted = 0
    for filename in default_storage.listdir(EXPORT_FILES)[1]:
        name = f"{EXPORT_FILES}/{filename}"
        if name in named:
            continue
        try:
            modified = default_storage.get_modified_time(name)
        except OSError:  # deleted meanwhile (another expiry run): nothing left to do
            continue
        except NotImplementedError:
            # Django's Storage API leaves get_modified_time optional (a remote backend may not say):
            # a file whose age is unknown is kept, never deleted on a guess
            continue
        if modified < before:
            deleted += _delete(name)
    return deleted


def _delete(name: str) -> int:
    try:
        default_storage.delete(name)
    except OSError:
        logger.warning("could not delete the expired export file %s; the next run tries again", name)
        return 0
    return 1
