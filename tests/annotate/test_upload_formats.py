"""Issue 40: uploads that say what they are. The browser upload offers every format ``import_corpus
--format`` reads, detects the format of what was uploaded and refuses a mismatch clearly (JFLEG's
dev.ref.m2 as a plain corpus once gave "Imported 13119 sentences" of S and A lines), states the size
limit, and an oversized upload gets the product's 413 page with DEBUG on too."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotate.formats.readers import sniff_format
from annotate.models import Corpus
from tests import factories
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db

M2 = (
    "S He go home .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
    "A 1 2|||R:VERB:TENSE|||went|||REQUIRED|||-NONE-|||1\n\n"
    "S She like cats .\nA 1 2|||R:VERB:SVA|||likes|||REQUIRED|||-NONE-|||0\n\n"
)


@pytest.fixture
def researcher():
    user = factories.user("res-formats", "researcher")
    project = factories.project(user)
    client = Client()
    client.force_login(user)
    return client, project


def _file(name: str, text: str) -> io.BytesIO:
    handle = io.BytesIO(text.encode())
    handle.name = name
    return handle


def _upload(client, project, fmt, source, references=(), name="c"):
    form = {"project": project.pk, "name": name, "format": fmt, "source": source, "language": "en"}
    if references:
        form["references"] = list(references)
    return client.post(reverse("corpus-upload"), form)


def test_the_sniffer_tells_m2_jsonl_and_text_apart():
    assert sniff_format(M2.splitlines()) == "m2"
    assert sniff_format(['{"source": "He go home ."}']) == "jsonl"
    assert sniff_format(["He go home .", "She like cats ."]) == "text"
    assert sniff_format(["S is a letter .", "A is another ."]) == "text"  # no ||| edit line
    assert sniff_format(["{not json", "x"]) == "text"


def test_the_upload_page_offers_every_command_line_format_and_states_the_limit(researcher, settings):
    client, _ = researcher
    settings.UPLOAD_MAX_BYTES = 50 * 1024 * 1024
    page = client.get(reverse("corpus-upload")).content.decode()
    for fmt in ("text", "jfleg", "m2", "jsonl", "gmeg"):
        assert f'<option value="{fmt}"' in page
    assert "An upload may hold at most <strong>50.0 MB</strong>" in page


def test_jflegs_m2_uploaded_as_a_plain_corpus_is_refused_and_imports_as_m2(researcher):
    client, project = researcher
    path = shared_path("jfleg", "EACL_exp", "m2converter", "dev.ref.m2")
    text = path.read_text(encoding="utf-8")
    refused = _upload(client, project, "text", _file("dev.ref.m2", text))
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "dev.ref.m2 looks like M2 (an S line, then A lines with |||), not one sentence a line" in page
    assert "choose the format M2" in page
    assert not Corpus.objects.exists()
    done = _upload(client, project, "m2", _file("dev.ref.m2", text), name="jfleg dev")
    assert done.status_code == 302, done.content.decode()[-2000:]
    corpus = Corpus.objects.get(name="jfleg dev")
    assert corpus.sentences.count() == 754  # JFLEG dev's sentences, not its 13,119 lines
    assert corpus.tokenized is True
    assert sorted(corpus.systems.values_list("name", flat=True)) == ["ref0", "ref1", "ref2", "ref3"]


def test_a_file_that_is_not_the_chosen_format_is_refused_with_what_it_looks_like(researcher):
    client, project = researcher
    refused = _upload(client, project, "m2", _file("plain.txt", "He go home .\nShe like cats .\n"))
    assert refused.status_code == 400
    assert "plain.txt is not M2 (an S line, then A lines with |||): it looks like plain text." in (
        refused.content.decode()
    )
    jsonl = _file(
        "c.jsonl", json.dumps({"text": "He go home .", "references": {"ref0": "He goes home ."}}) + "\n"
    )
    refused = _upload(client, project, "text", jsonl)
    assert "c.jsonl looks like JSON lines, not one sentence a line" in refused.content.decode()
    refused = _upload(client, project, "text", _file("s.txt", "He go home .\n"), [_file("ref0.m2", M2)])
    assert "ref0.m2 looks like M2" in refused.content.decode()
    assert not Corpus.objects.exists()


def test_the_other_formats_import_from_the_browser(researcher):
    client, project = researcher
    assert _upload(client, project, "m2", _file("small.m2", M2), name="m2").status_code == 302
    m2 = Corpus.objects.get(name="m2")
    assert list(m2.sentences.values_list("text", flat=True)) == ["He go home .", "She like cats ."]
    row = {
        "text": "He go home .",
        "references": {"ref0": "He goes home ."},
        "outputs": {"sys": "He went home ."},
    }
    jsonl = _file("c.jsonl", json.dumps(row) + "\n")
    assert _upload(client, project, "jsonl", jsonl, name="jsonl").status_code == 302
    assert sorted(Corpus.objects.get(name="jsonl").systems.values_list("name", flat=True)) == ["ref0", "sys"]
    folder = [_file("ref0", "He goes home .\n"), _file("amu", "He went home .\n")]
    response = _upload(client, project, "gmeg", _file("source", "He go home .\n"), folder, name="gmeg")
    assert response.status_code == 302, response.content.decode()[-2000:]
    systems = dict(Corpus.objects.get(name="gmeg").systems.values_list("name", "kind"))
    assert systems == {"ref0": "reference", "amu": "model"}
    refused = _upload(client, project, "jfleg", _file("test.src", "He go home .\n"), name="no refs")
    assert "JFLEG needs its reference files" in refused.content.decode()


def test_an_oversized_upload_gets_the_413_page_with_debug_on(researcher, settings):
    client, project = researcher
    settings.DEBUG = True
    settings.UPLOAD_MAX_BYTES = 4000
    big = _file("big.txt", "He go home .\n" * 2000)
    response = _upload(client, project, "text", big)
    assert response.status_code == 413
    page = response.content.decode()
    assert "The upload is larger than the limit of 3.9 KB (UPLOAD_MAX_BYTES)." in page
    assert "Traceback" not in page and "UploadTooLarge" not in page
    assert not Corpus.objects.exists()
