"""Background imports (issue 18): an upload over IMPORT_INLINE_MAX_BYTES is kept in file storage and
imported by a Celery task, with a progress page the researcher can leave and come back to; all or
nothing as an inline import.

The finding: every upload was read and imported inside the request, so a 40 MB corpus held a web
process for minutes and a proxy's timeout cut it off with nothing to show (the import itself was
all-or-nothing, so nothing was saved, but the researcher could not know)."""

from __future__ import annotations

import io
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotate.jobs.models import ImportJob
from annotate.jobs.services import import_jobs_repair
from annotate.models import Corpus, System
from ranking.models import Campaign
from tests import factories
from tests.celery_workers import celery_workers
from tests.crowd.test_payments_and_pages import mturk_csv

pytestmark = pytest.mark.django_db

SOURCE = "He go home .\nShe like cats .\n"
REF = "He goes home .\nShe likes cats .\n"


def upload(name: str, text: str | bytes) -> io.BytesIO:
    f = io.BytesIO(text.encode() if isinstance(text, str) else text)
    f.name = name
    return f


@pytest.fixture
def researcher(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.IMPORT_INLINE_MAX_BYTES = 20  # every upload of these tests is "large"
    user = factories.user("res", "researcher", password="res-pass-123")
    project = factories.project(user, name="Team <b>A</b>")
    client.login(username="res", password="res-pass-123")
    return user, project


def kept_files(tmp_path) -> list:
    folder = tmp_path / "imports" / "jobs"
    return list(folder.iterdir()) if folder.exists() else []


def post_corpus(client, project, name="big", refs=(REF,)):
    files = {
        "source": upload("src.txt", SOURCE),
        "references": [upload(f"ref{i}", r) for i, r in enumerate(refs)],
    }
    fields = {"project": project.pk, "name": name, "language": "en", **files}
    return client.post(reverse("corpus-upload"), fields)


def test_a_large_corpus_upload_runs_in_the_background_and_its_page_says_when_it_is_done(
    client, researcher, tmp_path, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = post_corpus(client, project, name="<script>big</script>")
    job = ImportJob.objects.get()
    assert answer.status_code == 302 and answer.url == reverse("import-job", args=[job.pk])
    assert not Corpus.objects.exists() and job.status == "queued"  # the request did not import
    assert len(kept_files(tmp_path)) == 2
    page = client.get(answer.url)  # before the worker: queued, a progress bar, escaped names
    text = page.content.decode()
    assert "queued" in text and 'id="run-progress"' in text and "is imported in the background" in text
    assert "<script>big" not in text and "&lt;script&gt;big" in text
    assert client.get(reverse("import-job-progress", args=[job.pk])).json()["status"] == "queued"
    for callback in queued:  # the task, as the broker would deliver it (eager here)
        callback()
    job.refresh_from_db()
    corpus = Corpus.objects.get()
    assert (job.status, job.percent, job.result_url) == (
        "done",
        100,
        reverse("corpus-detail", args=[corpus.pk]),
    )
    assert corpus.sentences.count() == 2 and list(corpus.systems.values_list("name", flat=True)) == ["ref0"]
    assert kept_files(tmp_path) == []  # the kept upload is gone once imported
    done = client.get(reverse("import-job", args=[job.pk])).content.decode()
    assert "Imported 2 sentences" in done and reverse("corpus-detail", args=[corpus.pk]) in done
    listing = client.get(reverse("import-jobs")).content.decode()
    assert reverse("import-job", args=[job.pk]) in listing and "Team &lt;b&gt;A&lt;/b&gt;" in listing


def test_a_wrong_file_fails_the_job_with_its_reason_and_saves_nothing(
    client, researcher, tmp_path, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=True):
        post_corpus(client, project, refs=(REF + "one line too many .\n",))
    job = ImportJob.objects.get()
    assert job.status == "failed" and "ref0" in job.message and "3" in job.message, job.message
    assert not Corpus.objects.exists() and not System.objects.exists()
    assert kept_files(tmp_path) == []
    page = client.get(reverse("import-job", args=[job.pk])).content.decode()
    assert "Nothing was imported" in page


def test_small_uploads_stay_inline(client, researcher, settings):
    _, project = researcher
    settings.IMPORT_INLINE_MAX_BYTES = 10_000
    answer = post_corpus(client, project)
    corpus = Corpus.objects.get()
    assert answer.url == reverse("corpus-detail", args=[corpus.pk]) and not ImportJob.objects.exists()


def test_large_outputs_and_judgments_run_in_the_background_too(
    client, researcher, tmp_path, django_capture_on_commit_callbacks
):
    _, project = researcher
    corpus, _ = factories.corpus_with_systems(
        project, sources=["He go home .", "She like cats ."], systems={}
    )
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            reverse("corpus-detail", args=[corpus.pk]),
            {"system": "amu", "kind": "model", "file": upload("amu.txt", REF)},
        )
    job = ImportJob.objects.get(kind="outputs")
    assert answer.url == reverse("import-job", args=[job.pk]) and job.status == "done", job.message
    assert corpus.systems.get(name="amu").outputs.count() == 2
    # a large results file skips the preview (parsing it would hold the request); the job's page
    # gives the import's report
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            reverse("crowd-import"),
            {
                "file": upload("batch.csv", mturk_csv()),
                "format": "mturk-csv",
                "name": "old",
                "project": project.pk,
            },
        )
    job = ImportJob.objects.get(kind="judgments")
    assert answer.url == reverse("import-job", args=[job.pk]) and job.status == "done", job.message
    assert Campaign.objects.get(name="old").origin == "imported"
    assert job.message.startswith("Imported: items: 2") and kept_files(tmp_path) == []
    assert "crowd_import" not in client.session  # no preview was kept


def test_a_large_results_file_with_an_unreadable_layout_fails_its_job_naming_the_columns(
    client, researcher, django_capture_on_commit_callbacks
):
    _, project = researcher
    data = b"HITId,AssignmentId,WorkerId,AssignmentStatus,Input.seg,Input.s,Answer.slider\nX,A1,W1,Approved,7,a,60\n"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("crowd-import"),
            {"file": upload("s.csv", data), "format": "mturk-csv", "name": "s", "project": project.pk},
        )
    job = ImportJob.objects.get()
    assert job.status == "failed" and "Input.seg" in job.message and "Needed:" in job.message
    assert not Campaign.objects.exists()
    mapping = (
        '{"item": "Input.seg", "systems": ["Input.s"], "answers": ["Answer.slider"], "answer_kind": "score"}'
    )
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("crowd-import"),
            {
                "file": upload("s.csv", data),
                "format": "mturk-csv",
                "name": "s",
                "project": project.pk,
                "mapping": mapping,
            },
        )
    assert ImportJob.objects.order_by("pk").last().status == "done"
    assert Campaign.objects.get(name="s").protocol == "prws"


def test_only_the_projects_researchers_see_a_job(client, researcher, django_capture_on_commit_callbacks):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False):
        post_corpus(client, project)
    job = ImportJob.objects.get()
    factories.user("other", "researcher", password="other-pass-123")
    factories.user("ann", "annotator", password="ann-pass-123")
    client.logout()
    client.login(username="other", password="other-pass-123")
    assert client.get(reverse("import-job", args=[job.pk])).status_code == 404
    assert client.get(reverse("import-job-progress", args=[job.pk])).status_code == 404
    assert reverse("import-job", args=[job.pk]) not in client.get(reverse("import-jobs")).content.decode()
    client.logout()
    client.login(username="ann", password="ann-pass-123")
    assert client.get(reverse("import-job", args=[job.pk])).status_code in (302, 403)


def test_beat_sends_a_lost_job_again_and_fails_one_whose_worker_died(
    client, researcher, django_capture_on_commit_callbacks
):
    _, project = researcher
    with django_capture_on_commit_callbacks(execute=False):
        post_corpus(client, project, name="lost")  # its message never reached a worker
        post_corpus(client, project, name="dead")
    lost, dead = ImportJob.objects.order_by("pk")
    old = timezone.now() - timedelta(hours=2)
    ImportJob.objects.filter(pk=lost.pk).update(updated=old)
    ImportJob.objects.filter(pk=dead.pk).update(status="running", updated=old, attempts=3, lease_until=old)
    with django_capture_on_commit_callbacks(execute=True):
        assert import_jobs_repair(queued_after_seconds=300) == 2
    lost.refresh_from_db()
    dead.refresh_from_db()
    assert lost.status == "done" and Corpus.objects.filter(name="lost").exists()
    assert (
        dead.status == "failed" and dead.message == "the worker died 3 times on this file; nothing was saved"
    )
    assert not Corpus.objects.filter(name="dead").exists()


def test_a_real_worker_imports_a_large_corpus_while_the_page_polls(
    client, settings, tmp_path, monkeypatch, transactional_db, real_postgres, real_redis
):
    """The real parts: the web process keeps the upload and queues the job on Redis; a `celery worker`
    process (same MEDIA_ROOT, the test database) imports it; the progress JSON ends at done."""
    monkeypatch.setenv("MEDIA_ROOT", str(tmp_path))
    settings.MEDIA_ROOT = tmp_path
    settings.IMPORT_INLINE_MAX_BYTES = 1000
    user = factories.user("res", "researcher", password="res-pass-123")
    project = factories.project(user)
    client.login(username="res", password="res-pass-123")
    lines = "".join(f"Sentence number {i} have a error .\n" for i in range(3000))
    with celery_workers() as workers:
        workers.start()
        answer = client.post(
            reverse("corpus-upload"),
            {"project": project.pk, "name": "big", "language": "en", "source": upload("src.txt", lines)},
        )
        job = ImportJob.objects.get()
        assert answer.url == reverse("import-job", args=[job.pk])
        deadline, seen = time.monotonic() + 90, set()
        while time.monotonic() < deadline:
            state = client.get(reverse("import-job-progress", args=[job.pk])).json()
            seen.add(state["status"])
            if state["status"] in ("done", "failed"):
                break
            time.sleep(0.2)
    job.refresh_from_db()
    assert job.status == "done", (job.status, job.message, seen)
    assert Corpus.objects.get(name="big").sentences.count() == 3000
    assert kept_files(tmp_path) == []


def test_a_large_wmt_csv_imports_in_the_background_in_the_compact_form(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    """The web's background import takes the same path as import_judgments for a big file: streamed
    from storage, one ImportedEntry per entry (issue 23); smaller than IMPORT_COMPACT_BYTES stays full."""
    from ranking.models import ImportedEntry, ScreenJudgment

    _, project = researcher
    rows = ["system1Id,system1rank,system2Id,system2rank,judgeId,segmentId"]
    rows += [f"amu,{1 + k % 2},camb,{2 - k % 2},j{k % 7},{k % 300}" for k in range(1500)]
    data = ("\n".join(rows) + "\n").encode()
    assert len(data) > settings.IMPORT_INLINE_MAX_BYTES
    settings.IMPORT_COMPACT_BYTES = len(data) - 1
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            reverse("crowd-import"),
            {"file": upload("big.csv", data), "format": "wmt-csv", "name": "big", "project": project.pk},
        )
    job = ImportJob.objects.get(kind="judgments")
    assert answer.url == reverse("import-job", args=[job.pk]) and job.status == "done", job.message
    campaign = Campaign.objects.get(name="big")
    assert ImportedEntry.objects.filter(campaign=campaign).count() == 3000
    assert not ScreenJudgment.objects.filter(screen__campaign=campaign).exists()
    assert job.message.startswith("Imported: items: 300; workers: 7; judgments: 1500; pairwise: 1500")


def test_a_large_wmt_csv_with_a_bad_row_fails_its_job_naming_the_uploaded_file_and_line(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    """Streamed from storage, the file still goes by its uploaded name: the job's message never shows
    the server path it is kept under."""
    _, project = researcher
    rows = ["system1Id,system1rank,system2Id,system2rank,judgeId,segmentId"]
    rows += [f"amu,{1 + k % 2},camb,{2 - k % 2},j{k % 7},{k % 300}" for k in range(1500)]
    rows[1000] = "amu,one,camb,2,j1,5"
    data = ("\n".join(rows) + "\n").encode()
    settings.IMPORT_COMPACT_BYTES = len(data) - 1
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("crowd-import"),
            {"file": upload("big.csv", data), "format": "wmt-csv", "name": "big", "project": project.pk},
        )
    job = ImportJob.objects.get(kind="judgments")
    assert job.status == "failed" and job.message.startswith("big.csv:1001: "), job.message
    assert str(tmp_path) not in job.message and not Campaign.objects.exists() and kept_files(tmp_path) == []
