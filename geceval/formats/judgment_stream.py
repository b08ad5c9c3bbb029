"""Streaming readers of large judgment files into integer arrays (no objects per judgment).

``read_wmt_csv`` and ``read_prws_csv`` build a list of objects from the whole
text; a million judgments that way take gigabytes. These readers go row by row
over a (possibly gzipped) file and keep only integer codes: each item, judge
and system name once in ``names``, each judgment and each entry as array
elements. Validation and skip rules are those of the list readers and of the
import (``crowd.importing.readers``): unranked entries (-1) and ranks past 5
leave a ranking, a ranking left with fewer than two entries is skipped, PRWS
scores are rounded and kept when 0-100, a NUL character is refused.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from geceval.errors import GecInputError
from geceval.formats.inputs import DEFAULT_LIMIT, GZIP_MAGIC, Input, Source, _too_large
from geceval.formats.judgments import _SYSTEM_ID, SKIPPED, _parse_rank
from geceval.formats.prws_csv import _FALSE, _PRWS_COLUMNS, _TRUE, _columns, _float

MAX_ROWS = 2_000_000
"""Rows (judgments) one file may hold: twice the million-judgment benchmark (bench/make_million.py);
each costs ~55 bytes of arrays (two entries), so the reading stays well inside UPLOAD_MEMORY_MAX_BYTES.
More are refused as they are read (issue 36)."""
MAX_ROW_SYSTEMS = 20
"""Systems one WMT ranking row may name (WMT's rankings are 2- to 5-way): a header of thousands of
``system<i>Id`` columns made thousands of entries a row (a 24 MB CSV: +156 MB)."""
CHECK_ROWS = 1 << 14
"""How often (in rows) the caller's ``check(line)`` (a memory guard) is called."""

Check = Callable[[int], None]


class Codes(dict):
    """Name -> 0-based code in order of first appearance."""

    def code(self, name: str) -> int:
        found = self.get(name)
        if found is None:
            found = self[name] = len(self)
        return found

    def names(self) -> list[str]:
        return list(self)


@dataclass
class JudgmentArrays:
    """Judgments as codes: judgment k has item ``item[k]`` and judge ``judge[k]``; entry e belongs to
    judgment ``entry_judgment[e]`` and gives ``system[e]`` the rank or score ``value[e]``."""

    kind: str  # "rank" or "score"
    items: Codes = field(default_factory=Codes)
    judges: Codes = field(default_factory=Codes)
    systems: Codes = field(default_factory=Codes)
    item: array = field(default_factory=lambda: array("l"))
    judge: array = field(default_factory=lambda: array("l"))
    entry_judgment: array = field(default_factory=lambda: array("l"))
    system: array = field(default_factory=lambda: array("l"))
    value: array = field(default_factory=lambda: array("h"))
    meaning_changed: array = field(default_factory=lambda: array("b"))
    skipped: Counter = field(default_factory=Counter)

    @property
    def judgments(self) -> int:
        return len(self.item)


class _Bounded(io.RawIOBase):
    """A binary stream that refuses to give more than ``limit`` bytes (counted after gzip), as
    ``read_input`` bounds a whole read: a small gzip file cannot stream gigabytes of rows."""

    def __init__(self, inner: io.BufferedIOBase, *, limit: int, name: str, compressed: bool) -> None:
        self.inner, self.limit, self.name, self.compressed, self.total = inner, limit, name, compressed, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        n = self.inner.readinto(buffer)
        self.total += n
        if self.total > self.limit:
            raise _too_large(self.name, self.limit, compressed=self.compressed)
        return n


@contextmanager
def open_stream(source: Source, *, limit: int = DEFAULT_LIMIT) -> Iterator[tuple[str, io.TextIOBase]]:
    """The source as UTF-8 text lines read as they are needed (gzip detected by its magic bytes);
    more than ``limit`` bytes of text (after decompression) is a ``GecInputError``."""
    if isinstance(source, Input):
        name, raw, owned = source.name, io.BytesIO(source.data), True
    elif isinstance(source, bytes | bytearray | memoryview):
        name, raw, owned = "<input>", io.BytesIO(bytes(source)), True
    elif isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        try:
            raw, owned = open(source, "rb"), True  # noqa: SIM115 (closed below)
        except FileNotFoundError:
            raise GecInputError("no such file", path=name) from None
        except OSError as exc:
            raise GecInputError(f"cannot read: {exc.strerror}", path=name) from None
    else:
        name, raw, owned = str(getattr(source, "name", None) or "<input>"), source, False
    try:
        buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)  # type: ignore[arg-type]
        compressed = buffered.peek(2)[:2] == GZIP_MAGIC
        binary = gzip.GzipFile(fileobj=buffered) if compressed else buffered
        bounded = _Bounded(binary, limit=limit, name=name, compressed=compressed)  # type: ignore[arg-type]
        text = io.TextIOWrapper(io.BufferedReader(bounded, 1 << 20), encoding="utf-8-sig", newline="")
        try:
            yield name, text
        except UnicodeDecodeError as exc:
            raise GecInputError(f"not UTF-8 text ({exc.reason})", path=name) from None
        except (OSError, EOFError) as exc:  # a damaged gzip stream
            raise GecInputError(f"cannot read: {exc}", path=name) from None
    finally:
        if owned:
            raw.close()


def _refuse_nul_names(out: JudgmentArrays, name: str) -> None:
    """PostgreSQL cannot store a NUL character: every stored name passed through the codes, checked once."""
    for codes in (out.items, out.judges, out.systems):
        for text in codes:
            if "\x00" in text:
                raise GecInputError(f"{text!r} contains a NUL character", path=name)


def _wmt_columns(header: list[str], name: str) -> tuple[list[tuple[int, int, str]], int, int]:
    """(system column, rank column, rank header) per system slot, the judge and the item columns."""
    columns = {f.strip().lower(): i for i, f in enumerate(header)}
    slots = []
    for f, index in columns.items():
        match = _SYSTEM_ID.match(f)
        if match:
            if f"system{match.group(1)}rank" not in columns:
                raise GecInputError(f"header has {f} but no system{match.group(1)}rank", path=name, line=1)
            slots.append((int(match.group(1)), index))
    if len(slots) < 2:
        raise GecInputError("header needs system1Id/system1rank and system2Id/system2rank", path=name, line=1)
    slots.sort()
    pairs = [
        (sys_col, columns[f"system{n}rank"], header[columns[f"system{n}rank"]].strip())
        for n, sys_col in slots
    ]
    judge_col = columns.get("judgeid")
    item_col = columns.get("segmentid", columns.get("srcindex"))
    if judge_col is None or item_col is None:
        raise GecInputError("header needs judgeId and segmentId (or srcIndex) columns", path=name, line=1)
    return pairs, judge_col, item_col


def _too_many_rows(name: str, line: int, max_rows: int) -> GecInputError:
    return GecInputError(f"more than {max_rows} rows: split the file", path=name, line=line)


def stream_wmt_csv(
    source: Source,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int = DEFAULT_LIMIT,
    max_rows: int = MAX_ROWS,
    check: Check | None = None,
) -> JudgmentArrays:
    """A WMT ranking CSV (see ``geceval.formats.judgments.read_wmt_csv``) as arrays, ranks 1-5 kept; more than
    ``max_rows`` rows or ``MAX_ROW_SYSTEMS`` systems a row refused, ``check(line)`` called every
    ``CHECK_ROWS`` rows (it may raise to stop the reading)."""
    out = JudgmentArrays("rank")
    excluded = set(exclude_judges)
    with open_stream(source, limit=limit) as (name, handle):
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise GecInputError("empty file, expected a WMT CSV header", path=name, line=1)
        pairs, judge_col, item_col = _wmt_columns(header, name)
        if len(pairs) > MAX_ROW_SYSTEMS:
            raise GecInputError(
                f"header names {len(pairs)} systems a row; a ranking may name at most {MAX_ROW_SYSTEMS}",
                path=name,
                line=1,
            )
        width = len(header)
        rows = 0
        # the hot loop: bound methods and codes looked up inline (a million rows; ~3 us each)
        items, judges, systems = out.items, out.judges, out.systems
        item_add, judge_add = out.item.append, out.judge.append
        ej_add, sys_add, value_add, mc_add = (
            out.entry_judgment.append,
            out.system.append,
            out.value.append,
            out.meaning_changed.append,
        )
        skipped = out.skipped
        for row in reader:
            rows += 1
            if rows > max_rows:
                raise _too_many_rows(name, reader.line_num, max_rows)
            if check is not None and not rows % CHECK_ROWS:
                check(reader.line_num)
            if len(row) != width:
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                raise GecInputError(
                    f"{len(row)} fields, the header has {width}", path=name, line=reader.line_num
                )
            annotator = row[judge_col].strip()
            if annotator in excluded:
                continue
            kept = []
            shown = 0
            for sys_col, rank_col, what in pairs:
                system = row[sys_col].strip()
                if not system:
                    continue
                shown += 1
                try:
                    rank = int(row[rank_col])
                except ValueError:
                    rank = _parse_rank(row[rank_col], name, reader.line_num, what)  # raises with the reason
                if 1 <= rank <= 5:
                    kept.append((system, rank))
                elif rank == SKIPPED:
                    skipped["unranked entry"] += 1
                elif rank < 1:
                    _parse_rank(row[rank_col], name, reader.line_num, what)
                else:
                    skipped["rank outside 1-5"] += 1
            if shown < 2:
                raise GecInputError(
                    "a ranking row needs at least two systems", path=name, line=reader.line_num
                )
            if len(kept) < 2:
                skipped["judgment with too few answers"] += 1
                continue
            number = len(out.item)
            item = row[item_col].strip()
            code = items.get(item)
            if code is None:
                code = items[item] = len(items)
            item_add(code)
            code = judges.get(annotator)
            if code is None:
                code = judges[annotator] = len(judges)
            judge_add(code)
            for system, rank in kept:
                code = systems.get(system)
                if code is None:
                    code = systems[system] = len(systems)
                ej_add(number)
                sys_add(code)
                value_add(rank)
                mc_add(0)
    _refuse_nul_names(out, name)
    return out


def stream_prws_csv(
    source: Source,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int = DEFAULT_LIMIT,
    max_rows: int = MAX_ROWS,
    check: Check | None = None,
) -> JudgmentArrays:
    """A PRWS ratings CSV (see ``geceval.formats.prws_csv.read_prws_csv``) as arrays: one judgment per (item, worker);
    ``max_rows`` and ``check`` as ``stream_wmt_csv`` has them."""
    out = JudgmentArrays("score")
    excluded = set(exclude_judges)
    number_of: dict[tuple[int, int], int] = {}
    with open_stream(source, limit=limit) as (name, handle):
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise GecInputError("file is empty", path=name)
        cols = _columns(header, _PRWS_COLUMNS, name)
        norm = [h.strip().lower() for h in header]
        mc_col = next((norm.index(n) for n in ("meaning_changed", "meaningchanged") if n in norm), None)
        needed = max([*cols.values(), mc_col or 0])
        item_col, judge_col, system_col, score_col = (
            cols[k] for k in ("item", "annotator", "system", "score")
        )
        rows = 0
        for row in reader:
            line = reader.line_num
            rows += 1
            if rows > max_rows:
                raise _too_many_rows(name, line, max_rows)
            if check is not None and not rows % CHECK_ROWS:
                check(line)
            if not any(c.strip() for c in row):
                continue
            if len(row) <= needed:
                raise GecInputError(f"{len(row)} cells, expected at least {needed + 1}", path=name, line=line)
            item, annotator, system = row[item_col].strip(), row[judge_col].strip(), row[system_col].strip()
            for key, value in (("item", item), ("annotator", annotator), ("system", system)):
                if not value:
                    raise GecInputError(f"empty {key}", path=name, line=line)
            score = _float(row[score_col].strip(), name, line, "score")
            meaning = 0
            if mc_col is not None:
                flag = row[mc_col].strip().lower()
                if flag not in _TRUE | _FALSE:
                    raise GecInputError(
                        f"meaning_changed {row[mc_col]!r} is not a yes/no", path=name, line=line
                    )
                meaning = int(flag in _TRUE)
            if annotator in excluded:
                continue
            rounded = round(score)
            if not 0 <= rounded <= 100:
                out.skipped["score outside 0-100"] += 1
                continue
            key = (out.items.code(item), out.judges.code(annotator))
            number = number_of.get(key)
            if number is None:
                number = number_of[key] = len(out.item)
                out.item.append(key[0])
                out.judge.append(key[1])
            out.entry_judgment.append(number)
            out.system.append(out.systems.code(system))
            out.value.append(rounded)
            out.meaning_changed.append(meaning)
    _refuse_nul_names(out, name)
    return out
