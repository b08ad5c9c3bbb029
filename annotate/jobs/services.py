"""Background imports: keep the upload, queue the task, run the kind's runner, report progress.

A runner is registered per kind by the app that owns the import (annotate: corpora and system
outputs; crowd: past judgments, in its ``AppConfig.ready``), so this module never imports a higher
layer. It gets the job and a ``progress(step, done, total)`` function and returns what the pages
show: the report and the URL of what was made. It reads the kept files with ``job_file`` and calls
the same service as the inline import, so it is all-or-nothing in the same way: a ``GecInputError``
fails the job with its message and nothing is saved.

A worker that dies (issue 36) takes the import's transaction with it, so nothing of it was saved,
and the kept files stay until the job succeeds or fails for a reason in the data. A fault that is not
in the data (any exception but ``GecInputError``: database, disk, memory) queues the job again the
same way, its file kept, for beat to send again. A running job
holds a lease (``IMPORT_JOB_LEASE_SECONDS``) that its worker renews with its progress; beat
(``import_jobs_repair``) queues a job whose lease ran out and sends it again, at most
``MAX_ATTEMPTS`` starts in all, then fails it ("the worker died 3 times on this file"). A second
delivery of a job whose lease is alive does nothing.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from annotate.jobs.models import MAX_ATTEMPTS, ImportJob, ImportJobStatus
from annotate.models import Corpus, Project
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


def job_file(job: ImportJob, index: int, name: str):
    """The job's ``index``-th kept file, opened (binary) under its uploaded ``name``: the readers stream
    it as they stream an upload (gzip, ``UPLOAD_MAX_BYTES``); closed when the job's run ends."""
    handle = default_storage.open(job.files[index], "rb")
    handle.name = name  # errors name the uploaded file, not where it is kept
    job.__dict__.setdefault("_open_files", []).append(handle)
    return handle


def job_corpus(job: ImportJob, corpus_id: int, what: str) -> Corpus:
    """The job's corpus (in its project), or why ``what`` cannot be imported: it was deleted meanwhile."""
    corpus = Corpus.objects.filter(pk=corpus_id, project=job.project).first()
    if corpus is None:
        raise GecInputError(f"the corpus was deleted before {what} could be imported")
    return corpus


def lease_seconds() -> int:
    return max(1, settings.IMPORT_JOB_LEASE_SECONDS)


class _Heartbeat(threading.Thread):
    """Writes the job's progress and renews its lease from a thread of its own, with a database
    connection of its own: the runner's transaction holds the import, so a write made in it would
    show nothing until the end. Beat presumes the worker dead once the lease runs out."""

    def __init__(self, job_id: int, attempt: int) -> None:
        super().__init__(name=f"import-job-{job_id}", daemon=True)
        self.job_id, self.attempt = job_id, attempt
        self.state: tuple[str, int, int] | None = None
        self.stopping = threading.Event()

    def run(self) -> None:
        try:
            while True:
                self.beat()
                if self.stopping.wait(min(1.0, lease_seconds() / 4)):
                    return
        finally:
            connection.close()

    def beat(self) -> None:
        fields = {
            "lease_until": timezone.now() + timedelta(seconds=lease_seconds()),
            "updated": timezone.now(),
        }
        if self.state is not None:
            step, done, total = self.state
            fields |= {"step": step, "done": min(done, total), "total": total}
        try:
            ImportJob.objects.filter(
                pk=self.job_id, status=ImportJobStatus.RUNNING, attempts=self.attempt
            ).update(**fields)
        except Exception:  # the database away for a moment: the next beat tries again
            logger.warning("import job %s: could not renew its lease", self.job_id, exc_info=True)

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=30)


def import_job_run(*, job_id: int) -> ImportJob | None:
    """Run a queued job (the task). Safe to run twice: a job that is not queued (running under a live
    lease, or finished) is left alone."""
    now = timezone.now()
    with transaction.atomic():
        job = ImportJob.objects.select_for_update().filter(pk=job_id, status=ImportJobStatus.QUEUED).first()
        if job is None:
            return None
        if job.attempts >= MAX_ATTEMPTS:
            _fail_died(job)
            return job
        job.status, job.step = ImportJobStatus.RUNNING, "starting"
        job.attempts += 1
        job.lease_until = now + timedelta(seconds=lease_seconds())
        job.save(update_fields=["status", "step", "attempts", "lease_until", "updated"])

    # SQLite takes one writer at a time: there (development, eager tests) progress is written in the
    # import's own transaction and nobody else could run the job meanwhile anyway.
    heartbeat = _Heartbeat(job.pk, job.attempts) if connection.vendor != "sqlite" else None

    def progress(step: str, done: int, total: int) -> None:
        if heartbeat is not None:
            heartbeat.state = (step, done, total)
        else:
            ImportJob.objects.filter(pk=job.pk).update(
                step=step, done=min(done, total), total=total, updated=timezone.now()
            )

    if heartbeat is not None:
        heartbeat.start()
    outcome: tuple[str, str, str] | None
    try:
        result = _RUNNERS[job.kind](job, progress)
    except GecInputError as exc:
        outcome = (ImportJobStatus.FAILED, str(exc), "")
    except Exception:  # not about the data (database, disk, memory): the file may well import later
        logger.exception("import job %s failed on attempt %d", job.pk, job.attempts)
        outcome = (
            ImportJobStatus.FAILED,
            f"the import failed on the server {job.attempts} times; nothing was saved",
            "",
        )
        if job.attempts < MAX_ATTEMPTS:
            outcome = None
    else:
        outcome = (ImportJobStatus.DONE, result.message, result.url)
    finally:
        if heartbeat is not None:
            heartbeat.stop()
        for handle in job.__dict__.pop("_open_files", []):
            handle.close()
    if outcome is None:
        _requeue(job)
    else:
        _finish(job, *outcome)
    return job


def _requeue(job: ImportJob) -> None:
    """Queue a job again after a fault that is not in its file, keeping the file; beat's repair sends
    it again after ``CELERY_REPAIR_SECONDS`` (a pause a passing fault may need), as it sends a job whose
    worker died. Unless another worker took it over meanwhile."""
    now = timezone.now()
    if ImportJob.objects.filter(pk=job.pk, status=ImportJobStatus.RUNNING, attempts=job.attempts).update(
        status=ImportJobStatus.QUEUED, step="failed on the server, retrying", lease_until=None, updated=now
    ):
        job.status, job.step = ImportJobStatus.QUEUED, "failed on the server, retrying"


def import_jobs_repair(*, queued_after_seconds: int) -> int:
    """Periodic (beat): send again a job still queued after ``queued_after_seconds`` (its message was
    lost: the broker was down), and a running job whose lease ran out (its worker died; the import's
    transaction died with it, so nothing was saved): queued again while it has had fewer than
    ``MAX_ATTEMPTS`` starts, else failed. Returns the jobs touched."""
    now = timezone.now()
    queued = list(
        ImportJob.objects.filter(
            status=ImportJobStatus.QUEUED, updated__lt=now - timedelta(seconds=queued_after_seconds)
        ).values_list("pk", flat=True)
    )
    for job_id in queued:
        task_send_on_commit(TASK_IMPORT_RUN, job_id=job_id)
    touched = len(queued)
    expired = ImportJob.objects.filter(status=ImportJobStatus.RUNNING, lease_until__lt=now)
    for job in expired:
        if job.attempts >= MAX_ATTEMPTS:
            with transaction.atomic():
                locked = (
                    ImportJob.objects.select_for_update()
                    .filter(pk=job.pk, status=ImportJobStatus.RUNNING, lease_until__lt=now)
                    .first()
                )
                if locked is not None:
                    _fail_died(locked)
                    touched += 1
            continue
        # conditional: a worker that renewed the lease meanwhile keeps its job
        if ImportJob.objects.filter(pk=job.pk, status=ImportJobStatus.RUNNING, lease_until__lt=now).update(
            status=ImportJobStatus.QUEUED, step="worker lost, retrying", lease_until=None, updated=now
        ):
            logger.warning("import job %s: its worker died (attempt %d); sent again", job.pk, job.attempts)
            task_send_on_commit(TASK_IMPORT_RUN, job_id=job.pk)
            touched += 1
    return touched


def _fail_died(job: ImportJob) -> None:
    _finish(
        job,
        ImportJobStatus.FAILED,
        f"the worker died {job.attempts} times on this file; nothing was saved",
        only_attempt=False,
    )


def _finish(job: ImportJob, status: str, message: str, url: str = "", *, only_attempt: bool = True) -> None:
    """End the job and delete its kept files; ``only_attempt``: unless another worker took it over
    meanwhile (this one was presumed dead), which then owns the job and its files."""
    now = timezone.now()
    jobs = ImportJob.objects.filter(pk=job.pk)
    if only_attempt:
        jobs = jobs.filter(status=ImportJobStatus.RUNNING, attempts=job.attempts)
    ended = jobs.update(
        status=status, message=message, result_url=url, finished=now, step="", lease_until=None, updated=now
    )
    if not ended:
        logger.warning("import job %s: another worker took it over; this attempt's end is dropped", job.pk)
        return
    job.status, job.message, job.result_url, job.finished, job.step = status, message, url, now, ""
    _delete(job.files)


def _delete(names: list[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:  # a kept file is only a copy of an upload: leave it to the operator
            logger.warning("could not delete the kept upload %s", name)
