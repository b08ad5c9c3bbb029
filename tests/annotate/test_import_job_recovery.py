"""Background imports that finish after a worker dies (issue 36).

The finding: a Celery worker killed during a background import left the job "running" for an hour
(IMPORT_JOB_STALLED_SECONDS), then beat failed it with "upload again", the kept file already deleted.
Now a running job holds a lease its progress renews (IMPORT_JOB_LEASE_SECONDS); beat sends a job
whose lease ran out again, at most 3 starts in all, then fails it naming why; the kept file stays
until the import succeeds or fails for a reason in the data. The import is all-or-nothing (one
transaction): the dead worker's transaction died with it, so the retry saves every sentence once.
"""

from __future__ import annotations

import io
import os
import signal
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotate.jobs.models import ImportJob
from annotate.jobs.services import import_job_run, import_jobs_repair
from annotate.models import Corpus, Output, Sentence
from tests import factories
from tests.celery_workers import celery_workers

pytestmark = pytest.mark.django_db


def upload(name: str, text: str) -> io.BytesIO:
    f = io.BytesIO(text.encode())
    f.name = name
    return f


@pytest.fixture
def researcher(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.IMPORT_INLINE_MAX_BYTES = 20
    user = factories.user("res", "researcher", password="res-pass-123")
    project = factories.project(user)
    client.login(username="res", password="res-pass-123")
    return user, project


def post_corpus(client, project, name: str, source: str, ref: str | None = None):
    fields = {"project": project.pk, "name": name, "language": "en", "source": upload("src.txt", source)}
    if ref is not None:
        fields["references"] = [upload("ref0", ref)]
    return client.post(reverse("corpus-upload"), fields)


def kept_files(tmp_path) -> list:
    folder = tmp_path / "imports" / "jobs"
    return list(folder.iterdir()) if folder.exists() else []


def test_a_job_whose_lease_ran_out_is_sent_again_and_keeps_its_file(
    client, researcher, tmp_path, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False):
        post_corpus(client, project, "died", "He go home .\nShe like cats .\n")
    job = ImportJob.objects.get()
    old = timezone.now() - timedelta(minutes=5)
    # a worker claimed it, then died: its lease ran out
    ImportJob.objects.filter(pk=job.pk).update(status="running", attempts=1, lease_until=old, updated=old)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        assert import_jobs_repair(queued_after_seconds=300) == 1
    job.refresh_from_db()
    assert (job.status, job.step, job.retrying) == ("queued", "worker lost, retrying", True)
    assert len(kept_files(tmp_path)) == 1 and len(sent) == 1
    page = client.get(reverse("import-job", args=[job.pk])).content.decode()
    assert "Worker lost, retrying" in page
    assert client.get(reverse("import-job-progress", args=[job.pk])).json()["retrying"] is True
    for callback in sent:
        callback()
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2)
    assert Corpus.objects.get(name="died").sentences.count() == 2
    assert kept_files(tmp_path) == []


def test_a_second_delivery_while_the_lease_is_alive_does_nothing(client, researcher, tmp_path):
    _, project = researcher
    post_corpus(client, project, "first", "He go home .\nShe like cats .\n")
    job = ImportJob.objects.get()
    alive = timezone.now() + timedelta(minutes=1)
    ImportJob.objects.filter(pk=job.pk).update(status="running", attempts=1, lease_until=alive)
    assert import_job_run(job_id=job.pk) is None
    assert import_jobs_repair(queued_after_seconds=300) == 0
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1)


def test_a_job_whose_worker_died_three_times_fails_with_that_reason(
    client, researcher, tmp_path, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False):
        post_corpus(client, project, "killer", "He go home .\nShe like cats .\n")
    job = ImportJob.objects.get()
    old = timezone.now() - timedelta(minutes=5)
    ImportJob.objects.filter(pk=job.pk).update(status="running", attempts=3, lease_until=old)
    assert import_jobs_repair(queued_after_seconds=300) == 1
    job.refresh_from_db()
    assert job.status == "failed"
    assert job.message == "the worker died 3 times on this file; nothing was saved"
    assert not Corpus.objects.filter(name="killer").exists()


def test_a_job_that_fails_for_its_data_deletes_its_file(
    client, researcher, tmp_path, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=True):
        post_corpus(client, project, "bad", "He go home .\nShe go .\n", ref="only one line\n")
    job = ImportJob.objects.get()
    assert job.status == "failed" and "files must be line-aligned" in job.message
    assert kept_files(tmp_path) == []


@pytest.mark.slow
def test_a_worker_killed_mid_import_is_replaced_and_the_same_import_finishes_with_each_sentence_once(
    client, settings, tmp_path, monkeypatch, transactional_db, real_postgres, real_redis
):
    """Real worker and beat processes (tests/celery_workers.py) on PostgreSQL + Redis: the first worker
    is killed with SIGKILL while it saves; a second worker and beat (lease 10 s, repair every 2 s)
    finish the same job with no one acting."""
    monkeypatch.setenv("MEDIA_ROOT", str(tmp_path))
    monkeypatch.setenv("IMPORT_JOB_LEASE_SECONDS", "10")  # the workers write the lease, beat reads it
    settings.MEDIA_ROOT = tmp_path
    settings.IMPORT_INLINE_MAX_BYTES = 1000
    user = factories.user("res", "researcher", password="res-pass-123")
    project = factories.project(user)
    client.login(username="res", password="res-pass-123")
    n = 120_000
    source = "".join(f"Sentence number {i} have a error .\n" for i in range(n))
    ref = "".join(f"Sentence number {i} has an error .\n" for i in range(n))
    with celery_workers("test-import-kill") as workers:
        first, _log = workers.start()
        post_corpus(client, project, "big", source, ref)
        job = ImportJob.objects.get()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # some batches saved (in the import's transaction)
            job.refresh_from_db()
            if job.status == "running" and 0 < job.done < n // 2:
                break
            assert job.status in ("queued", "running"), (job.status, job.message)
            time.sleep(0.05)
        else:
            pytest.fail(f"the import never got under way: {job.status} {job.step} {job.done}")
        killed_at, done_at_kill = time.monotonic(), job.done
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        assert len(kept_files(tmp_path)) == 2  # the kept files stay for the retry
        workers.start()
        workers.start_beat(tmp_path, CELERY_REPAIR_SECONDS="2")
        saw_retrying = False
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            state = client.get(reverse("import-job-progress", args=[job.pk])).json()
            saw_retrying |= state["retrying"]
            if state["status"] in ("done", "failed"):
                break
            time.sleep(0.2)
    job.refresh_from_db()
    print(
        f"killed at {done_at_kill} of {n} sentences saved (uncommitted); {job.status} "
        f"{time.monotonic() - killed_at:.1f} s after the kill, attempts {job.attempts}"
    )
    assert job.status == "done", (job.status, job.message)
    assert job.attempts == 2 and saw_retrying
    corpus = Corpus.objects.get(name="big")
    assert Sentence.objects.filter(corpus=corpus).count() == n
    assert Sentence.objects.filter(corpus=corpus).values("position").distinct().count() == n
    assert Output.objects.filter(system__corpus=corpus).count() == n
    assert Corpus.objects.count() == 1
    assert kept_files(tmp_path) == []


def _fault_in_the_save(monkeypatch):
    """The database refuses the sentences' insert once (a fault not in the file)."""
    from django.db import OperationalError

    def broken(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(Sentence.objects, "bulk_create", broken)


def test_a_job_that_fails_on_the_server_is_queued_again_with_its_file_and_then_finishes(
    client, researcher, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    # review of issue 36, finding 4: any exception failed the job and deleted the kept file
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False):
        post_corpus(client, project, "fault", "He go home .\nShe like cats .\n")
    job = ImportJob.objects.get()
    with monkeypatch.context() as patch:
        _fault_in_the_save(patch)
        import_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.step, job.attempts, job.retrying) == (
        "queued",
        "failed on the server, retrying",
        1,
        True,
    )
    assert len(kept_files(tmp_path)) == 1 and not Corpus.objects.filter(name="fault").exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert import_jobs_repair(queued_after_seconds=0) == 1  # beat sends it again
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2)
    assert Corpus.objects.get(name="fault").sentences.count() == 2
    assert kept_files(tmp_path) == []


def test_a_job_that_fails_on_the_server_on_every_start_fails_after_the_last(
    client, researcher, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False):
        post_corpus(client, project, "faulty", "He go home .\nShe like cats .\n")
    job = ImportJob.objects.get()
    _fault_in_the_save(monkeypatch)
    for attempt in (1, 2, 3):
        import_job_run(job_id=job.pk)
        job.refresh_from_db()
        assert job.attempts == attempt
    assert job.status == "failed"
    assert job.message == "the import failed on the server 3 times; nothing was saved"
    assert kept_files(tmp_path) == []
