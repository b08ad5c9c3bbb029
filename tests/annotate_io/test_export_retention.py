"""Issue 40: a background M2 export's file (exports/jobs/) was never deleted. It is kept
EXPORT_JOB_FILES_KEEP_DAYS after its job ended; then beat deletes it and the job forgets it, and the
job's page says when instead of a link that fails. A file of a job still running is never touched."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils import timezone

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.services import corpus_import
from annotate.jobs.models import ImportJob, ImportJobStatus
from annotate.jobs.retention import EXPIRED, export_files_expire
from annotate.jobs.runners import EXPORT, EXPORT_FILES
from annotate.jobs.services import import_job_create, import_job_run
from annotate.jobs.tasks import task_export_files_expire
from annotate.services import SentenceRecord
from tests import factories

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


@pytest.fixture(autouse=True)
def _keep_a_week(settings):
    settings.EXPORT_JOB_FILES_KEEP_DAYS = 7


@pytest.fixture
def project():
    _res, project = factories.researcher_and_project()
    return project


def _file(age: timedelta) -> str:
    """A file in the export jobs' folder, last written ``age`` ago."""
    name = default_storage.save(f"{EXPORT_FILES}/x.export", ContentFile(b"S a .\n\n"))
    then = (timezone.now() - age).timestamp()
    os.utime(default_storage.path(name), (then, then))
    return name


def _export(project, *, status=ImportJobStatus.DONE, ended_ago: timedelta | None = None, output: str = ""):
    """An export job as ``export_run`` and ``_finish`` leave it (``ended_ago``: when it finished)."""
    job = ImportJob.objects.create(
        kind=EXPORT,
        project=project,
        created_by=project.owner,
        label="four as M2 (export)",
        status=status,
        params={"corpus": 0, "format": "m2"} | ({"output": output, "filename": "four.m2"} if output else {}),
    )
    if ended_ago is not None:
        job.finished = timezone.now() - ended_ago
        job.result_url = reverse("import-job-download", args=[job.pk])
        job.save(update_fields=["finished", "result_url"])
    return job


def test_a_file_past_the_retention_is_deleted_and_its_job_forgets_it_while_a_fresh_one_stays(project):
    old, fresh = _file(8 * DAY), _file(6 * DAY)
    expired = _export(project, ended_ago=8 * DAY, output=old)
    kept = _export(project, ended_ago=6 * DAY, output=fresh)
    before = dict(kept.params)
    assert task_export_files_expire() == 1  # what beat runs
    assert not default_storage.exists(old) and default_storage.exists(fresh)
    expired.refresh_from_db()
    kept.refresh_from_db()
    assert "output" not in expired.params and expired.params[EXPIRED] and expired.result_url == ""
    assert expired.status == ImportJobStatus.DONE  # the job stays, with its report
    assert kept.params == before and kept.result_url
    assert export_files_expire() == 0  # a second run finds nothing more


def test_the_file_of_a_job_still_running_is_never_deleted(project):
    # a job running for 30 days (its lease renewed all along): the file it wrote 20 days ago but has
    # not recorded yet looks like any file nobody names, older than the retention
    running = _export(project, status=ImportJobStatus.RUNNING)
    ImportJob.objects.filter(pk=running.pk).update(created=timezone.now() - 30 * DAY)
    written = _file(20 * DAY)
    recorded = _file(20 * DAY)
    other = _export(project, status=ImportJobStatus.RUNNING, output=recorded)
    ImportJob.objects.filter(pk=other.pk).update(created=timezone.now() - 30 * DAY)
    assert export_files_expire() == 0
    assert default_storage.exists(written) and default_storage.exists(recorded)
    # once no export job is unfinished, a file nobody names and older than the retention goes;
    # the file of a job that just finished stays its full week
    ImportJob.objects.filter(pk=running.pk).update(status=ImportJobStatus.FAILED, finished=timezone.now())
    ImportJob.objects.filter(pk=other.pk).update(status=ImportJobStatus.DONE, finished=timezone.now())
    assert export_files_expire() == 1
    assert not default_storage.exists(written) and default_storage.exists(recorded)


def test_a_recent_file_nobody_names_stays(project):
    recent = _file(2 * DAY)  # e.g. a job's first attempt, taken over by another worker
    assert export_files_expire() == 0 and default_storage.exists(recent)


def test_zero_days_keeps_every_file(project, settings):
    settings.EXPORT_JOB_FILES_KEEP_DAYS = 0
    old = _file(400 * DAY)
    job = _export(project, ended_ago=400 * DAY, output=old)
    orphan = _file(400 * DAY)
    assert export_files_expire() == 0
    assert default_storage.exists(old) and default_storage.exists(orphan)
    job.refresh_from_db()
    assert job.params["output"] == old


SOURCES = ["He go home .", "I like cat ."]
REFS = {"ref0": ["He goes home .", "I like cats ."]}


def _exported(project, capture_on_commit):
    """A two-sentence corpus and its export job, run for real (the test runs the job itself, not a
    worker): (corpus, the finished job)."""
    corpus = corpus_import(
        project=project,
        name="two",
        data=CorpusData(
            [SentenceRecord(s, "fce") for s in SOURCES],
            [SystemData(n, "reference", lines) for n, lines in REFS.items()],
        ),
        tokenized=True,
    )
    with capture_on_commit(execute=False):
        job = import_job_create(
            kind=EXPORT,
            project=project,
            user=project.owner,
            label="two as M2 (export)",
            uploads=[],
            params={"corpus": corpus.pk, "format": "m2", "untyped": False, "as_zip": False},
        )
    import_job_run(job_id=job.pk)
    job.refresh_from_db()
    return corpus, job


def test_the_page_of_an_expired_export_says_when_and_its_old_link_leads_there(
    client, project, django_capture_on_commit_callbacks
):
    corpus, job = _exported(project, django_capture_on_commit_callbacks)
    assert job.status == ImportJobStatus.DONE
    client.force_login(project.owner)
    page_url, download = reverse("import-job", args=[job.pk]), reverse("import-job-download", args=[job.pk])
    fresh = client.get(page_url).content.decode()
    until = (job.finished + 7 * DAY).astimezone(timezone.get_current_timezone())
    assert f"The file is kept until {until:%Y-%m-%d %H:%M} (7 days after it was written)" in fresh
    assert f'<a href="{download}" download>Download the file</a>' in fresh
    assert client.get(download).status_code == 200

    output = job.params["output"]
    ImportJob.objects.filter(pk=job.pk).update(finished=job.finished - 8 * DAY)
    assert export_files_expire() == 1 and not default_storage.exists(output)
    page = client.get(page_url)
    assert page.status_code == 200
    text = page.content.decode()
    when = timezone.localtime(timezone.now())
    assert f"The exported file was deleted on {when:%Y-%m-%d}" in text
    assert "8 days after it was written" in text
    assert f'Export <a href="{reverse("corpus-detail", args=[corpus.pk])}">two</a> again' in text
    assert "Download the file" not in text and "kept until" not in text
    # a link kept from before (another tab, a bookmark) leads to the page, which says why
    old_link = client.get(download, follow=True)
    assert old_link.redirect_chain == [(page_url, 302)]
    assert "That download is no longer kept" in old_link.content.decode()


@pytest.mark.parametrize("eager", [True, False])
def test_with_eager_celery_each_new_export_expires_the_old_files_as_beat_would(
    project, settings, django_capture_on_commit_callbacks, eager
):
    """``make run`` has no broker, so no beat: each export job runs the expiry itself there. With a
    broker, beat does it and an export job leaves old files alone."""
    settings.CELERY_TASK_ALWAYS_EAGER = eager
    old = _export(project, ended_ago=8 * DAY, output=_file(8 * DAY))
    _corpus, job = _exported(project, django_capture_on_commit_callbacks)
    old.refresh_from_db()
    assert job.status == ImportJobStatus.DONE and default_storage.exists(job.params["output"])
    assert default_storage.exists(old.params["output"]) if not eager else EXPIRED in old.params
