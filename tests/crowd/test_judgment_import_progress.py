"""Issue 40: a background judgment import shows its progress per row saved: the judgments saved so
far of the file's, a batch (SAVE_BATCH) at a time with their ratings, where the job page said "1 of 2"
until the end. The compact form (streamed, COPY) said nothing until done: it reports the lines it
reads, then the judgments saved after each COPY block."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.jobs.services import import_job_create
from crowd.importing.background import JUDGMENTS, judgments_run
from crowd.importing.compact import BLOCK
from crowd.importing.readers import FULL_MAX_ROWS
from crowd.importing.saving import SAVE_BATCH, judgments_import
from geceval.formats.judgment_stream import CHECK_ROWS
from ranking.models import ImportedEntry, Rating, ScreenJudgment
from tests import factories

pytestmark = pytest.mark.django_db

ROWS = 2 * SAVE_BATCH + 500


def _wmt(rows: int) -> bytes:
    header = b"system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\n"
    return header + b"".join(b"a,1,b,2,j%d,%d\n" % (i % 7, i % 300) for i in range(rows))


def test_the_judgments_import_reports_each_batch_of_rows_saved():
    project = factories.project(factories.user("res", "researcher"))
    steps: list[tuple[str, int, int]] = []
    report = judgments_import(
        project=project,
        name="past",
        fmt="wmt-csv",
        path_or_bytes=_wmt(ROWS),
        compact=False,
        progress=lambda step, done, total: steps.append((step, done, total)),
    )
    assert steps == [
        ("saving the judgments", 0, ROWS),
        ("saving the judgments", SAVE_BATCH, ROWS),
        ("saving the judgments", 2 * SAVE_BATCH, ROWS),
        ("saving the judgments", ROWS, ROWS),
    ]
    assert report.judgments == ScreenJudgment.objects.count() == ROWS
    assert Rating.objects.count() == 2 * ROWS  # each batch's ratings saved with it


def test_the_background_job_passes_the_rows_saved_to_its_page(django_capture_on_commit_callbacks):
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    with django_capture_on_commit_callbacks(execute=False):  # the test runs the job itself
        job = import_job_create(
            kind=JUDGMENTS,
            project=project,
            user=researcher,
            label="past.csv",
            uploads=[SimpleUploadedFile("past.csv", _wmt(ROWS))],
            params={"name": "past", "format": "wmt-csv", "filename": "past.csv"},
        )
    steps: list[tuple[str, int, int]] = []
    judgments_run(job, lambda step, done, total: steps.append((step, done, total)))
    saving = [(done, total) for step, done, total in steps if step == "saving the judgments"]
    assert saving == [(0, ROWS), (SAVE_BATCH, ROWS), (2 * SAVE_BATCH, ROWS), (ROWS, ROWS)]
    assert steps[0] == ("reading past.csv", 0, 0)


COMPACT_ROWS = 3 * BLOCK // 4
"""Pairwise rows, two entries each: two COPY blocks, the first ending after judgment BLOCK // 2."""


def test_the_compact_import_reports_lines_read_then_judgments_saved_after_each_copy_block(
    real_postgres, django_capture_on_commit_callbacks
):
    assert COMPACT_ROWS > FULL_MAX_ROWS  # the job picks the compact form by itself
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    with django_capture_on_commit_callbacks(execute=False):
        job = import_job_create(
            kind=JUDGMENTS,
            project=project,
            user=researcher,
            label="past.csv",
            uploads=[SimpleUploadedFile("past.csv", _wmt(COMPACT_ROWS))],
            params={"name": "past", "format": "wmt-csv", "filename": "past.csv"},
        )
    steps: list[tuple[str, int, int]] = []
    judgments_run(job, lambda step, done, total: steps.append((step, done, total)))
    assert not ScreenJudgment.objects.exists()  # the compact form it was
    assert ImportedEntry.objects.count() == 2 * COMPACT_ROWS
    reading = [step for step, _, _ in steps if step.startswith("reading the judgments")]
    lines = [CHECK_ROWS * k + 1 for k in range(1, COMPACT_ROWS // CHECK_ROWS + 1)]  # the header is line 1
    assert reading == [f"reading the judgments (line {n:,})" for n in lines]
    saving = [(done, total) for step, done, total in steps if step == "saving the judgments"]
    assert saving == [(0, COMPACT_ROWS), (BLOCK // 2, COMPACT_ROWS), (COMPACT_ROWS, COMPACT_ROWS)]
    # what the page shows only grows: the lines read (done 0 of an unknown total), then the saving
    dones = [done for _, done, _ in steps]
    assert dones == sorted(dones)
    assert steps.index(("saving the judgments", 0, COMPACT_ROWS)) > max(
        i for i, (step, _, _) in enumerate(steps) if step.startswith("reading the judgments")
    )
