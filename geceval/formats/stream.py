"""Reading an input line by line with every limit counted as it streams (issue 36).

``read_input`` holds a whole (decompressed) input; a file of many short lines then costs far more as
Python strings than its bytes, and a line limit checked on the list comes after the cost. Here the
bytes after decompression, the lines and each line's length are counted while the input is read, and
the first one past its limit stops the reading with a ``GecInputError``: at most one chunk (1 MiB)
and one line are held at a time. Lines are cut as ``geceval.formats.text.decode_lines`` cuts them
(only ``\\n`` ends a line; a final newline adds no line; each line must be UTF-8).

A source is read again from its start each time (a path is reopened, a file object sought to 0), so
a caller may check a whole input in one pass and save it in a second one without holding it.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from geceval.errors import GecInputError
from geceval.formats.inputs import DEFAULT_LIMIT, GZIP_MAGIC, Input, Source

CHUNK = 1 << 20


def source_name(source: Source, name: str | None = None) -> str:
    if name:
        return name
    if isinstance(source, Input):
        return source.name
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return str(getattr(source, "name", None) or "<input>")


def _raw_chunks(source: Source, label: str) -> Iterator[bytes]:
    """The stored (maybe compressed) bytes of ``source`` from its start, a chunk at a time."""
    if isinstance(source, Input):
        source = source.data
    if isinstance(source, bytes | bytearray | memoryview):
        view = memoryview(source)
        for start in range(0, len(view), CHUNK):
            yield bytes(view[start : start + CHUNK])
        return
    if isinstance(source, str | os.PathLike):
        try:
            handle: BinaryIO = open(source, "rb")  # noqa: SIM115 - closed below, also when abandoned
        except FileNotFoundError:
            raise GecInputError("no such file", path=label) from None
        except IsADirectoryError:
            raise GecInputError("is a folder, not a file", path=label) from None
        except OSError as exc:
            raise GecInputError(f"cannot read: {exc.strerror}", path=label) from None
        with handle:
            yield from _handle_chunks(handle, label)
        return
    if not hasattr(source, "read"):
        raise TypeError(f"cannot read from a {type(source).__name__}")
    if hasattr(source, "seek"):
        source.seek(0)
    yield from _handle_chunks(source, label)


def _handle_chunks(handle: BinaryIO, label: str) -> Iterator[bytes]:
    while True:
        chunk = handle.read(CHUNK)
        if not chunk:
            return
        if isinstance(chunk, str):
            raise GecInputError("opened as text; open the file in binary mode ('rb')", path=label)
        yield chunk


def _too_large(label: str, limit: int, compressed: bool) -> GecInputError:
    what = "decompresses to more than" if compressed else "is larger than"
    return GecInputError(f"{what} {limit} bytes, the largest input allowed", path=label)


def iter_bytes(source: Source, *, limit: int | None = None, name: str | None = None) -> Iterator[bytes]:
    """The bytes of ``source`` (gzip undone, recognised by its magic bytes), chunk by chunk; past
    ``limit`` bytes (after decompression) a ``GecInputError`` as soon as the limit is passed."""
    limit = DEFAULT_LIMIT if limit is None else limit
    label = source_name(source, name)
    raw = _raw_chunks(source, label)
    first = next(raw, b"")
    while len(first) < 2:  # a stream may return fewer bytes than asked for
        more = next(raw, None)
        if more is None:
            break
        first += more
    total = 0
    if not first.startswith(GZIP_MAGIC):
        for chunk in _chain(first, raw):
            total += len(chunk)
            if total > limit:
                raise _too_large(label, limit, compressed=False)
            yield chunk
        return
    inflater = zlib.decompressobj(wbits=31)
    try:
        for chunk in _chain(first, raw):
            pending = chunk
            while pending:
                if inflater is None:  # a member ended: another member, or padding as gzip(1) allows
                    if not pending.startswith(GZIP_MAGIC):
                        return
                    inflater = zlib.decompressobj(wbits=31)
                out = inflater.decompress(pending, CHUNK)
                total += len(out)
                if total > limit:
                    raise _too_large(label, limit, compressed=True)
                if out:
                    yield out
                if inflater.eof:
                    pending, inflater = inflater.unused_data, None
                else:
                    pending = inflater.unconsumed_tail
    except zlib.error as exc:
        raise GecInputError(f"not a valid gzip file: {exc}", path=label) from None
    if inflater is not None and not inflater.eof:
        raise GecInputError("not a valid gzip file: it ends before its last block", path=label)


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def iter_lines(
    source: Source,
    *,
    limit: int | None = None,
    name: str | None = None,
    max_lines: int | None = None,
    max_line_chars: int | None = None,
    allow_empty: bool = False,
    what: str = "lines",
) -> Iterator[str]:
    """The UTF-8 lines of ``source`` without their ``\\n``, as ``decode_lines`` gives them, read as
    they stream: more than ``max_lines`` lines (named ``what`` in the message), a line longer than
    ``max_line_chars`` characters or more than ``limit`` bytes is an error when it is reached."""
    label = source_name(source, name)
    line_bytes = None if max_line_chars is None else 4 * max_line_chars + 4
    number = 0
    offset = 0  # byte offset of ``rest`` in the decompressed input
    rest = b""
    seen = False

    def decoded(raw: bytes, start: int) -> str:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GecInputError(
                f"not valid UTF-8 (byte {start + exc.start})", path=label, line=number
            ) from None
        if max_line_chars is not None and len(text) > max_line_chars:
            raise GecInputError(f"line is longer than {max_line_chars} characters", path=label, line=number)
        return text

    for chunk in iter_bytes(source, limit=limit, name=label):
        seen = True
        parts = (rest + chunk).split(b"\n") if rest else chunk.split(b"\n")
        rest = parts.pop()
        for raw in parts:
            number += 1
            if max_lines is not None and number > max_lines:
                raise GecInputError(f"more than {max_lines} {what}", path=label, line=number)
            yield decoded(raw, offset)
            offset += len(raw) + 1
        if line_bytes is not None and len(rest) > line_bytes:
            number += 1
            raise GecInputError(f"line is longer than {max_line_chars} characters", path=label, line=number)
    if rest:
        number += 1
        if max_lines is not None and number > max_lines:
            raise GecInputError(f"more than {max_lines} {what}", path=label, line=number)
        yield decoded(rest, offset)
    if not seen and not allow_empty:
        raise GecInputError("file is empty", path=label)


def count_lines(source: Source, **kwargs) -> int:
    """How many lines ``iter_lines`` gives (every check made, nothing held)."""
    return sum(1 for _ in iter_lines(source, **kwargs))


def check_line_count(
    source: Source, *, max_lines: int, limit: int | None = None, name: str | None = None, what: str = "lines"
) -> None:
    """Refuse an input of more than ``max_lines`` lines as fast as its bytes decompress (newlines are
    counted a chunk at a time, no line is built): the quick first look before a line-by-line check."""
    label = source_name(source, name)
    count = 0
    last = b"\n"
    for chunk in iter_bytes(source, limit=limit, name=label):
        count += chunk.count(b"\n")
        last = chunk[-1:]
        if count > max_lines:
            raise GecInputError(f"more than {max_lines} {what}", path=label, line=max_lines + 1)
    if last != b"\n" and count + 1 > max_lines:
        raise GecInputError(f"more than {max_lines} {what}", path=label, line=max_lines + 1)
