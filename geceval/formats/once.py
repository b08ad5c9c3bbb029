"""Reading a file once per run: inside :func:`reading_once`, ``read_lines``, ``read_m2`` and
``read_ixml`` parse each path once and hand every later caller the same parse, so a shared task
(``python -m geceval score m2,sentm2,errant ...``) parses its source and references once for all
its metrics and systems. Outside that block nothing is kept. Keys are the file's real path, size
and modification time with the reader's options; bytes and open files are never cached."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_parsed: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("geceval_reading_once", default=None)


@contextmanager
def reading_once() -> Iterator[None]:
    token = _parsed.set({})
    try:
        yield
    finally:
        _parsed.reset(token)


def once(reader: str, source: object, options: tuple[Any, ...], read: Callable[[], list[T]]) -> list[T]:
    """``read()``, or the parse of the same file made earlier in this :func:`reading_once` block
    (a new list each time, so a caller that changes its list does not change another's)."""
    parsed = _parsed.get()
    if parsed is None or not isinstance(source, str | os.PathLike):
        return read()
    try:
        stat = os.stat(source)
    except OSError:
        return read()  # the reader says what is wrong with the path
    key = (reader, os.path.realpath(source), stat.st_size, stat.st_mtime_ns, options)
    if key not in parsed:
        parsed[key] = read()
    return list(parsed[key])
