"""Background imports: keep the upload, queue the task, run the kind's runner, report progress.

A runner is registered per kind by the app that owns the import (annotate: corpora and system
outputs; crowd: past judgments, in its ``AppConfig.ready``), so this module never imports a higher
layer. It gets the job and a ``progress(step, done, total)`` function and returns what the pages
show: the report and the URL of what was made. It reads the kept files with ``job_file`` and calls
the same service as the inline import, so it is all-or-nothing in the same way: a ``GecInputError``
fails the job with its message and nothing is saved.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from annotate.jobs.models import ImportJob, ImportJobStatus
from annotate.models import Corpus, Project
from annotate.services import InputFile, open_upload
from annotate.tasking import task_send_on_commit
from geceval.errors import GecInputError

logger = logging.getLogger(__name__)

TASK_IMPORT_RUN = "annotate.jobs.tasks.task_import_run"
JOB_FILES = "imports/jobs"


@dataclass(frozen=True)
class JobResult:
    message: str
    url: str = ""


Progress = Callable[[str, int, int], None]
Runner = Callable[[ImportJob, Progress], JobResult]
_RUNNERS: dict[str, Runner] = {}


def import_runner_register(kind: str, runner: Runner) -> None:
    _RUNNERS[kind] = runner


def runs_in_background(*sizes: int) -> bool:
    """Whether an upload of these file sizes (bytes, as uploaded) is imported by a task."""
    return sum(sizes) > settings.IMPORT_INLINE_MAX_BYTES


def import_job_create(
    *,
    kind: str,
    project: Project,
    user: AbstractBaseUser,
    label: str,
    uploads: list,
    params: dict,
    kept: list[str] | None = None,
) -> ImportJob:
    """Keep ``uploads`` (uploaded files, streamed to storage chunk by chunk) and ``kept`` (names already
    in file storage, now the job's) and queue the job's task once the job is committed."""
    if kind not in _RUNNERS:
        raise GecInputError(f"no background import for {kind!r}")
    names = list(kept or [])
    try:
        for upload in uploads:
            upload.seek(0)
            names.append(default_storage.save(f"{JOB_FILES}/{uuid.uuid4().hex}.upload", upload))
        with transaction.atomic():
            job = ImportJob.objects.create(
                kind=kind, project=project, created_by=user, label=label, files=names, params=params
            )
            task_send_on_commit(TASK_IMPORT_RUN, job_id=job.pk)
    except BaseException:
        _delete(names)
        raise
    return job


def job_file(job: ImportJob, index: int, name: str) -> InputFile:
    """The job's ``index``-th kept file, read as an upload is (gzip, ``UPLOAD_MAX_BYTES``)."""
    with default_storage.open(job.files[index], "rb") as handle:
        return open_upload(ContentFile(handle.read(), name=name), name=name)


def job_corpus(job: ImportJob, corpus_id: int, what: str) -> Corpus:
    """The job's corpus (in its project), or why ``what`` cannot be imported: it was deleted meanwhile."""
    corpus = Corpus.objects.filter(pk=corpus_id, project=job.project).first()
    if corpus is None:
        raise GecInputError(f"the corpus was deleted before {what} could be imported")
    return corpus


def import_job_run(*, job_id: int) -> ImportJob | None:
    """Run a queued job (the task). Safe to run twice: a job that is not queued is left alone."""
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().filter(pk=job_id, status=ImportJobStatus.QUEUED).first()
        if job is None:
            return None
        job.status, job.step = ImportJobStatus.RUNNING, "starting"
        job.save(update_fields=["status", "step"])

    def progress(step: str, done: int, total: int) -> None:
        # Outside the import's transaction (a runner reports before it saves), so pages see it now.
        ImportJob.objects.filter(pk=job.pk).update(
            step=step, done=min(done, total), total=total, updated=timezone.now()
        )

    try:
        result = _RUNNERS[job.kind](job, progress)
    except GecInputError as exc:
        _finish(job, ImportJobStatus.FAILED, str(exc))
    except Exception:
        logger.exception("import job %s failed", job.pk)
        _finish(job, ImportJobStatus.FAILED, "the import failed on the server; nothing was saved")
    else:
        _finish(job, ImportJobStatus.DONE, result.message, result.url)
    return job


def import_jobs_repair(*, queued_after_seconds: int, stalled_after_seconds: int) -> int:
    """Periodic (beat): send again a job still queued after ``queued_after_seconds`` (its message was
    lost: the broker was down), and fail a running job silent for ``stalled_after_seconds`` (its worker
    died; the import's transaction died with it, so nothing was saved). Returns the jobs touched."""
    now = timezone.now()
    queued = list(
        ImportJob.objects.filter(
            status=ImportJobStatus.QUEUED, updated__lt=now - timedelta(seconds=queued_after_seconds)
        ).values_list("pk", flat=True)
    )
    for job_id in queued:
        task_send_on_commit(TASK_IMPORT_RUN, job_id=job_id)
    stalled = ImportJob.objects.filter(
        status=ImportJobStatus.RUNNING, updated__lt=now - timedelta(seconds=stalled_after_seconds)
    )
    for job in stalled:
        _finish(
            job, ImportJobStatus.FAILED, "the import stopped on the server; nothing was saved: upload again"
        )
    return len(queued) + len(stalled)


def _finish(job: ImportJob, status: str, message: str, url: str = "") -> None:
    job.status, job.message, job.result_url, job.finished = status, message, url, timezone.now()
    job.step = ""
    job.save(update_fields=["status", "message", "result_url", "finished", "step"])
    _delete(job.files)


def _delete(names: list[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:  # a kept file is only a copy of an upload: leave it to the operator
            logger.warning("could not delete the kept upload %s", name)
