"""geceval.formats.stream (issue 36): lines read as they stream cut exactly as ``decode_lines`` cuts
them, and every limit refused when it is passed, holding at most a chunk and a line."""

from __future__ import annotations

import gzip
import io

import pytest

from geceval.errors import GecInputError
from geceval.formats.inputs import read_input
from geceval.formats.stream import check_line_count, iter_lines
from geceval.formats.text import decode_lines

CASES = [b"a\nb", b"a\n", b"\n", b"", b"a\r\nb\n\n", "é\nx".encode(), b"x" * 3_000_000 + b"\ny"]


def _outcome(fn):
    try:
        return fn()
    except GecInputError as exc:
        return str(exc)


@pytest.mark.parametrize("plain", CASES)
@pytest.mark.parametrize("packing", ["plain", "gzip", "two members", "padded"])
def test_lines_are_cut_as_decode_lines_cuts_them(plain, packing):
    data = {
        "plain": plain,
        "gzip": gzip.compress(plain),
        "two members": gzip.compress(plain) + gzip.compress(b"z\n"),
        "padded": gzip.compress(plain) + b"\0\0\0",
    }[packing]
    expected = _outcome(lambda: decode_lines(read_input(data).data))
    assert _outcome(lambda: list(iter_lines(io.BytesIO(data)))) == expected


def test_the_line_limit_is_refused_at_the_first_line_past_it_without_reading_on():
    many = gzip.compress(b"a\n" * 5_000_000)
    lines = iter_lines(many, max_lines=1000, what="sentences")
    with pytest.raises(GecInputError, match=r"^line 1001: more than 1000 sentences$"):
        for _ in lines:
            pass
    with pytest.raises(GecInputError, match="more than 1000 sentences"):
        check_line_count(many, max_lines=1000, what="sentences")
    check_line_count(b"a\n" * 1000, max_lines=1000)
    with pytest.raises(GecInputError):
        check_line_count(b"a\n" * 1000 + b"b", max_lines=1000)


def test_a_long_line_bad_utf8_a_cut_gzip_and_too_many_bytes_are_named():
    with pytest.raises(GecInputError, match="line 1: line is longer than 10 characters"):
        list(iter_lines(gzip.compress(b"x" * 5_000_000), max_line_chars=10))
    with pytest.raises(GecInputError, match=r"line 2: not valid UTF-8 \(byte 3\)"):
        list(iter_lines(b"ok\n\xff"))
    with pytest.raises(GecInputError, match="ends before its last block"):
        list(iter_lines(gzip.compress(b"x" * 100_000)[:-20]))
    with pytest.raises(GecInputError, match="decompresses to more than 1000 bytes"):
        list(iter_lines(gzip.compress(b"x\n" * 100_000), limit=1000))
