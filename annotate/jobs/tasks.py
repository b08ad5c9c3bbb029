"""Celery wrappers of background imports: ids in, the service does the work; re-running is harmless."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from annotate.jobs.retention import export_files_expire
from annotate.jobs.services import import_job_run, import_jobs_repair


@shared_task(name="annotate.jobs.tasks.task_import_run")
def task_import_run(*, job_id: int) -> str:
    job = import_job_run(job_id=job_id)
    return job.status if job is not None else "not queued"


@shared_task(name="annotate.jobs.tasks.task_import_repair")
def task_import_repair() -> int:
    """Periodic (beat): jobs whose message was lost run; jobs whose worker died (lease ran out) run
    again, up to three starts."""
    return import_jobs_repair(queued_after_seconds=settings.CELERY_REPAIR_SECONDS)


@shared_task(name="annotate.jobs.tasks.task_export_files_expire")
def task_export_files_expire() -> int:
    """Periodic (beat, hourly): background exports' files past EXPORT_JOB_FILES_KEEP_DAYS are deleted."""
    return export_files_expire()
