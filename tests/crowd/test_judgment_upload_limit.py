"""Judgment files have their own upload bound, JUDGMENT_UPLOAD_MAX_BYTES (issue 23): a WMT CSV or
PRWS CSV over IMPORT_COMPACT_BYTES is streamed, never held whole, so "a million judgments import
from the web" must not stop at UPLOAD_MAX_BYTES, which stays the bound of every other upload (corpora
and outputs are read whole). Files from bench/make_million.py, at small sizes and small bounds."""

from __future__ import annotations

import csv
import gzip
import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotate.jobs.models import ImportJob
from annotate.models import Corpus, System
from bench.make_million import write_pairs, write_ratings
from ranking.models import Campaign, ImportedEntry
from tests import factories
from tests.crowd.test_import import mturk_csv

pytestmark = pytest.mark.django_db

UPLOAD_MAX, JUDGMENT_MAX = 16_000, 64_000
COMMON = {"systems": 5, "sentences": 200, "judges": 20, "seed": 0}


@pytest.fixture
def researcher(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.UPLOAD_MAX_BYTES = UPLOAD_MAX
    settings.JUDGMENT_UPLOAD_MAX_BYTES = JUDGMENT_MAX
    settings.IMPORT_INLINE_MAX_BYTES = 4_000
    settings.IMPORT_COMPACT_BYTES = 10_000
    user = factories.user("res", "researcher", password="res-pass-123")
    project = factories.project(user)
    client.login(username="res", password="res-pass-123")
    return project


def made(tmp_path, kind: str, n: int) -> bytes:
    path = tmp_path / f"{kind}-{n}.csv"
    (write_pairs if kind == "pairs" else write_ratings)(path, **{kind: n}, **COMMON)
    return path.read_bytes()


def upload(name: str, data: bytes) -> io.BytesIO:
    f = io.BytesIO(data)
    f.name = name
    return f


def kept(settings) -> list:
    return [p for p in settings.MEDIA_ROOT.rglob("*") if p.is_file()] if settings.MEDIA_ROOT.exists() else []


def post_judgments(client, project, data: bytes, fmt: str, name: str = "old"):
    fields = {"file": upload("results.csv", data), "format": fmt, "name": name, "project": project.pk}
    return client.post(reverse("crowd-import"), fields)


def expected(data: bytes, kind: str) -> tuple[int, int, int, int]:
    """(items, workers, judgments, entries) read from the file with the csv module."""
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    if kind == "pairs":
        return (
            len({r["segmentId"] for r in rows}),
            len({r["judgeID"] for r in rows}),
            len(rows),
            2 * len(rows),
        )
    screens = {(r["item"], r["worker"]) for r in rows}
    return len({r["item"] for r in rows}), len({r["worker"] for r in rows}), len(screens), len(rows)


@pytest.mark.parametrize(("kind", "fmt", "n"), [("pairs", "wmt-csv", 1000), ("ratings", "prws-csv", 1000)])
def test_a_judgment_file_over_upload_max_bytes_within_its_own_bound_imports_in_the_background(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks, kind, fmt, n
):
    data = made(tmp_path, kind, n)
    assert UPLOAD_MAX < len(data) <= JUDGMENT_MAX
    with django_capture_on_commit_callbacks(execute=True):
        answer = post_judgments(client, researcher, data, fmt)
    job = ImportJob.objects.get(kind="judgments")
    assert answer.status_code == 302 and answer.url == reverse("import-job", args=[job.pk])
    assert job.status == "done", job.message
    items, workers, judgments, entries = expected(data, kind)
    assert job.message.startswith(f"Imported: items: {items}; workers: {workers}; judgments: {judgments};")
    campaign = Campaign.objects.get(name="old", origin="imported")
    assert ImportedEntry.objects.filter(campaign=campaign).count() == entries  # the compact form
    assert kept(settings) == []


def test_the_same_size_as_a_corpus_or_outputs_upload_is_refused_with_413(
    client, researcher, settings, tmp_path
):
    data = made(tmp_path, "pairs", 1000)
    assert UPLOAD_MAX < len(data) <= JUDGMENT_MAX
    answer = client.post(
        reverse("corpus-upload"),
        {"project": researcher.pk, "name": "big", "language": "en", "source": upload("src.txt", data)},
    )
    assert answer.status_code == 413
    assert (
        "larger than the limit of 15.6 KB (UPLOAD_MAX_BYTES). Nothing was saved." in answer.content.decode()
    )
    corpus, _ = factories.corpus_with_systems(researcher, sources=["He go home ."], systems={})
    answer = client.post(
        reverse("corpus-detail", args=[corpus.pk]),
        {"system": "amu", "kind": "model", "file": upload("amu.txt", data)},
    )
    assert answer.status_code == 413
    assert "(UPLOAD_MAX_BYTES)" in answer.content.decode()
    assert list(Corpus.objects.values_list("name", flat=True)) == ["c1"]
    assert not System.objects.filter(name="amu").exists() and not ImportJob.objects.exists()
    assert kept(settings) == []


def test_a_judgment_upload_over_its_bound_is_refused_with_413_naming_it_and_nothing_is_saved(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    data = made(tmp_path, "pairs", 2000)
    assert len(data) > JUDGMENT_MAX
    with django_capture_on_commit_callbacks(execute=True) as queued:
        answer = post_judgments(client, researcher, data, "wmt-csv")
    assert answer.status_code == 413 and queued == []
    page = answer.content.decode()
    assert "larger than the limit of 62.5 KB (JUDGMENT_UPLOAD_MAX_BYTES). Nothing was saved." in page
    assert not ImportJob.objects.exists() and not Campaign.objects.exists() and not Corpus.objects.exists()
    assert kept(settings) == [] and "crowd_import" not in client.session


def test_a_file_read_whole_keeps_upload_max_bytes_on_the_judgment_page(
    client, researcher, settings, django_capture_on_commit_callbacks
):
    """An MTurk batch is parsed whole (objects per judgment): the larger bound is only for files
    that stream, and the form says so before anything is kept."""
    data = mturk_csv()
    settings.UPLOAD_MAX_BYTES = len(data) - 1
    with django_capture_on_commit_callbacks(execute=True):
        answer = post_judgments(client, researcher, data, "mturk-csv")
    assert answer.status_code == 400
    assert (
        f"a mturk-csv file is read whole, so it may be at most {len(data) - 1} bytes (UPLOAD_MAX_BYTES)"
        in (answer.content.decode())
    )
    assert not ImportJob.objects.exists() and not Campaign.objects.exists() and kept(settings) == []


def test_the_background_job_reads_a_gzip_judgment_file_within_the_judgment_bound(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    """A small gzip upload of a file past the bound fails its job with the reason; nothing is saved."""
    data = made(tmp_path, "pairs", 2000)
    packed = gzip.compress(data)
    assert settings.IMPORT_COMPACT_BYTES < len(packed) < UPLOAD_MAX < JUDGMENT_MAX < len(data)
    with django_capture_on_commit_callbacks(execute=True):
        post_judgments(client, researcher, packed, "wmt-csv")
    job = ImportJob.objects.get()
    assert job.status == "failed"
    assert (
        job.message
        == f"results.csv: decompresses to more than {JUDGMENT_MAX} bytes, the largest input allowed"
    )
    assert not Campaign.objects.exists() and not Corpus.objects.exists() and kept(settings) == []


def test_import_judgments_reads_a_judgment_file_with_the_judgment_bound(researcher, settings, tmp_path):
    within, past = tmp_path / "within.csv", tmp_path / "past.csv"
    within.write_bytes(made(tmp_path, "pairs", 1000))
    past.write_bytes(made(tmp_path, "pairs", 2000))
    assert UPLOAD_MAX < within.stat().st_size <= JUDGMENT_MAX < past.stat().st_size
    out = io.StringIO()
    call_command("import_judgments", str(within), format="wmt-csv", name="within", stdout=out)
    assert "judgments: 1000" in out.getvalue()
    assert ImportedEntry.objects.filter(campaign__name="within").count() == 2000
    with pytest.raises(CommandError) as caught:
        call_command("import_judgments", str(past), format="wmt-csv", name="past", stdout=io.StringIO())
    assert str(caught.value) == f"{past}: is larger than {JUDGMENT_MAX} bytes, the largest input allowed"
    assert not Campaign.objects.filter(name="past").exists()
    # read whole (--store full), the same file keeps UPLOAD_MAX_BYTES
    with pytest.raises(CommandError, match=f"is larger than {UPLOAD_MAX} bytes"):
        call_command("import_judgments", str(within), format="wmt-csv", name="full", store="full")
    assert not Campaign.objects.filter(name="full").exists()


def test_a_small_gzip_file_of_a_large_judgment_file_imports_in_the_compact_form(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    """The form is chosen by what the file holds: the 1M ratings of make_million gzip to 4.0 MB, under
    IMPORT_COMPACT_BYTES (5 MiB), and would otherwise be read whole into objects (gigabytes)."""
    from ranking.models import Rating

    data = made(tmp_path, "ratings", 1000)
    packed = gzip.compress(data)
    assert len(packed) < settings.IMPORT_COMPACT_BYTES < len(data)
    with django_capture_on_commit_callbacks(execute=True):
        post_judgments(client, researcher, packed, "prws-csv", name="web")
    job = ImportJob.objects.get()
    assert job.status == "done", job.message
    path = tmp_path / "ratings.csv.gz"
    path.write_bytes(packed)
    call_command("import_judgments", str(path), format="prws-csv", name="cli", stdout=io.StringIO())
    for name in ("web", "cli"):
        assert ImportedEntry.objects.filter(campaign__name=name).count() == 1000
    assert not Rating.objects.exists()


def test_a_large_damaged_gzip_upload_goes_to_the_background_not_the_preview(
    client, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    """What a damaged gzip file holds cannot be told: its stored size decides, so a large one is not
    read whole inside the request; its job fails with the reason and nothing is saved."""
    damaged = gzip.compress(b"")[:10] + bytes(range(256)) * 20  # a gzip header, then no deflate stream
    assert len(damaged) > settings.IMPORT_INLINE_MAX_BYTES
    with django_capture_on_commit_callbacks(execute=True):
        answer = post_judgments(client, researcher, damaged, "wmt-csv")
    job = ImportJob.objects.get()
    assert answer.status_code == 302 and answer.url == reverse("import-job", args=[job.pk])
    assert job.status == "failed" and job.message.startswith("results.csv: "), job.message
    assert not Campaign.objects.exists() and not Corpus.objects.exists() and kept(settings) == []
