"""Line-aligned text files (JFLEG layout: ``NAME.src`` + ``NAME.ref0..N``).

Lines are kept exactly as written (tokenisation, trailing spaces); only the
line terminator is removed, so a writer can reproduce the input byte for byte.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from geceval.errors import GecInputError
from geceval.formats.inputs import Source, read_input
from geceval.formats.once import once


def decode_lines(data: bytes, *, path: str = "<input>", allow_empty: bool = False) -> list[str]:
    """Lines of UTF-8 bytes without their ``\\n`` (a final newline adds no line).

    Only ``\\n`` ends a line: a ``\\r`` or other Unicode separator inside a
    sentence is part of it, so counts agree with ``wc -l`` and with the
    reference tools.
    """
    text = _decode(data, path)
    if not text:
        if allow_empty:
            return []
        raise GecInputError("file is empty", path=path)
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise GecInputError(f"not valid UTF-8 (byte {exc.start})", path=path, line=line) from None


def open_text(source: Source, *, limit: int | None = None) -> tuple[str, str]:
    """The name and UTF-8 text of an input (path, bytes or binary file, gzip or not; see
    ``geceval.formats.inputs``), a leading BOM dropped; bad bytes are a GecInputError naming the line."""
    opened = read_input(source, limit=limit)
    text = _decode(opened.data, opened.name)
    return opened.name, text[1:] if text.startswith("\ufeff") else text


def read_text(source: Source, *, limit: int | None = None) -> str:
    """A whole UTF-8 input as text (see ``open_text``)."""
    return open_text(source, limit=limit)[1]


def read_lines(source: Source, *, allow_empty: bool = False, limit: int | None = None) -> list[str]:
    """Lines of a UTF-8 input, as ``decode_lines`` (read once per path in ``reading_once``)."""

    def read() -> list[str]:
        opened = read_input(source, limit=limit)
        return decode_lines(opened.data, path=opened.name, allow_empty=allow_empty)

    return once("lines", source, (allow_empty, limit), read)


def check_aligned(named: dict[str, list[str]]) -> int:
    """All files have the same number of lines; returns it, else names the odd file."""
    counts = {name: len(lines) for name, lines in named.items()}
    expected = next(iter(counts.values()))
    for name, count in counts.items():
        if count != expected:
            first = next(iter(counts))
            raise GecInputError(
                f"has {count} lines but {first} has {expected}; files must be line-aligned",
                path=name,
            )
    return expected


class ParallelCorpus(NamedTuple):
    """A source and N line-aligned references."""

    # A NamedTuple, not a dataclass: importing dataclasses (and inspect) costs every command's
    # start-up more than reading a test set (issue 22).

    source: list[str]
    references: list[list[str]]
    source_path: str | None = None
    reference_paths: list[str] | None = None


_REF_RE = re.compile(r"\.ref(\d+)(?:\.gz)?$")


def jfleg_source_path(prefix: str | os.PathLike[str]) -> str:
    """``prefix.src``, or ``prefix.src.gz`` when only that exists."""
    prefix = os.fspath(prefix)
    plain = prefix + ".src"
    return plain + ".gz" if not os.path.exists(plain) and os.path.exists(plain + ".gz") else plain


def jfleg_reference_paths(prefix: str | os.PathLike[str]) -> list[str]:
    """``prefix.ref0``, ``prefix.ref1``, ... in numeric order (each may be gzipped: ``.ref0.gz``)."""
    import glob  # local: pathlib and glob cost every command's start-up, and only this needs them

    prefix = os.fspath(prefix)
    found = []
    for path in glob.glob(glob.escape(prefix) + ".ref*"):
        m = _REF_RE.search(path)
        if m:
            found.append((int(m.group(1)), path))
    return [p for _, p in sorted(found)]


def read_jfleg(prefix: str | os.PathLike[str]) -> ParallelCorpus:
    """Read ``prefix.src`` and ``prefix.ref0..N``."""
    prefix = os.fspath(prefix)
    src_path = jfleg_source_path(prefix)
    if not os.path.exists(src_path):
        raise GecInputError("no such file (JFLEG layout needs PREFIX.src)", path=src_path)
    ref_paths = jfleg_reference_paths(prefix)
    if not ref_paths:
        raise GecInputError("no reference files PREFIX.ref0..N", path=prefix)
    return read_parallel(src_path, ref_paths)


def read_parallel(source_path: str, reference_paths: list[str]) -> ParallelCorpus:
    source = read_lines(source_path)
    refs = [read_lines(p, allow_empty=True) for p in reference_paths]
    check_aligned({source_path: source, **dict(zip(reference_paths, refs, strict=True))})
    return ParallelCorpus(source, refs, source_path, list(reference_paths))
