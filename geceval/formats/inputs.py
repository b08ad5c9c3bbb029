"""Opening an input: a path, bytes or a binary file object, gzip-compressed or not, of bounded size.

Every core reader opens its input here, and so do the web and command-line
imports, so a file reads the same way wherever it comes from and nothing is
written to a temporary file just to call a reader. Compression is recognised
by gzip's magic bytes (``1f 8b``), not by the name, so an upload renamed from
``x.csv.gz`` to ``x.csv`` still reads. ``limit`` bounds the bytes after
decompression; the apps pass ``settings.UPLOAD_MAX_BYTES`` so a small
compressed file cannot expand past what an upload may be.
"""

from __future__ import annotations

import io
import os
import zlib
from typing import BinaryIO, NamedTuple, Union

from geceval.errors import GecInputError

GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_LIMIT = 2 * 1024**3
"""The bound when none is given (the core command line): 2 GiB after decompression."""

_CHUNK = 1 << 20


class Input(NamedTuple):
    """An opened input: the name errors use and its (decompressed) bytes (a NamedTuple: no
    dataclasses import at start-up)."""

    name: str
    data: bytes


Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, BinaryIO, Input]


def _too_large(name: str, limit: int, compressed: bool) -> GecInputError:
    what = "decompresses to more than" if compressed else "is larger than"
    return GecInputError(f"{what} {limit} bytes, the largest input allowed", path=name)


def _read_bounded(handle: BinaryIO, name: str, limit: int) -> bytes:
    """Up to ``limit`` bytes of a stream; more is an error (read one byte past to know)."""
    chunks, total = [], 0
    while True:
        chunk = handle.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        if isinstance(chunk, str):
            raise GecInputError("opened as text; open the file in binary mode ('rb')", path=name)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise _too_large(name, limit, compressed=False)
    return b"".join(chunks)


def gunzip(data: bytes, *, name: str, limit: int) -> bytes:
    """The decompressed bytes of every gzip member in ``data``, at most ``limit`` of them."""
    out, total = [], 0
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=31)
        try:
            chunk = inflater.decompress(rest, limit + 1 - total)
            while True:
                out.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise _too_large(name, limit, compressed=True)
                if inflater.eof or not inflater.unconsumed_tail:
                    break
                chunk = inflater.decompress(inflater.unconsumed_tail, limit + 1 - total)
        except zlib.error as exc:
            raise GecInputError(f"not a valid gzip file: {exc}", path=name) from None
        if not inflater.eof:
            raise GecInputError("not a valid gzip file: it ends before its last block", path=name)
        rest = inflater.unused_data
        if rest and not rest.startswith(GZIP_MAGIC):
            break  # trailing padding after the last member, as gzip(1) allows
    return b"".join(out)


def read_input(source: Source, *, limit: int | None = None, name: str | None = None) -> Input:
    """Open ``source`` (see the module docstring); ``name`` overrides the name errors use.

    An :class:`Input` is returned as it is: it was opened here already.
    """
    limit = DEFAULT_LIMIT if limit is None else limit
    if isinstance(source, Input):
        return source if name is None else Input(name, source.data)
    if isinstance(source, bytes | bytearray | memoryview):
        label = name or "<input>"
        raw = bytes(source)
        if len(raw) > limit and not raw.startswith(GZIP_MAGIC):
            raise _too_large(label, limit, compressed=False)
    elif isinstance(source, str | os.PathLike):
        label = name or os.fspath(source)
        try:
            with open(source, "rb") as handle:
                raw = _read_stream(handle, label, limit)
        except FileNotFoundError:
            raise GecInputError("no such file", path=label) from None
        except IsADirectoryError:
            raise GecInputError("is a folder, not a file", path=label) from None
        except OSError as exc:
            raise GecInputError(f"cannot read: {exc.strerror}", path=label) from None
    elif hasattr(source, "read"):
        label = name or str(getattr(source, "name", None) or "<input>")
        raw = _read_stream(source, label, limit)
    else:
        raise TypeError(f"cannot read from a {type(source).__name__}")
    if raw.startswith(GZIP_MAGIC):
        return Input(label, gunzip(raw, name=label, limit=limit))
    if len(raw) > limit:
        raise _too_large(label, limit, compressed=False)
    return Input(label, raw)


def _read_stream(handle: BinaryIO, name: str, limit: int) -> bytes:
    """A stream's bytes: at most ``limit`` plain, or a gzip file of at most twice that (a gzip file is
    never larger than what it holds by more than a few bytes per 64 KiB block)."""
    head = handle.read(2)
    if isinstance(head, str):
        raise GecInputError("opened as text; open the file in binary mode ('rb')", path=name)
    compressed = head.startswith(GZIP_MAGIC)
    bound = 2 * limit + 1024 if compressed else limit
    try:
        return head + _read_bounded(handle, name, max(bound - len(head), 0))
    except GecInputError as exc:
        if exc.problem.startswith("opened as text"):
            raise
        raise _too_large(name, limit, compressed=compressed) from None


def content_size(source: Source, *, upto: int) -> int:
    """How many bytes ``source`` holds, counted up to ``upto``: its size, or for gzip what it
    decompresses to (a 4 MB gzip file of a 24 MB CSV is a large input). A stream is left where it
    was; 0 when it cannot be told (a stream that cannot seek and gives no ``size``, a missing file)."""
    if isinstance(source, Input):
        return min(len(source.data), upto)
    if isinstance(source, bytes | bytearray | memoryview):
        return _stream_content_size(io.BytesIO(source), upto)
    if isinstance(source, str | os.PathLike):
        try:
            with open(source, "rb") as handle:
                return _stream_content_size(handle, upto)
        except OSError:
            return 0
    seekable = getattr(source, "seekable", None)
    if seekable is None or not seekable():
        return min(int(getattr(source, "size", 0) or 0), upto)
    return _stream_content_size(source, upto)


def _stream_content_size(handle: BinaryIO, upto: int) -> int:
    import gzip  # only here: the readers' start-up imports stay small

    start = handle.tell()
    try:
        head = handle.read(2)
        if not isinstance(head, bytes):
            return 0
        if head != GZIP_MAGIC:
            return min(handle.seek(0, os.SEEK_END) - start, upto)
        handle.seek(start)
        total = 0
        with gzip.GzipFile(fileobj=handle) as unpacked:
            while total < upto:
                chunk = unpacked.read(min(_CHUNK, upto - total))
                if not chunk:
                    break
                total += len(chunk)
        return total
    except (OSError, EOFError, zlib.error):  # a damaged gzip file: its reader says what is wrong
        return 0
    finally:
        handle.seek(start)


def display_name(name: str) -> str:
    """A name without its ``.gz`` (for formats guessed from the suffix)."""
    return name[:-3] if name.lower().endswith(".gz") else name
