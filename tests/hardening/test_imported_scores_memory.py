"""Imported metric scores within the upload memory bound (issue 36, the last reader read whole).

``ranking.analysis.imported_scores`` parsed its file whole, up to ``UPLOAD_MAX_BYTES`` (50 MB after
decompression): a CSV of short rows became one Python list per row before any check. Now a CSV or
TSV streams (``geceval.metaeval.kobayashi2024.score_rows``) with the limits every upload has, at most
``IMPORTED_SCORES_MAX`` scores a file; a JSON file, parsed whole, is bounded by
``IMPORTED_SCORES_JSON_MAX_BYTES``. The upload runs in a fresh Python process that reads its own peak
resident size (``VmHWM``) before and after, as tests/hardening/test_upload_memory.py does, on the
test database (the corpus is made here).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from geceval.errors import GecInputError
from geceval.formats.judgments import RankingJudgment
from ranking.analysis.imported_scores import imported_scores_save
from ranking.analysis.models import ImportedScores
from tests import factories
from tests.celery_workers import database_url
from tests.processes import peak_memory_probe

BOUND_MB = settings.UPLOAD_MEMORY_MAX_BYTES / 2**20

_SETUP = r"""
from django.core.files.uploadedfile import SimpleUploadedFile
from annotate.models import Corpus
from geceval.errors import GecInputError
from ranking.analysis.imported_scores import imported_scores_save

corpus = Corpus.objects.get(pk=int(sys.argv[1]))
upload = SimpleUploadedFile("scores.csv.gz", open(sys.argv[2], "rb").read())  # what the view gets
"""


def _probe(corpus_id: int, path: Path) -> dict:
    return peak_memory_probe(
        _SETUP,
        'imported_scores_save(corpus=corpus, name="probe", source=upload, file_name=upload.name)',
        str(corpus_id),
        str(path),
        database_url=database_url(),
        label=path.name,
    )


def _corpus():
    _user, project = factories.researcher_and_project("scores-mem")
    corpus, _made = factories.corpus_with_systems(
        project,
        sources=[f"He go {i} ." for i in range(10)],
        systems={"a": [f"He goes {i} ." for i in range(10)], "b": [f"He went {i} ." for i in range(10)]},
    )
    return corpus


@pytest.mark.slow
def test_a_compact_many_lines_gzip_score_file_is_refused_within_the_memory_bound(
    tmp_path, transactional_db, real_postgres
):
    # 6,000,000 rows of "a,x,0.5" (48 MB decompressed, under UPLOAD_MAX_BYTES) in ~70 KB of gzip:
    # parsed whole, every row was a list of three strings before the first check
    path = tmp_path / "many.csv.gz"
    path.write_bytes(gzip.compress(b"system,item,score\n" + b"a,x,0.5\n" * 6_000_000, compresslevel=9))
    assert path.stat().st_size < 100_000
    corpus = _corpus()
    got = _probe(corpus.pk, path)
    assert got["error"].endswith(f"the file holds more than {settings.IMPORTED_SCORES_MAX} scores"), got
    assert got["growth_mb"] < BOUND_MB / 4, got
    assert got["seconds"] < 30, got
    assert not ImportedScores.objects.exists()


@pytest.mark.slow
def test_a_file_of_as_many_distinct_items_as_allowed_stays_within_the_memory_bound(
    tmp_path, transactional_db, real_postgres
):
    # the worst a file under the cap holds: IMPORTED_SCORES_MAX distinct items, each one remembered
    # (left out: the corpus has 10 sentences) to count them; then it is saved
    n = settings.IMPORTED_SCORES_MAX
    path = tmp_path / "distinct.csv.gz"
    rows = b"".join(b"a,item-%d,0.%d\n" % (i, i) for i in range(n - 1))
    path.write_bytes(gzip.compress(b"system,item,score\na,3,0.5\n" + rows))
    corpus = _corpus()
    got = _probe(corpus.pk, path)
    assert got["error"] == "", got
    assert got["growth_mb"] < BOUND_MB / 2, got
    saved = ImportedScores.objects.get()
    assert (saved.sentences, saved.left_out, saved.scores) == (1, n - 1, {"a": {"3": 0.5}})


@pytest.mark.django_db
def test_an_over_limit_score_file_is_refused_cleanly_and_the_saved_one_is_kept(client, settings):
    corpus = _corpus()
    first = imported_scores_save(corpus=corpus, name="SOME", source=b"system,item,score\na,1,0.25\na,2,0.5\n")
    settings.IMPORTED_SCORES_MAX = 3
    settings.IMPORTED_SCORES_JSON_MAX_BYTES = 64
    over = b"system,item,score\n" + b"".join(b"a,%d,0.75\n" % i for i in range(4))
    with pytest.raises(GecInputError, match=r"some\.csv\.gz: line 5: the file holds more than 3 scores"):
        imported_scores_save(
            corpus=corpus,
            name="SOME",
            source=SimpleUploadedFile("x", gzip.compress(over)),
            file_name="some.csv.gz",
        )
    big = json.dumps({"a": [0.125] * 20}).encode()
    with pytest.raises(GecInputError, match="a JSON score file is read whole: at most 64 bytes"):
        imported_scores_save(corpus=corpus, name="SOME", source=big)
    kept = ImportedScores.objects.get()
    assert (kept.pk, kept.scores, kept.sentences) == (first.pk, {"a": {"1": 0.25, "2": 0.5}}, 2)
    # the page says why, and still nothing changed
    user = corpus.project.owner
    campaign = factories.imported_campaign(
        corpus.project, "c", rankings=[RankingJudgment("0", "j0", (("a", 1), ("b", 2)))], corpus=corpus
    )
    client.force_login(user)
    answer = client.post(
        reverse("imported-scores-upload", args=[campaign.pk]),
        {"name": "SOME", "file": SimpleUploadedFile("some.csv", over, content_type="text/csv")},
    )
    assert answer.status_code == 400 and "the file holds more than 3 scores" in answer.content.decode()
    assert ImportedScores.objects.get().scores == {"a": {"1": 0.25, "2": 0.5}}


@pytest.mark.django_db
def test_unknown_systems_are_listed_without_holding_a_file_of_names():
    corpus = _corpus()
    names = b"system,score\n" + b"".join(b"s%d,0.5\n" % i for i in range(100_000))
    with pytest.raises(GecInputError, match=r"not systems of corpus 'c1': 's0', 's1', 's10', .* and more"):
        imported_scores_save(corpus=corpus, name="SOME", source=names)
    assert not ImportedScores.objects.exists()
