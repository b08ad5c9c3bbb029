"""Issue 40: a typed M2 export of a corpus larger than EXPORT_INLINE_MAX_SENTENCES runs as a background
job (eager Celery here, the real worker in production) whose page shows its progress per (sentence,
reference) pair and offers the file once it is whole; a failure keeps nothing."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.services import corpus_export, corpus_import
from annotate.jobs.models import ImportJob, ImportJobStatus
from annotate.jobs.runners import EXPORT, EXPORT_FILES, export_run
from annotate.jobs.services import import_job_create, import_job_run
from annotate.models import Output
from annotate.services import SentenceRecord
from tests import factories

pytestmark = pytest.mark.django_db

SOURCES = ["He go home .", "I like cat .", "She have two dog .", "They was late ."]
REFS = {
    "ref0": ["He goes home .", "I like cats .", "She has two dogs .", "They were late ."],
    "ref1": ["He went home .", "I like cats .", "She has two dogs .", "They were late ."],
}


@pytest.fixture
def corpus(client):
    res, project = factories.researcher_and_project()
    data = CorpusData(
        [SentenceRecord(s, "fce") for s in SOURCES],
        [SystemData(n, "reference", lines) for n, lines in REFS.items()],
    )
    client.force_login(res)
    return corpus_import(project=project, name="four", data=data, tokenized=True)


def test_corpus_export_calls_progress_once_per_pair_up_to_the_total(corpus):
    calls: list[tuple[int, int]] = []
    files = corpus_export(corpus, fmt="m2", progress=lambda done, total: calls.append((done, total)))
    assert {total for _, total in calls} == {8}  # 4 sentences x 2 references
    dones = [done for done, _ in calls]
    assert dones == sorted(dones) and dones[0] == 0 and dones[-1] == 8
    assert {4, 8} <= set(dones)  # each reference's rows counted as they are annotated
    assert list(files) == ["four.m2"]


def _queued_export(corpus, django_capture_on_commit_callbacks) -> ImportJob:
    """An export job as the page makes it, its task not sent yet (the test runs it)."""
    with django_capture_on_commit_callbacks(execute=False):
        return import_job_create(
            kind=EXPORT,
            project=corpus.project,
            user=corpus.project.owner,
            label="four as M2 (export)",
            uploads=[],
            params={"corpus": corpus.pk, "format": "m2", "untyped": False, "as_zip": False},
        )


def test_the_export_job_reports_each_pair_as_it_goes_and_keeps_the_file_once_whole(
    corpus, django_capture_on_commit_callbacks
):
    job = _queued_export(corpus, django_capture_on_commit_callbacks)
    steps: list[tuple[str, int, int]] = []
    result = export_run(job, lambda step, done, total: steps.append((step, done, total)))
    assert steps[0] == ("reading the corpus", 0, 0)
    writing = [(done, total) for step, done, total in steps if step == "writing the M2 edits"]
    assert writing[0] == (0, 8) and writing[-1] == (8, 8) and {4, 8} <= {d for d, _ in writing}
    job.refresh_from_db()
    assert job.params["filename"] == "four.m2"
    with default_storage.open(job.params["output"], "rb") as kept:
        assert kept.read() == corpus_export(corpus, fmt="m2")["four.m2"]
    assert result.url == reverse("import-job-download", args=[job.pk])
    default_storage.delete(job.params["output"])


def test_a_failed_export_job_keeps_no_file(corpus, django_capture_on_commit_callbacks):
    job = _queued_export(corpus, django_capture_on_commit_callbacks)
    Output.objects.filter(system__name="ref1", sentence__position=2).delete()  # a hole: no M2 to write
    kept = set(default_storage.listdir(EXPORT_FILES)[1]) if default_storage.exists(EXPORT_FILES) else set()
    import_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == ImportJobStatus.FAILED and "has no output for sentence 2" in job.message
    now = set(default_storage.listdir(EXPORT_FILES)[1]) if default_storage.exists(EXPORT_FILES) else set()
    assert now == kept and "output" not in job.params


@pytest.mark.django_db(transaction=True)
def test_a_large_m2_export_runs_in_the_background_and_its_page_offers_the_same_file(client, corpus, settings):
    settings.EXPORT_INLINE_MAX_SENTENCES = 3
    inline = corpus_export(corpus, fmt="m2")["four.m2"]
    response = client.get(reverse("corpus-export", args=[corpus.pk]), {"format": "m2"})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("import-job", args=[job.pk])
    assert (job.kind, job.status) == ("corpus-export", ImportJobStatus.DONE)
    page = client.get(response["Location"]).content.decode()
    assert "<h1>Export: four as M2 (export)</h1>" in page and "(100%)" in page
    download = reverse("import-job-download", args=[job.pk])
    assert f'<a href="{download}" download>Download the file</a>' in page
    got = client.get(download)
    assert got["Content-Disposition"] == 'attachment; filename="four.m2"'
    assert b"".join(got.streaming_content) == inline
    # the untyped export stays inline
    untyped = client.get(reverse("corpus-export", args=[corpus.pk]), {"format": "m2", "untyped": "on"})
    assert untyped.status_code == 200 and untyped.content.startswith(b"S He go home .\nA 1 2|||X|||")
    client.force_login(factories.user("other", "researcher"))
    assert client.get(download).status_code == 404  # not their project
    default_storage.delete(ImportJob.objects.get().params["output"])
