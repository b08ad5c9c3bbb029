"""The web and command-line imports read gzip (by magic bytes) within UPLOAD_MAX_BYTES, with no temp files."""

from __future__ import annotations

import gzip
import io
import re
import tempfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse

from annotate.models import Corpus, System
from crowd.importing import judgments_parse
from ranking.models import Campaign
from tests import factories
from tests.shared_data import REPO, shared_path

pytestmark = pytest.mark.django_db
MTURK_EXAMPLE = REPO / "docs" / "examples" / "mturk-batch-results.csv"


@pytest.fixture
def researcher():
    user = factories.user("res", "researcher")
    factories.project(user, "team")
    return user


def test_import_commands_read_gzipped_files(researcher, tmp_path):
    m2 = tmp_path / "gold.m2"  # compressed although the name does not say so
    m2.write_bytes(gzip.compress(b"S A b .\nA 0 1|||R:NOUN|||The|||REQUIRED|||-NONE-|||0\n\nS C d .\n"))
    call_command("import_corpus", str(m2), "--format", "m2", "--name", "g", stdout=io.StringIO())
    corpus = Corpus.objects.get(name="g")
    assert list(corpus.sentences.values_list("text", flat=True)) == ["A b .", "C d ."]
    out = tmp_path / "sys.txt.gz"
    out.write_bytes(gzip.compress(b"The b .\nC d .\n"))
    call_command("import_outputs", "g", "--system", "amu", str(out), stdout=io.StringIO())
    outputs = System.objects.get(name="amu").outputs.order_by("sentence__position")
    assert list(outputs.values_list("text", flat=True)) == ["The b .", "C d ."]
    batch = tmp_path / "batch.csv.gz"
    batch.write_bytes(gzip.compress(MTURK_EXAMPLE.read_bytes()))
    call_command("import_judgments", str(batch), "--format", "mturk-csv", "--name", "p", stdout=io.StringIO())
    assert Campaign.objects.get(name="p").screens.count() == 2


@override_settings(UPLOAD_MAX_BYTES=1000)
def test_a_command_refuses_a_file_decompressing_past_upload_max_bytes(researcher, tmp_path):
    call_command("import_corpus", str(_text(tmp_path, b"a\n")), "--format", "text", "--name", "t")
    big = tmp_path / "big.gz"
    big.write_bytes(gzip.compress(b"x\n" * 600))
    with pytest.raises(CommandError, match=re.escape(f"{big}: decompresses to more than 1000 bytes")):
        call_command("import_outputs", "t", "--system", "s", str(big))
    assert not System.objects.filter(name="s").exists()


def _text(tmp_path, data: bytes):
    path = tmp_path / "src.txt"
    path.write_bytes(data)
    return path


def test_web_corpus_upload_reads_a_gzipped_source(researcher, client):
    client.force_login(researcher)
    project = researcher.owned_projects.get()
    response = client.post(
        reverse("corpus-upload"),
        {
            "project": project.pk,
            "name": "up",
            "language": "en",
            "source": SimpleUploadedFile("src.txt", gzip.compress(b"one\ntwo\n")),
            "references": [SimpleUploadedFile("ref0.txt.gz", gzip.compress(b"One\nTwo\n"))],
        },
    )
    assert response.status_code == 302
    corpus = Corpus.objects.get(name="up")
    assert list(corpus.sentences.values_list("text", flat=True)) == ["one", "two"]


def test_web_judgment_import_says_when_a_gzipped_upload_is_too_large(researcher, client, settings):
    packed = gzip.compress(MTURK_EXAMPLE.read_bytes())
    # The upload itself is under the limit (over it, the stream is cut with a 413: config/uploads.py);
    # what it decompresses to is over it.
    limit = len(packed) + 10
    assert len(MTURK_EXAMPLE.read_bytes()) > limit
    settings.UPLOAD_MAX_BYTES = limit
    client.force_login(researcher)
    response = client.post(
        reverse("crowd-import"),
        {
            "file": SimpleUploadedFile("batch.csv", packed),
            "format": "mturk-csv",
            "name": "p",
            "project": researcher.owned_projects.get().pk,
        },
    )
    assert f"batch.csv: decompresses to more than {limit} bytes, the largest input allowed" in (
        response.content.decode()
    )
    assert not Campaign.objects.exists()


@pytest.mark.shared
@pytest.mark.parametrize(
    ("fmt", "parts"),
    [
        ("appraise-xml", ("gec-ranking", "data", "all_judgments.xml")),
        ("wmt-csv", ("jfleg", "EACL_exp", "mturk", "pairwise.csv")),
    ],
)
def test_judgment_readers_take_gzipped_bytes_without_a_temporary_file(monkeypatch, fmt, parts):
    data = shared_path(*parts).read_bytes()
    expected = judgments_parse(fmt=fmt, path_or_bytes=shared_path(*parts))

    def no_temp(*args, **kwargs):
        raise AssertionError("a reader wrote a temporary file")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", no_temp)
    parsed = judgments_parse(fmt=fmt, path_or_bytes=gzip.compress(data))
    assert parsed.judgments == expected.judgments
    assert len(parsed.judgments) > 100


@pytest.mark.shared
def test_jfleg_and_gmeg_layouts_import_from_gzipped_files(researcher, tmp_path):
    jfleg = shared_path("jfleg", "test")
    for name in ("test.src", "test.ref0", "test.ref1"):
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress((jfleg / name).read_bytes()))
    call_command(
        "import_corpus", str(tmp_path / "test"), "--format", "jfleg", "--name", "jf", stdout=io.StringIO()
    )
    corpus = Corpus.objects.get(name="jf")
    first = (jfleg / "test.src").read_bytes().decode().split("\n")[0]
    assert corpus.sentences.count() == 747
    assert corpus.sentences.get(position=0).text == first
    assert sorted(corpus.systems.values_list("name", flat=True)) == ["ref0", "ref1"]

    fce = shared_path("GMEG", "data", "dev", "fce")
    folder = tmp_path / "fce"
    folder.mkdir()
    for name in ("source", "ref0", "amu"):
        (folder / f"{name}.gz").write_bytes(gzip.compress((fce / name).read_bytes()))
    call_command("import_corpus", str(folder), "--format", "gmeg", "--name", "fce", stdout=io.StringIO())
    corpus = Corpus.objects.get(name="fce")
    assert sorted(corpus.systems.values_list("name", "kind")) == [("amu", "model"), ("ref0", "reference")]
    assert corpus.sentences.count() == len((fce / "source").read_bytes().decode().splitlines())
    assert set(corpus.sentences.values_list("domain", flat=True)) == {"fce"}
