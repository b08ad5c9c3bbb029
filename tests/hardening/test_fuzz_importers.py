"""Fuzz every importer (issue 9): malformed files give a clear error and leave the database unchanged.

Each reader gets files made by mutating a small valid seed of its format (bytes flipped, inserted and
cut; lines duplicated, dropped and swapped; separators, markup, NUL, CR, BOM, invalid UTF-8 spliced
in) and random bytes. A reader may accept what it is given (then its result has the right type) or
raise ``GecInputError``; any other exception, a run over the per-example deadline, or, for the Django
importers, a database changed by a failed import is a finding. ``FUZZ_EXAMPLES`` sets the examples
per importer (50 in the normal suite; ``make fuzz`` runs 1000).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geceval.errors import GecInputError

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "50"))
DEADLINE_MS = int(os.environ.get("FUZZ_DEADLINE_MS", "3000"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=DEADLINE_MS,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
    derandomize=os.environ.get("FUZZ_RANDOM", "") == "",  # reproducible in CI; FUZZ_RANDOM=1 explores
    database=None,
)

# ------------------------------------------------------------------------------------------ seeds

M2 = b"""S They was happy .
A 1 2|||R:VERB:SVA|||were|||REQUIRED|||-NONE-|||0
A 1 2|||R:VERB:TENSE|||are|||REQUIRED|||-NONE-|||1

S It is fine .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
"""
IXML = b"""<?xml version="1.0" encoding="UTF-8"?>
<scripts><script id="1"><sentence id="1" numann="1"><text>They was happy .</text>
<error-list><error id="1" req="yes" type="SVA"><alt ann="0"><c start="1" end="2">were</c></alt></error>
</error-list></sentence></script></scripts>
"""
APPRAISE = b"""<?xml version="1.0" encoding="UTF-8"?>
<appraise-results><ranking-result id="none">
<ranking-item id="3" user="j1"><translation system="X" rank="1" /><translation system="Y,Z" rank="2" /></ranking-item>
<ranking-item id="4" user="j2" skipped="true" />
</ranking-result></appraise-results>
"""
WMT = b"""srcIndex,segmentId,judgeId,system1Id,system1rank,system2Id,system2rank,system3Id,system3rank
3,3,j1,X,1,Y,2,Z,2
4,4,j2,Y,1,X,3,Z,2
"""
JUDG_JSONL = b"""{"item": "3", "annotator": "j1", "ranks": {"X": 1, "Y": 2}}
{"item": 4, "annotator": "j2", "entries": [["X", 2], ["Y", 1]]}
"""
PRWS = b"""worker,system,item,score,meaning_changed
w1,X,s1,70,0
w1,Y,s1,40,1
w2,X,s2,55,
"""
TEXT = b"They was happy .\nIt is fine .\nShe go home .\n"
REF = b"They were happy .\nIt is fine .\nShe goes home .\n"
CORPUS_JSONL = (
    b'{"text": "They was happy .", "references": {"r0": "They were happy ."}, "outputs": {"s": "They was happy ."}}\n'
    b'{"text": "It is fine .", "domain": "d", "references": {"r0": "It is fine ."}, "outputs": {"s": "It is ok ."}}\n'
)
MTURK = (
    b"HITId,AssignmentId,WorkerId,AssignmentStatus,Input.item_id,Input.source,Input.system1,Input.text1,"
    b"Input.system2,Input.text2,Answer.rank_1,Answer.rank_2\n"
    b"H1,A1,W1,Approved,0,He go .,X,He goes .,Y,He go .,1,2\n"
    b"H1,A2,W2,Submitted,0,He go .,X,He goes .,Y,He go .,2,1\n"
)

SPLICES = [
    b"\x00", b"\r", b"\r\n", b"\n\n", b"\t", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80",
    b"|||", b"||||||", b"-1", b"999999999999999999999", b"NaN", b"1e309", b",", b'"', b",,,,", b"S ", b"A ",
    b"<", b">", b"&", b"&amp;", b"<!ENTITY x 'y'>", b"<!DOCTYPE a [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>",
    b"]]>", b"<![CDATA[", b"{", b"}", b"[", b"]", b"null", b"true", b'"ranks": {}', b"\\u0000", "\u2028".encode(),
    b"=cmd", b"\xe2\x80\xae",
]  # fmt: skip


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    """A seed with up to 6 mutations, or random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=400))
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "splice", "lines", "truncate", "repeat"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and data:
            data[pos : pos + draw(st.integers(1, 20))] = b""
        elif op == "splice":
            data[pos:pos] = draw(st.sampled_from(SPLICES))
        elif op == "truncate":
            del data[pos:]
        elif op == "repeat" and data:
            data[pos:pos] = data[pos : pos + draw(st.integers(1, 60))] * draw(st.integers(1, 4))
        elif op == "lines":
            lines = bytes(data).split(b"\n")
            if len(lines) > 1:
                i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
                how = draw(st.sampled_from(["swap", "dup", "drop"]))
                if how == "swap":
                    lines[i], lines[j] = lines[j], lines[i]
                elif how == "dup":
                    lines.insert(j, lines[i])
                else:
                    del lines[i]
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def _as_file(data: bytes, suffix: str) -> Path:
    with tempfile.NamedTemporaryFile(suffix=suffix, delete=False) as handle:
        handle.write(data)
    return Path(handle.name)


def _accepts_or_refuses_cleanly(call: Callable[[], object], check: Callable[[object], None]) -> None:
    """A valid result, or a GecInputError with a message; any other exception fails the example.
    (Every finding so far is fixed; the tests at the end of this file pin them.)"""
    try:
        result = call()
    except GecInputError as exc:
        assert str(exc).strip(), "an error without a message"
        return
    check(result)


# --------------------------------------------------------------------------------- core readers


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


@FUZZ
@given(mutated(M2))
def test_parse_m2_accepts_or_raises_gec_input_error(data):
    from geceval.formats.m2 import M2Sentence, parse_m2

    _accepts_or_refuses_cleanly(
        lambda: parse_m2(_decode(data), path="fuzz.m2"),
        lambda out: all(isinstance(s, M2Sentence) for s in out),
    )


@FUZZ
@given(mutated(IXML))
def test_parse_ixml_accepts_or_raises_gec_input_error(data):
    from geceval.formats.ixml import parse_ixml

    _accepts_or_refuses_cleanly(lambda: parse_ixml(data, path="fuzz.xml"), lambda out: list(out))


@FUZZ
@given(mutated(TEXT))
def test_decode_lines_accepts_or_raises_gec_input_error(data):
    from geceval.formats.text import decode_lines

    _accepts_or_refuses_cleanly(
        lambda: decode_lines(data, path="fuzz.txt", allow_empty=True),
        lambda out: all(isinstance(line, str) and "\n" not in line for line in out),
    )


def _core_file_reader(reader_name: str, seed: bytes, suffix: str):
    @FUZZ
    @given(mutated(seed))
    def run(data):
        import geceval.formats.judgments as judgments
        import geceval.formats.prws_csv as prws

        reader = getattr(judgments, reader_name, None) or getattr(prws, reader_name)
        path = _as_file(data, suffix)
        try:
            _accepts_or_refuses_cleanly(lambda: reader(path), lambda out: list(out))
        finally:
            path.unlink()

    return run


test_read_appraise_xml_accepts_or_raises_gec_input_error = _core_file_reader(
    "read_appraise_xml", APPRAISE, ".xml"
)
test_read_wmt_csv_accepts_or_raises_gec_input_error = _core_file_reader("read_wmt_csv", WMT, ".csv")
test_read_jsonl_accepts_or_raises_gec_input_error = _core_file_reader("read_jsonl", JUDG_JSONL, ".jsonl")
test_read_prws_csv_accepts_or_raises_gec_input_error = _core_file_reader("read_prws_csv", PRWS, ".csv")


# ------------------------------------------------------------------------------ Django importers


def _db_rows() -> dict[str, int]:
    from annotate.models import Corpus, Output, Sentence, System
    from ranking.models import Campaign, Candidate, Rating, Screen, ScreenJudgment

    models = (Corpus, Sentence, System, Output, Campaign, Screen, Candidate, ScreenJudgment, Rating)
    return {m.__name__: m.objects.count() for m in models}


@pytest.fixture
def fuzz_project(db):
    from tests import factories

    owner = factories.user("fuzz-owner", "researcher")
    return factories.project(owner, name="fuzz")


_names = iter(range(10**9))


def _import_corpus(project, make_data: Callable[[], object]) -> None:
    """Parse and import in one step; a refusal must leave every table as it was."""
    from annotate.formats.services import corpus_import

    before = _db_rows()
    try:
        corpus = corpus_import(project=project, name=f"fuzz {next(_names)}", data=make_data())
    except GecInputError as exc:
        assert str(exc).strip()
        assert _db_rows() == before, "a refused import changed the database"
        return
    assert corpus.sentences.count() >= 1


def _corpus_test(build):
    @FUZZ
    @given(st.data())
    def run(fuzz_project, data):
        _import_corpus(fuzz_project, build(data))

    return run


def _text(data):
    from annotate.services import InputFile

    body = data.draw(mutated(TEXT))
    from annotate.formats.readers import parse_text

    return lambda: parse_text(InputFile("fuzz.txt", body))


def _jfleg(data):
    from annotate.formats.readers import parse_jfleg
    from annotate.services import InputFile

    src = data.draw(mutated(TEXT))
    refs = [
        (f"ref{i}", InputFile(f"fuzz.ref{i}", data.draw(mutated(REF))))
        for i in range(data.draw(st.integers(0, 3)))
    ]
    return lambda: parse_jfleg(InputFile("fuzz.src", src), refs)


def _gmeg(data):
    from annotate.formats.readers import parse_gmeg
    from annotate.services import InputFile

    names = data.draw(
        st.lists(
            st.sampled_from(["source", "ref0", "ref1", "source+error", "sysA", "ref", "../x", ""]), max_size=5
        )
    )
    files = {n: InputFile(n, data.draw(mutated(REF if n != "source" else TEXT))) for n in names}
    domain = data.draw(st.sampled_from(["academic", "", "x" * 150, "a/b"]))
    return lambda: parse_gmeg(files, domain=domain)


def _m2(data):
    from annotate.formats.readers import parse_m2_file
    from annotate.services import InputFile

    body = data.draw(mutated(M2))
    return lambda: parse_m2_file(InputFile("fuzz.m2", body))


def _jsonl(data):
    from annotate.formats.readers import parse_jsonl
    from annotate.services import InputFile

    body = data.draw(mutated(CORPUS_JSONL))
    return lambda: parse_jsonl(InputFile("fuzz.jsonl", body))


test_corpus_import_text_is_all_or_nothing = pytest.mark.django_db(_corpus_test(_text))
test_corpus_import_jfleg_is_all_or_nothing = pytest.mark.django_db(_corpus_test(_jfleg))
test_corpus_import_gmeg_is_all_or_nothing = pytest.mark.django_db(_corpus_test(_gmeg))
test_corpus_import_m2_is_all_or_nothing = pytest.mark.django_db(_corpus_test(_m2))
test_corpus_import_jsonl_is_all_or_nothing = pytest.mark.django_db(_corpus_test(_jsonl))


def _judgments_test(fmt: str, seed: bytes):
    @FUZZ
    @given(mutated(seed))
    def run(fuzz_project, data):
        from crowd.importing import judgments_import

        before = _db_rows()
        try:
            report = judgments_import(
                project=fuzz_project, name=f"fuzz {next(_names)}", fmt=fmt, path_or_bytes=data
            )
        except GecInputError as exc:
            assert str(exc).strip()
            assert _db_rows() == before, "a refused import changed the database"
            return
        assert report.campaign.origin == "imported"

    return pytest.mark.django_db(run)


test_judgments_import_mturk_csv_is_all_or_nothing = _judgments_test("mturk-csv", MTURK)
test_judgments_import_appraise_xml_is_all_or_nothing = _judgments_test("appraise-xml", APPRAISE)
test_judgments_import_wmt_csv_is_all_or_nothing = _judgments_test("wmt-csv", WMT)
test_judgments_import_prws_csv_is_all_or_nothing = _judgments_test("prws-csv", PRWS)


# ----------------------------------------------------------------------- known findings, pinned


@pytest.mark.parametrize(
    "reader_name,suffix", [("read_wmt_csv", ".csv"), ("read_jsonl", ".jsonl"), ("read_prws_csv", ".csv")]
)
def test_invalid_utf8_is_a_gec_input_error_in_the_core_file_readers(reader_name, suffix):
    import geceval.formats.judgments as judgments
    import geceval.formats.prws_csv as prws

    reader = getattr(judgments, reader_name, None) or getattr(prws, reader_name)
    path = _as_file(b"worker,system,item,score\nw\x80,X,1,5\n", suffix)
    try:
        try:
            reader(path)
        except GecInputError:
            return
        except UnicodeDecodeError:
            pytest.fail(f"{reader_name}: invalid UTF-8 must be a GecInputError naming the line")
    finally:
        path.unlink()


def test_an_unknown_xml_encoding_is_a_gec_input_error_in_the_appraise_reader():
    from geceval.formats.judgments import read_appraise_xml

    path = _as_file(b'<?xml version="1.0" encoding="U-TF-8"?><appraise-results/>', ".xml")
    try:
        try:
            read_appraise_xml(path)
        except GecInputError:
            return
        except LookupError:
            pytest.fail("read_appraise_xml: an unknown encoding must be a GecInputError")
    finally:
        path.unlink()


@pytest.mark.django_db
def test_a_corpus_naming_hundreds_of_systems_is_refused(fuzz_project):
    """No importer bounds the number of references / systems: 300 outputs become 300 Systems."""
    import json

    from annotate.formats.readers import parse_jsonl
    from annotate.formats.services import corpus_import
    from annotate.services import InputFile

    outputs = {f"s{i}": "They were happy ." for i in range(300)}
    body = (json.dumps({"text": "They was happy .", "outputs": outputs}) + "\n").encode()
    try:
        corpus_import(project=fuzz_project, name="many", data=parse_jsonl(InputFile("many.jsonl", body)))
    except GecInputError:
        return
    pytest.fail("300 systems in one corpus must be refused (annotate.services.MAX_SYSTEMS)")


@pytest.mark.django_db
def test_a_nul_character_in_an_mturk_batch_is_a_gec_input_error(fuzz_project):
    from crowd.importing import judgments_import

    data = MTURK.replace(b"H1,A1,W1,Approved,0,", b"H1,A1,W1,Approved,\x00,")
    try:
        judgments_import(project=fuzz_project, name="nul", fmt="mturk-csv", path_or_bytes=data)
    except GecInputError:
        return
    pytest.fail("a NUL character in an MTurk batch must be refused while parsing")


@pytest.mark.django_db
def test_a_gmeg_domain_longer_than_the_column_is_a_gec_input_error(fuzz_project):
    from annotate.formats.readers import parse_gmeg
    from annotate.formats.services import corpus_import
    from annotate.services import InputFile

    try:
        data = parse_gmeg({"source": InputFile("source", TEXT)}, domain="d" * 150)
        corpus_import(project=fuzz_project, name="long domain", data=data)
    except GecInputError:
        return
    pytest.fail("a domain longer than Sentence.domain allows must be refused")
