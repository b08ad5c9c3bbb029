"""Corpus import/export in every layout: exact bytes, round trips, and bad input that saves nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.readers import load, parse_jsonl
from annotate.formats.services import corpus_data, corpus_export, corpus_import
from annotate.formats.writers import write_m2
from annotate.models import Corpus, Output, Sentence, System
from annotate.services import InputFile, SentenceRecord
from geceval.errors import GecInputError
from tests import factories
from tests.shared_data import shared_path

pytestmark = pytest.mark.django_db

SRC = ["He go to school yesterday . ", "Thé cat sleep .", "OK ."]
REF0 = ["He went to school yesterday .", "Thé cat sleeps .", "OK ."]
REF1 = ["He goes to school yesterday . ", "The cat sleeps .", ""]


def write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(x + "\n" for x in lines).encode())
    return path


def researcher(username: str = "res"):
    """A researcher without a password (hashing one costs ~0.6 s a test)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username=username, password=None)
    user.groups.add(Group.objects.get(name="researcher"))
    return user


@pytest.fixture
def project():
    return factories.project(researcher())


def db_counts() -> tuple[int, int, int, int]:
    return (Corpus.objects.count(), Sentence.objects.count(), System.objects.count(), Output.objects.count())


def same_corpus(a: CorpusData, b: CorpusData) -> None:
    assert [vars(s) for s in a.sentences] == [vars(s) for s in b.sentences]
    key = lambda d: sorted((s.name, s.kind, s.lines) for s in d.systems)  # noqa: E731
    assert key(a) == key(b)


# -- JFLEG ------------------------------------------------------------------------------------


def test_jfleg_import_then_export_gives_byte_identical_files(project, tmp_path):
    write(tmp_path / "in" / "tiny.src", SRC)
    write(tmp_path / "in" / "tiny.ref0", REF0)
    write(tmp_path / "in" / "tiny.ref1", REF1)
    call_command("import_corpus", str(tmp_path / "in" / "tiny"), format="jfleg", name="tiny", tokenized=True)
    corpus = Corpus.objects.get(name="tiny")
    assert list(corpus.sentences.values_list("text", flat=True)) == SRC  # trailing space kept
    assert sorted(corpus.systems.values_list("name", "kind")) == [
        ("ref0", "reference"),
        ("ref1", "reference"),
    ]
    call_command("export_corpus", "tiny", format="jfleg", out=str(tmp_path / "out"))
    for suffix in ("src", "ref0", "ref1"):
        assert (tmp_path / "out" / f"tiny.{suffix}").read_bytes() == (
            tmp_path / "in" / f"tiny.{suffix}"
        ).read_bytes()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["tiny.ref0", "tiny.ref1", "tiny.src"]


def test_jfleg_test_set_round_trip_is_byte_identical(project, tmp_path):
    folder = shared_path("jfleg", "test")
    call_command("import_corpus", str(folder / "test"), format="jfleg", name="test", tokenized=True)
    call_command("export_corpus", "test", format="jfleg", out=str(tmp_path))
    for suffix in ("src", "ref0", "ref1", "ref2", "ref3"):
        assert (tmp_path / f"test.{suffix}").read_bytes() == (folder / f"test.{suffix}").read_bytes(), suffix
    assert Sentence.objects.filter(corpus__name="test").count() == 747


# -- bad input leaves the database unchanged ------------------------------------------------------


def jfleg_files(tmp_path: Path, ref1: bytes | None = None, src: bytes | None = None) -> str:
    write(tmp_path / "c.src", SRC)
    write(tmp_path / "c.ref0", REF0)
    if src is not None:
        (tmp_path / "c.src").write_bytes(src)
    (tmp_path / "c.ref1").write_bytes(ref1 if ref1 is not None else "".join(x + "\n" for x in REF1).encode())
    return str(tmp_path / "c")


@pytest.mark.parametrize(
    ("ref1", "src", "message"),
    [
        (b"one line\n", None, r"c\.ref1: has 1 lines but .*c\.src has 3"),
        (b"fine\n\xff bad\nthird\n", None, r"c\.ref1:2: not valid UTF-8"),
        (None, b"", r"c\.src: file is empty"),
        (None, b"a\x00b\nx\ny\n", r"c\.src:1: contains a NUL"),
    ],
)
def test_a_bad_jfleg_file_names_file_and_line_and_saves_nothing(project, tmp_path, ref1, src, message):
    prefix = jfleg_files(tmp_path, ref1, src)
    before = db_counts()
    with pytest.raises(CommandError, match=message):
        call_command("import_corpus", prefix, format="jfleg", name="c")
    assert db_counts() == before


def test_a_duplicate_corpus_name_is_refused_and_saves_nothing(project, tmp_path):
    prefix = jfleg_files(tmp_path)
    call_command("import_corpus", prefix, format="jfleg", name="c")
    before = db_counts()
    with pytest.raises(CommandError, match="already exists"):
        call_command("import_corpus", prefix, format="jfleg", name="c")
    assert db_counts() == before


def test_a_failure_while_saving_systems_rolls_back_the_corpus(project, monkeypatch):
    from annotate.models import Output

    def failing(objs, **kwargs):  # the outputs fail after the corpus, sentences and systems were saved
        raise GecInputError("disk full")

    monkeypatch.setattr(Output.objects, "bulk_create", failing)
    data = CorpusData(
        [SentenceRecord("a ."), SentenceRecord("b .")],
        [SystemData("ref0", "reference", ["A .", "B ."]), SystemData("ref1", "reference", ["a .", "b ."])],
    )
    before = db_counts()
    with pytest.raises(GecInputError, match="disk full"):
        corpus_import(project=project, name="x", data=data)
    assert db_counts() == before


M2_TEXT = (
    "S This are a sentence .\n"
    "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0\n"
    "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||1\n"
    "A 3 4|||R:NOUN|||test|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S Fine .\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    "A 0 1|||R:ADJ|||Good|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S He go home at  night .\n"
    "A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
    "A 3 4|||U:PREP||||||REQUIRED|||-NONE-|||0\n"
    "A 5 5|||M:ADV|||late|||REQUIRED|||-NONE-|||0\n"
    "A 2 3|||UNK|||home|||REQUIRED|||-NONE-|||1\n"
    "\n"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("S a b .\nA 1 x|||R:NOUN|||c|||REQUIRED|||-NONE-|||0\n\n", r"bad\.m2:2: bad span"),
        ("S a b .\nA 2 1|||R:NOUN|||c|||REQUIRED|||-NONE-|||0\n\n", r"bad\.m2:2: span 2 1 is not a span"),
        ("S a .\n\nS b .\nQ what\n", r"bad\.m2:4: line starts with 'Q "),
        ("A 0 1|||R|||c|||REQUIRED|||-NONE-|||0\n", r"bad\.m2:1: A line before any S line"),
        ("", r"bad\.m2: file is empty"),
    ],
)
def test_malformed_m2_names_the_line_and_saves_nothing(project, tmp_path, text, message):
    (tmp_path / "bad.m2").write_text(text)
    before = db_counts()
    with pytest.raises(CommandError, match=message):
        call_command("import_corpus", str(tmp_path / "bad.m2"), format="m2", name="bad")
    assert db_counts() == before


GOOD_JSON = {"text": "a .", "references": {"ref0": "A ."}}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([json.dumps(GOOD_JSON), '{"text": "b ."'], r"bad\.jsonl:2: not valid JSON"),
        ([json.dumps(GOOD_JSON), "[1, 2]"], r"bad\.jsonl:2: each line must be a JSON object"),
        ([json.dumps(GOOD_JSON), json.dumps({"text": "b ."})], r"bad\.jsonl:2: names references \[\]"),
        ([json.dumps({"txt": "a"})], r"bad\.jsonl:1: unknown field\(s\) \['txt'\]"),
        ([json.dumps({"text": "a\nb"})], r"bad\.jsonl:1: text contains a newline"),
        ([json.dumps({"text": "a", "paragraph_position": -1})], r"bad\.jsonl:1: paragraph_position"),
        (
            [json.dumps(GOOD_JSON), json.dumps({"text": 3, "references": {"ref0": "x"}})],
            r"bad\.jsonl:2: text must be a string",
        ),
        ([json.dumps(GOOD_JSON), ""], r"bad\.jsonl:2: not valid JSON"),
    ],
)
def test_malformed_jsonl_names_the_line_and_saves_nothing(project, tmp_path, lines, message):
    write(tmp_path / "bad.jsonl", lines)
    before = db_counts()
    with pytest.raises(CommandError, match=message):
        call_command("import_corpus", str(tmp_path / "bad.jsonl"), format="jsonl", name="bad")
    assert db_counts() == before


def test_text_import_keeps_lines_and_domain(project, tmp_path):
    write(tmp_path / "s.txt", SRC)
    call_command("import_corpus", str(tmp_path / "s.txt"), format="text", name="plain", domain="essays")
    assert list(Sentence.objects.filter(corpus__name="plain").values_list("text", "domain")) == [
        (t, "essays") for t in SRC
    ]
    assert not System.objects.filter(corpus__name="plain").exists()


def test_a_too_long_domain_is_refused_with_the_field_named_and_saves_nothing(project, tmp_path):
    write(tmp_path / "s.txt", SRC)
    before = db_counts()
    with pytest.raises(CommandError) as refused:
        call_command("import_corpus", str(tmp_path / "s.txt"), format="text", name="plain", domain="d" * 101)
    assert str(refused.value) == "plain:1: domain is longer than 100 characters or has a NUL"
    assert db_counts() == before


# -- GMEG -----------------------------------------------------------------------------------------


def gmeg_folder(root: Path, domain: str, n: int = 0) -> Path:
    folder = root / domain
    write(folder / "source", [f"{s} {n}" for s in SRC])
    write(folder / "ref0", REF0)
    write(folder / "ref1", REF1)
    write(folder / "amu", ["He goes to school yesterday .", "The cat sleep .", "OK ."])
    write(folder / "source+error", ["He go to to school yesterday .", "Thé cat sleep sleep .", "O K ."])
    return folder


def test_gmeg_folder_imports_systems_with_kinds_and_exports_byte_identical(project, tmp_path):
    folder = gmeg_folder(tmp_path / "in", "fce")
    call_command("import_corpus", str(folder), format="gmeg", name="g")
    corpus = Corpus.objects.get(name="g")
    assert set(corpus.sentences.values_list("domain", flat=True)) == {"fce"}
    assert sorted(corpus.systems.values_list("name", "kind")) == [
        ("amu", "model"),
        ("ref0", "reference"),
        ("ref1", "reference"),
        ("source+error", "source+error"),
    ]
    call_command("export_corpus", "g", format="gmeg", out=str(tmp_path / "out"))
    out = tmp_path / "out" / "fce"
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in folder.iterdir())
    for p in folder.iterdir():
        assert (out / p.name).read_bytes() == p.read_bytes(), p.name
    # and importing the export reproduces the corpus
    again = corpus_import(project=project, name="g2", data=load(str(out), "gmeg"))
    same_corpus(corpus_data(corpus), corpus_data(again))


def test_a_folder_of_gmeg_domains_is_one_corpus_in_domain_name_order(project, tmp_path):
    gmeg_folder(tmp_path / "dev", "wiki", 2)
    gmeg_folder(tmp_path / "dev", "fce", 1)
    corpus = corpus_import(project=project, name="dev", data=load(str(tmp_path / "dev"), "gmeg"))
    rows = list(corpus.sentences.order_by("position").values_list("domain", "text"))
    assert [d for d, _ in rows] == ["fce"] * 3 + ["wiki"] * 3
    assert rows[0][1].endswith(" 1") and rows[3][1].endswith(" 2")
    files = corpus_export(corpus, fmt="gmeg")
    assert files["wiki/source"] == (tmp_path / "dev" / "wiki" / "source").read_bytes()
    assert files["fce/amu"] == (tmp_path / "dev" / "fce" / "amu").read_bytes()


def test_gmeg_domains_with_different_systems_are_refused(project, tmp_path):
    gmeg_folder(tmp_path / "dev", "fce")
    (gmeg_folder(tmp_path / "dev", "wiki") / "amu").unlink()
    with pytest.raises(GecInputError, match=r"wiki: holds systems"):
        load(str(tmp_path / "dev"), "gmeg")


# -- M2 ------------------------------------------------------------------------------------------


def test_m2_import_makes_one_reference_per_annotator_and_exports_the_same_file(project, tmp_path):
    (tmp_path / "in.m2").write_text(M2_TEXT)
    call_command("import_corpus", str(tmp_path / "in.m2"), format="m2", name="conll")
    corpus = Corpus.objects.get(name="conll")
    assert corpus.tokenized
    assert list(corpus.sentences.values_list("text", flat=True)) == [
        "This are a sentence .",
        "Fine .",
        "He go home at  night .",
    ]
    refs = {
        s.name: list(s.outputs.order_by("sentence__position").values_list("text", flat=True))
        for s in corpus.systems.all()
    }
    assert refs == {
        "ref0": ["This is a sentence .", "Fine .", "He goes home night late ."],
        "ref1": ["This is a test .", "Good .", "He go home at night ."],
    }
    call_command("export_corpus", "conll", format="m2", out=str(tmp_path / "out"))
    assert (tmp_path / "out" / "conll.m2").read_text() == M2_TEXT


def test_m2_import_ignores_an_edit_past_the_end_as_m2scorer_warns_once_and_exports_it_verbatim(
    project, tmp_path
):
    # issue 34: 5 of the 7 grammaticality-metrics reference files have such edits; m2scorer keeps only
    # edits with 0 <= start, end <= tokens, and the annotator stays present.
    text = (
        "S He go home .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n"
        "A 9 9|||M:ADV|||now|||REQUIRED|||-NONE-|||1\n\n"
        "S Fine .\nA 4 6|||R:OTHER|||x|||REQUIRED|||-NONE-|||1\n\n"
    )
    (tmp_path / "in.m2").write_text(text)
    err = io.StringIO()
    call_command("import_corpus", str(tmp_path / "in.m2"), format="m2", name="oor", stderr=err)
    assert err.getvalue().splitlines() == [
        f"warning: {tmp_path / 'in.m2'}: 2 edit(s) past the end of their sentence, ignored as m2scorer "
        "ignores them (their annotators stay present; ERRANT counts them, as errant_compare does)"
    ]
    corpus = Corpus.objects.get(name="oor")
    refs = {
        s.name: list(s.outputs.order_by("sentence__position").values_list("text", flat=True))
        for s in corpus.systems.all()
    }
    assert refs == {"ref0": ["He goes home .", "Fine ."], "ref1": ["He go home .", "Fine ."]}
    call_command("export_corpus", "oor", format="m2", out=str(tmp_path / "out"))
    assert (tmp_path / "out" / "oor.m2").read_text() == text


@pytest.mark.shared
def test_every_grammaticality_metrics_reference_m2_imports(project):
    folder = shared_path("grammaticality-metrics", "references", "EXPFLUENCY.m2").parent
    for ref in ("EXPFLUENCY", "TURKMIN"):
        data = load(str(folder / f"{ref}.m2"), "m2")
        assert len(data.sentences) == 1312 and len(data.references()) == 2
        assert len(data.warnings) == 1 and "past the end of their sentence" in data.warnings[0]


def test_m2_export_untyped_aligns_by_levenshtein_with_type_x(project):
    data = CorpusData(
        [SentenceRecord("He go home ."), SentenceRecord("Fine .")],
        [SystemData("ref0", "reference", ["He goes home now .", "Fine ."])],
    )
    text = write_m2(data, "u", untyped=True)["u.m2"].decode()
    assert text == (
        "S He go home .\nA 1 2|||X|||goes|||REQUIRED|||-NONE-|||0\nA 3 3|||X|||now|||REQUIRED|||-NONE-|||0\n\n"
        "S Fine .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
    )


def test_m2_export_typed_by_errant_and_extra_references_get_the_next_annotator_id(project, tmp_path):
    (tmp_path / "in.m2").write_text(M2_TEXT)
    data = load(str(tmp_path / "in.m2"), "m2")
    data.systems.append(SystemData("rw-a", "reference", ["This is a sentence .", "Fine .", "He goes home ."]))
    corpus = corpus_import(project=project, name="ext", data=data)
    text = corpus_export(corpus, fmt="m2")["ext.m2"].decode()
    blocks = text.split("\n\n")
    assert blocks[0].splitlines() == [
        "S This are a sentence .",
        "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||0",
        "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||1",
        "A 3 4|||R:NOUN|||test|||REQUIRED|||-NONE-|||1",
        "A 1 2|||R:VERB:SVA|||is|||REQUIRED|||-NONE-|||2",
    ]
    assert blocks[1].splitlines()[-1] == "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||2"
    assert "A 3 5|||U:OTHER||||||REQUIRED|||-NONE-|||2" in blocks[2].splitlines()
    # untyped: every reference aligned again, stored types dropped
    untyped = corpus_export(corpus, fmt="m2", untyped=True)["ext.m2"].decode()
    assert "R:VERB:SVA" not in untyped and "A 1 2|||X|||is|||REQUIRED|||-NONE-|||0" in untyped


def test_m2_round_trip_through_a_jfleg_corpus_reproduces_the_references(project, tmp_path):
    prefix = jfleg_files(tmp_path)
    corpus = corpus_import(project=project, name="j", data=load(prefix, "jfleg"))
    files = corpus_export(corpus, fmt="m2", untyped=True)
    (tmp_path / "j.m2").write_bytes(files["j.m2"])
    back = load(str(tmp_path / "j.m2"), "m2")
    norm = lambda xs: [" ".join(x.split()) for x in xs]  # noqa: E731
    assert [s.text for s in back.sentences] == norm(SRC)
    assert [r.lines for r in back.references()] == [norm(REF0), norm(REF1)]


# -- JSONL ---------------------------------------------------------------------------------------


def test_jsonl_round_trip_keeps_every_field(project, tmp_path):
    data = CorpusData(
        [
            SentenceRecord("a  b ", "wiki", "doc1", 0, {"source_id": 7, "note": "é"}),
            SentenceRecord("c", "wiki", "doc1", 1, {}),
        ],
        [
            SystemData("ref0", "reference", ["A b.", "C."]),
            SystemData("amu", "model", ["a b", ""]),
            SystemData("source+error", "source+error", ["a a b", "cc"]),
        ],
    )
    corpus = corpus_import(project=project, name="j", data=data)
    files = corpus_export(corpus, fmt="jsonl")
    first = json.loads(files["j.jsonl"].decode().splitlines()[0])
    assert first == {
        "text": "a  b ",
        "domain": "wiki",
        "document_id": "doc1",
        "paragraph_position": 0,
        "metadata": {"source_id": 7, "note": "é"},
        "references": {"ref0": "A b."},
        "outputs": {"amu": "a b", "source+error": "a a b"},
        "output_kinds": {"source+error": "source+error"},
    }
    again = corpus_import(
        project=project, name="j2", data=parse_jsonl(InputFile("j.jsonl", files["j.jsonl"]))
    )
    same_corpus(corpus_data(corpus), corpus_data(again))
    assert corpus_export(again, fmt="jsonl")["j2.jsonl"] == files["j.jsonl"]


def test_export_of_an_unknown_corpus_or_untyped_non_m2_is_a_command_error(project, tmp_path):
    with pytest.raises(CommandError, match="no corpus named 'nope'"):
        call_command("export_corpus", "nope", format="jfleg", out=str(tmp_path))
    corpus_import(project=project, name="k", data=load(jfleg_files(tmp_path), "jfleg"))
    with pytest.raises(CommandError, match="--untyped applies to --format m2 only"):
        call_command("export_corpus", "k", format="jfleg", untyped=True, out=str(tmp_path))


@pytest.mark.parametrize("fmt", ["gmeg", "m2", "text", "jsonl"])
@pytest.mark.parametrize(
    ("content", "message"), [(b"", "file is empty"), (b"S ok\n\xc3(\n", ":2: not valid UTF-8")]
)
def test_every_importer_refuses_empty_or_non_utf8_files_and_saves_nothing(
    project, tmp_path, fmt, content, message
):
    if fmt == "jsonl":  # files stream: the first fault read is the one named, so line 1 must be JSON
        content = content.replace(b"S ok", b'{"text": "ok"}')
    if fmt == "gmeg":
        folder = gmeg_folder(tmp_path, "fce")
        (folder / "amu").write_bytes(content)
        path, where = str(folder), "amu"
    else:
        path = where = str(tmp_path / f"bad.{fmt}")
        Path(path).write_bytes(content)
    before = db_counts()
    with pytest.raises(CommandError) as err:
        call_command("import_corpus", path, format=fmt, name="bad")
    assert where in str(err.value)
    if fmt == "gmeg" and not content:
        assert "has 0 lines but" in str(err.value)  # a system file may hold empty lines, not none
    else:
        assert message in str(err.value)
    assert db_counts() == before


def test_a_gmeg_system_with_a_missing_line_is_refused_naming_it(project, tmp_path):
    folder = gmeg_folder(tmp_path, "fce")
    write(folder / "transformer", ["only", "two"])
    before = db_counts()
    with pytest.raises(CommandError, match=r"fce/transformer: has 2 lines but .*fce/source has 3"):
        call_command("import_corpus", str(folder), format="gmeg", name="bad")
    assert db_counts() == before


def test_gmeg_dev_fce_round_trip_is_byte_identical(project, tmp_path):
    folder = shared_path("GMEG", "data", "dev", "fce")
    call_command("import_corpus", str(folder), format="gmeg", name="fce-dev")
    call_command("export_corpus", "fce-dev", format="gmeg", out=str(tmp_path))
    names = sorted(p.name for p in folder.iterdir())
    assert sorted(p.name for p in (tmp_path / "fce").iterdir()) == names
    for name in names:
        assert (tmp_path / "fce" / name).read_bytes() == (folder / name).read_bytes(), name


def test_stored_m2_edits_that_no_longer_fit_the_sentence_are_annotated_afresh(project):
    data = CorpusData(
        [
            SentenceRecord(
                "He go .",
                metadata={"m2": {"edits": ["A 7 9|||R:X|||y|||REQUIRED|||-NONE-|||0"], "annotators": [0]}},
            )
        ],
        [SystemData("ref0", "reference", ["He goes ."])],
    )
    assert (
        write_m2(data, "x", untyped=False)["x.m2"].decode()
        == "S He go .\nA 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0\n\n"
    )


@pytest.mark.parametrize("name", ["NUCLE", "BN"])
def test_conll_2014_m2_files_round_trip_byte_identical_through_the_database(project, tmp_path, name):
    """CoNLL files leave an annotator without corrections out of a block; that is kept too."""
    path = shared_path("grammaticality-metrics", "references", f"{name}.m2")
    call_command("import_corpus", str(path), format="m2", name=name)
    assert System.objects.filter(corpus__name=name).count() == {"NUCLE": 2, "BN": 10}[name]
    call_command("export_corpus", name, format="m2", out=str(tmp_path))
    assert (tmp_path / f"{name}.m2").read_bytes() == path.read_bytes()
