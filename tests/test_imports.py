"""Corpus and output import: exact text, all-or-nothing, errors that name the file and line."""

from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Corpus, Output, Sentence, System
from annotate.services import InputFile, corpus_import_text, outputs_import
from geceval.errors import GecInputError
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    owner = factories.user("res", "researcher")
    return factories.project(owner)


def counts():
    return (Corpus.objects.count(), Sentence.objects.count(), System.objects.count(), Output.objects.count())


def test_jfleg_layout_import_keeps_text_byte_for_byte(team):
    src = b"This are a test .  \nShe go home\n"
    corpus = corpus_import_text(
        project=team,
        name="t",
        source=InputFile("t.src", src),
        references=[
            InputFile("t.ref0", b"This is a test .\nShe goes home\n"),
            InputFile("t.ref1", b"\nShe went home.\n"),
        ],
    )
    texts = list(corpus.sentences.order_by("position").values_list("text", flat=True))
    assert ("\n".join(texts) + "\n").encode() == src
    ref1 = System.objects.get(corpus=corpus, name="ref1")
    assert ref1.kind == "reference"
    assert list(ref1.outputs.order_by("sentence__position").values_list("text", flat=True)) == [
        "",
        "She went home.",
    ]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"src": b"", "ref": b"x\n"}, "t.src: file is empty"),
        ({"src": b"a\nb\n", "ref": b"a\n"}, "t.ref0: has 1 lines but t.src has 2"),
        ({"src": b"ok\n\xff bad\n", "ref": b"a\nb\n"}, "t.src:2: not valid UTF-8"),
        ({"src": b"a\nb\x00\n", "ref": b"a\nb\n"}, "t.src:2: contains a NUL character"),
    ],
)
def test_bad_corpus_files_are_refused_and_nothing_is_saved(team, files, message):
    before = counts()
    with pytest.raises(GecInputError) as err:
        corpus_import_text(
            project=team,
            name="t",
            source=InputFile("t.src", files["src"]),
            references=[InputFile("t.ref0", files["ref"])],
        )
    assert message in str(err.value)
    assert counts() == before


def test_duplicate_corpus_name_is_refused_and_nothing_is_saved(team):
    corpus_import_text(project=team, name="t", source=InputFile("a.txt", b"one\n"))
    before = counts()
    with pytest.raises(GecInputError, match="already exists"):
        corpus_import_text(project=team, name="t", source=InputFile("b.txt", b"two\nthree\n"))
    assert counts() == before


def test_outputs_with_wrong_line_count_or_duplicate_name_leave_database_unchanged(team):
    corpus = corpus_import_text(project=team, name="t", source=InputFile("a.txt", b"one\ntwo\n"))
    outputs_import(corpus=corpus, system_name="sys", kind="model", file=InputFile("sys.txt", b"One\n\n"))
    before = counts()
    with pytest.raises(GecInputError, match=re.escape("bad.txt: has 3 lines but corpus 't' has 2")):
        outputs_import(
            corpus=corpus, system_name="other", kind="model", file=InputFile("bad.txt", b"a\nb\nc\n")
        )
    with pytest.raises(GecInputError, match="already exists"):
        outputs_import(corpus=corpus, system_name="sys", kind="model", file=InputFile("again.txt", b"a\nb\n"))
    with pytest.raises(GecInputError, match=re.escape("empty.txt: file is empty")):
        outputs_import(corpus=corpus, system_name="e", kind="model", file=InputFile("empty.txt", b""))
    with pytest.raises(GecInputError, match=re.escape("enc.txt:2: not valid UTF-8")):
        outputs_import(
            corpus=corpus, system_name="enc", kind="model", file=InputFile("enc.txt", b"a\n\xc3\n")
        )
    assert counts() == before


def test_empty_output_line_is_a_valid_output(team):
    corpus = corpus_import_text(project=team, name="t", source=InputFile("a.txt", b"one\ntwo\n"))
    system = outputs_import(
        corpus=corpus, system_name="s", kind="model", file=InputFile("s.txt", b"\nTwo.\n")
    )
    assert list(system.outputs.order_by("sentence__position").values_list("text", flat=True)) == ["", "Two."]


def test_import_commands_read_jfleg_layout_and_outputs(team, tmp_path, capsys):
    (tmp_path / "test.src").write_bytes(b"a b \nc d\n")
    (tmp_path / "test.ref0").write_bytes(b"A b\nC d\n")
    (tmp_path / "test.ref1").write_bytes(b"a B\nc D\n")
    (tmp_path / "sys.txt").write_bytes(b"A B\nC D\n")
    call_command(
        "import_corpus", str(tmp_path / "test"), "--format", "jfleg", "--name", "jf", "--domain", "essay"
    )
    call_command("import_outputs", "jf", "--system", "amu", str(tmp_path / "sys.txt"), "--kind", "model")
    corpus = Corpus.objects.get(name="jf")
    assert list(corpus.sentences.values_list("text", "domain")) == [("a b ", "essay"), ("c d", "essay")]
    assert sorted(corpus.systems.values_list("name", "kind")) == [
        ("amu", "model"),
        ("ref0", "reference"),
        ("ref1", "reference"),
    ]
    assert "imported 2 outputs of 'amu' (model)" in capsys.readouterr().out


def test_import_outputs_command_reports_the_bad_line_and_saves_nothing(team, tmp_path):
    corpus_import_text(project=team, name="jf", source=InputFile("a.txt", b"one\ntwo\n"))
    bad = tmp_path / "sys.txt"
    bad.write_bytes(b"one\n")
    before = counts()
    with pytest.raises(CommandError, match=re.escape("sys.txt: has 1 lines")):
        call_command("import_outputs", "jf", "--system", "x", str(bad))
    assert counts() == before
