"""Every reader opens a path, bytes or a binary file, gzip-compressed or not, with a bounded size."""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil

import pytest

from geceval.cli import main
from geceval.errors import GecInputError
from geceval.formats.inputs import Input, content_size, read_input
from geceval.formats.ixml import read_ixml
from geceval.formats.judgment_stream import stream_prws_csv, stream_wmt_csv
from geceval.formats.judgments import read_appraise_xml, read_wmt_csv
from geceval.formats.m2 import read_m2
from geceval.formats.prws_csv import read_gmeg_segment_csv, read_system_scores_csv
from geceval.formats.text import read_lines
from tests.shared_data import shared_path


def test_path_bytes_and_binary_file_read_the_same(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"one\ntwo\n")
    assert read_input(path) == Input(str(path), b"one\ntwo\n")
    assert read_input(b"one\ntwo\n", name="up.txt") == Input("up.txt", b"one\ntwo\n")
    with open(path, "rb") as handle:
        assert read_input(handle) == Input(str(path), b"one\ntwo\n")
    assert read_input(io.BytesIO(b"x")) == Input("<input>", b"x")


def test_gzip_is_detected_by_its_magic_bytes_not_the_name(tmp_path):
    path = tmp_path / "plain-name.txt"
    path.write_bytes(gzip.compress(b"one\ntwo\n"))
    assert read_input(path).data == b"one\ntwo\n"
    assert read_lines(io.BytesIO(gzip.compress(b"a\nb\n"))) == ["a", "b"]
    two_members = gzip.compress(b"a\n") + gzip.compress(b"b\n")
    assert read_input(two_members).data == b"a\nb\n"


def test_decompressed_size_is_bounded_by_the_limit_with_a_clear_error():
    bomb = gzip.compress(b"x" * 10_000)
    assert len(bomb) < 100
    with pytest.raises(GecInputError) as caught:
        read_input(bomb, limit=9_999, name="bomb.csv")
    assert str(caught.value) == "bomb.csv: decompresses to more than 9999 bytes, the largest input allowed"
    assert read_input(bomb, limit=10_000).data == b"x" * 10_000
    with pytest.raises(GecInputError, match=re.escape("big.txt: is larger than 3 bytes")):
        read_input(io.BytesIO(b"abcd"), limit=3, name="big.txt")
    with pytest.raises(GecInputError, match=re.escape("big.txt: is larger than 3 bytes")):
        read_input(b"abcd", limit=3, name="big.txt")


def test_a_plain_file_past_the_limit_is_refused(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_bytes(b"abcd")
    with pytest.raises(GecInputError) as caught:
        read_input(path, limit=3)
    assert str(caught.value) == f"{path}: is larger than 3 bytes, the largest input allowed"
    assert read_input(path, limit=4).data == b"abcd"


def test_the_streaming_judgment_readers_stop_at_the_limit_plain_or_gzip(tmp_path):
    """The compact import never holds a file whole, but it still refuses more than its bound of text,
    however small the gzip file (issue 23: JUDGMENT_UPLOAD_MAX_BYTES)."""
    wmt = "system1Id,system1rank,system2Id,system2rank,judgeId,segmentId\n"
    wmt += "".join(f"a,1,b,2,j{k % 7},{k}\n" for k in range(3000))
    prws = "item,worker,system,score\n" + "".join(f"{k},j{k % 7},a,60\n" for k in range(3000))
    for reader, data in ((stream_wmt_csv, wmt.encode()), (stream_prws_csv, prws.encode())):
        assert reader(data, limit=len(data)).judgments == 3000
        path = tmp_path / "j.csv"
        path.write_bytes(data)
        with pytest.raises(GecInputError) as caught:
            reader(path, limit=len(data) - 1)
        assert str(caught.value) == f"{path}: is larger than {len(data) - 1} bytes, the largest input allowed"
        packed = gzip.compress(data)
        assert len(packed) < len(data) // 3
        with pytest.raises(GecInputError) as caught:
            reader(io.BytesIO(packed), limit=len(data) - 1)
        assert (
            str(caught.value) == f"decompresses to more than {len(data) - 1} bytes, the largest input allowed"
        )
        assert reader(io.BytesIO(packed), limit=len(data)).judgments == 3000


def test_content_size_counts_what_a_gzip_file_holds_up_to_a_bound_and_leaves_a_stream_where_it_was(tmp_path):
    data = b"".join(f"{k},judge{k % 7},sys{k % 5},60\n".encode() for k in range(5000))
    packed = gzip.compress(data[:40_000]) + gzip.compress(data[40_000:])  # two members, as gzip(1) allows
    path = tmp_path / "ratings.csv.gz"
    path.write_bytes(packed)
    assert len(packed) < 30_000 < len(data)
    assert content_size(path, upto=10**9) == len(data)
    assert content_size(packed, upto=10**9) == len(data)
    assert content_size(packed, upto=30_000) == 30_000  # read no further than the question needs
    assert content_size(data, upto=10**9) == len(data) and content_size(Input("x", data), upto=5) == 5
    handle = io.BytesIO(b"xx" + packed)
    handle.seek(2)
    assert content_size(handle, upto=10**9) == len(data) and handle.tell() == 2
    assert content_size(tmp_path / "missing", upto=10) == 0
    assert content_size(packed[: len(packed) // 3], upto=10**9) == 0  # damaged: its reader says so


def test_a_truncated_gzip_file_is_an_input_error():
    with pytest.raises(GecInputError, match=re.escape("t.gz: not a valid gzip file")):
        read_input(gzip.compress(b"hello world" * 50)[:-12], name="t.gz")


@pytest.mark.shared
@pytest.mark.parametrize(
    ("reader", "parts"),
    [
        (read_wmt_csv, ("gec-ranking", "data", "all_judgments.csv")),
        (read_appraise_xml, ("gec-ranking", "data", "all_judgments.xml")),
        (read_m2, ("derived", "jfleg-test-errant", "jfleg.test.ref.errant.m2")),
        (read_ixml, ("derived", "imeasure-example", "gold.xml")),
        (read_gmeg_segment_csv, ("GMEG", "data", "dev", "fce-segment-scores.csv")),
        (read_system_scores_csv, ("GMEG", "data", "dev", "fce-corpus-scores.csv")),
        (read_lines, ("jfleg", "test", "test.src")),
    ],
)
def test_every_core_reader_reads_real_files_gzipped_as_bytes_or_file_objects(reader, parts):
    path = shared_path(*parts)
    expected = reader(path)
    packed = gzip.compress(path.read_bytes())
    assert reader(packed) == expected
    assert reader(io.BytesIO(packed)) == expected
    assert reader(io.BytesIO(path.read_bytes())) == expected


@pytest.mark.shared
def test_core_cli_reads_gzipped_inputs(tmp_path, capsys):
    jfleg = shared_path("jfleg", "test")
    hyp = tmp_path / "hyp.txt.gz"
    hyp.write_bytes(gzip.compress((jfleg / "test.spellchecked.src").read_bytes()))
    refs = [str(jfleg / f"test.ref{i}") for i in range(2)]
    argv = ["score", "gleu", "--source", str(jfleg / "test.src"), "--refs", *refs, "--json"]
    assert main([*argv, "--hyp", str(jfleg / "test.spellchecked.src")]) == 0
    plain = json.loads(capsys.readouterr().out)[0]["score"]
    assert main([*argv, "--hyp", str(hyp)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["score"] == plain
    judgments = tmp_path / "all_judgments.csv.gz"
    source = shared_path("gec-ranking", "data", "all_judgments.csv")
    with open(source, "rb") as src, gzip.open(judgments, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert main(["rank", str(judgments), "--runs", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["judgments"] == 28146
