"""Human judgments of system outputs: relative rankings, their pairwise expansion, PRWS ratings, readers.

A *relative-ranking judgment* is one annotator ranking k outputs of one item
(``RankingJudgment``): entries ``(system, rank)`` in the order they were shown,
lower rank = better, equal ranks = tie, rank ``-1`` = not ranked (skipped).
Identical outputs that were shown once (Appraise ``system="A,B"``) count as
separate entries with the same rank, so they make tie pairs: this is how the
gec-ranking ``all_judgments.csv`` was made from its XML.

Rankers work on *pairwise judgments* (``PairwiseJudgment``), as
keisks/wmt-trueskill with ``-n 2``: every k-way ranking becomes all C(k, 2)
pairs ``(entries[i], entries[j])`` for ``i < j`` in document order. A pair with
a skipped entry (rank -1) is dropped, and so is a pair of a system with itself
(it says nothing about any ranking; none occurs in the public data).

*PRWS ratings* (``PrwsRating``) are direct-assessment scores 0-100 of one
output by one annotator, with the "meaning changed" flag (GMEG, Napoles et al.
2019); the readers here do not produce them, ``geceval`` statistics modules
consume them.

Readers (all return ``list[RankingJudgment]``; ``read_pairwise`` expands):

- Appraise XML (``read_appraise_xml``): ``<ranking-item id=.. user=..>`` with
  ``<translation system=".." rank=".."/>`` children; the item (sentence) is taken by
  ``appraise_item_key``'s rule: ``src-id`` minus its base when the items carry ``src-id``, else
  ``id`` as written; collapsed systems joined by
  commas or spaces (one entry each; ``RankingJudgment.shown`` keeps the
  groups, ``groups()`` gives them back); ``user`` is the annotator; items marked ``skipped="true"``
  or without translations give no judgment.
- WMT CSV (``read_wmt_csv``): one row per k-way (k = 2..5) ranking with columns
  ``system<i>Id`` and ``system<i>rank``, ``judgeId`` and ``segmentId`` (found by
  header name, case-insensitive, any order; ``srcIndex`` stands in for a
  missing ``segmentId``). An empty system cell leaves that entry out.
- JSONL (``read_jsonl``), our own; see its docstring.

Malformed input raises ``GecInputError`` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.parsers.expat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, islice
from pathlib import Path

from geceval.errors import GecInputError
from geceval.formats.appraise_items import ItemKey, appraise_item_key
from geceval.formats.inputs import Source, read_input
from geceval.formats.text import open_text

SKIPPED = -1
"""The rank of an entry the annotator did not rank (WMT CSV convention)."""

FORMATS = ("wmt-csv", "appraise-xml", "jsonl")


@dataclass(frozen=True)
class RankingJudgment:
    """One annotator's ranking of k outputs of one item; ``entries`` = ((system, rank), ...) as shown.

    ``shown`` keeps how the entries were shown when identical outputs were
    collapsed into one (Appraise ``system="A,B"``): the size of each shown
    group, in entry order (``(2, 1)`` for ``A,B`` then ``C``); ``None`` when
    each entry was shown on its own. It is not part of equality: the
    judgment (who ranked what how) is the same either way.
    """

    item: str
    annotator: str
    entries: tuple[tuple[str, int], ...]
    shown: tuple[int, ...] | None = field(default=None, compare=False)

    def groups(self) -> list[tuple[tuple[str, ...], int]]:
        """The entries as shown: ((systems collapsed into one, rank), ...); one system each without ``shown``."""
        sizes = self.shown if self.shown is not None else (1,) * len(self.entries)
        out, at = [], 0
        for size in sizes:
            chunk = self.entries[at : at + size]
            at += size
            out.append((tuple(system for system, _ in chunk), chunk[0][1]))
        return out

    def pairs(self) -> list[PairwiseJudgment]:
        """All C(k, 2) pairs in document order, without skipped entries or a system paired with itself."""
        return [
            PairwiseJudgment(self.item, self.annotator, s1, r1, s2, r2)
            for (s1, r1), (s2, r2) in combinations(self.entries, 2)
            if r1 != SKIPPED and r2 != SKIPPED and s1 != s2
        ]


@dataclass(frozen=True)
class PairwiseJudgment:
    """Two systems' ranks in one judgment; lower rank wins, equal ranks are a tie."""

    item: str
    annotator: str
    sys1: str
    rank1: int
    sys2: str
    rank2: int

    @property
    def outcome(self) -> int:
        """+1 when sys1 is ranked better, -1 when sys2 is, 0 for a tie."""
        return (self.rank1 < self.rank2) - (self.rank1 > self.rank2)


@dataclass(frozen=True)
class PrwsRating:
    """One partial-ranking-with-scores rating: ``score`` 0-100 of ``system``'s output of ``item``."""

    item: str
    annotator: str
    system: str
    score: float
    meaning_changed: bool = False


def expand_pairwise(rankings: Iterable[RankingJudgment]) -> list[PairwiseJudgment]:
    """The pairwise judgments of k-way rankings, ranking by ranking, each in document order."""
    pairs: list[PairwiseJudgment] = []
    for ranking in rankings:
        pairs.extend(ranking.pairs())
    return pairs


def _parse_rank(text: str, path: str, line: int, what: str) -> int:
    try:
        rank = int(text.strip())
    except ValueError:
        raise GecInputError(f"{what}: rank {text!r} is not an integer", path=path, line=line) from None
    if rank < 1 and rank != SKIPPED:
        raise GecInputError(f"{what}: rank {rank} (ranks start at 1; -1 = skipped)", path=path, line=line)
    return rank


_SYSTEM_NAME = re.compile(r"[^,\s]+")

APPRAISE_MAX_ITEMS = 100_000
"""An Appraise file is read whole into one record per ``<ranking-item>`` (a few hundred bytes each,
more with its entries): more items are refused as they are read (issue 36). gec-ranking's
all_judgments.xml has 1,534."""
APPRAISE_MAX_ENTRIES_PER_ITEM = 50
"""Systems one ``<ranking-item>`` may rank, its collapsed groups (``system="A,B"``) counted one each:
``system="a,a,..."`` otherwise made one entry per name (a 5 MB file: +206 MB). gec-ranking's largest
item has 14 (its 13 systems and the reference)."""
APPRAISE_MAX_ENTRIES = 500_000
"""Entries in the whole file (~100 bytes each once read, then again as judgments)."""
APPRAISE_CHECK_ITEMS = 1024
"""How often (in items) the caller's ``check`` is called while the XML is parsed."""


def read_appraise_xml(
    source: Source,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int | None = None,
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
    max_items: int = APPRAISE_MAX_ITEMS,
    max_entries: int = APPRAISE_MAX_ENTRIES,
    check: Callable[[int], None] | None = None,
) -> list[RankingJudgment]:
    """Ranking items of an Appraise results file, in document order (see the module docstring)."""
    return read_appraise_xml_keyed(
        source,
        exclude_judges=exclude_judges,
        limit=limit,
        src_id_base=src_id_base,
        corpus_lines=corpus_lines,
        max_items=max_items,
        max_entries=max_entries,
        check=check,
    )[0]


def read_appraise_xml_keyed(
    source: Source,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int | None = None,
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
    max_items: int = APPRAISE_MAX_ITEMS,
    max_entries: int = APPRAISE_MAX_ENTRIES,
    check: Callable[[int], None] | None = None,
) -> tuple[list[RankingJudgment], ItemKey]:
    """``read_appraise_xml`` and the ``ItemKey`` it used (``appraise_item_key``) to say so.

    More than ``max_items`` items, ``APPRAISE_MAX_ENTRIES_PER_ITEM`` entries in an item or
    ``max_entries`` in the file is refused when it is read; ``check(line)`` (the caller's memory
    guard) is called every ``APPRAISE_CHECK_ITEMS`` items and may raise to stop the reading."""
    opened = read_input(source, limit=limit)
    name = opened.name
    excluded = set(exclude_judges)
    found: list[dict] = []
    src_ids: list[str] = []
    parser = xml.parsers.expat.ParserCreate()
    current: dict | None = None
    entries_read = 0

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal current, entries_read
        line = parser.CurrentLineNumber
        if tag == "ranking-item":
            if current is not None:
                raise GecInputError("<ranking-item> inside another <ranking-item>", path=name, line=line)
            if len(found) >= max_items:
                raise GecInputError(
                    f"more than {max_items} <ranking-item>s: split the file", path=name, line=line
                )
            if check is not None and len(found) % APPRAISE_CHECK_ITEMS == 0:
                check(line)
            item = attrs.get("id")
            if item is None:
                raise GecInputError("<ranking-item> without an id attribute", path=name, line=line)
            if "src-id" in attrs:
                src_ids.append(attrs["src-id"])
            current = {
                "item": item,
                "src-id": attrs.get("src-id"),
                "annotator": attrs.get("user", ""),
                "skipped": attrs.get("skipped", "").lower() == "true",
                "entries": [],
                "shown": [],
            }
            found.append(current)
        elif tag == "translation" and current is not None:
            room = APPRAISE_MAX_ENTRIES_PER_ITEM - len(current["entries"])
            # at most one name past the cap is built: system="a,a,..." of megabytes costs nothing
            systems = [m.group() for m in islice(_SYSTEM_NAME.finditer(attrs.get("system", "")), room + 1)]
            if not systems:
                raise GecInputError("<translation> without a system attribute", path=name, line=line)
            if "rank" not in attrs:
                raise GecInputError("<translation> without a rank attribute", path=name, line=line)
            rank = _parse_rank(attrs["rank"], name, line, "<translation>")
            if len(systems) > room:
                raise GecInputError(
                    f"a <ranking-item> ranks more than {APPRAISE_MAX_ENTRIES_PER_ITEM} systems",
                    path=name,
                    line=line,
                )
            entries_read += len(systems)
            if entries_read > max_entries:
                raise GecInputError(
                    f"more than {max_entries} ranked systems in all: split the file", path=name, line=line
                )
            current["entries"].extend((system, rank) for system in systems)
            current["shown"].append(len(systems))

    def end(tag: str) -> None:
        nonlocal current
        if tag == "ranking-item" and current is not None:
            current = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(opened.data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise GecInputError(f"not well-formed XML: {exc}", path=name, line=exc.lineno) from None
    except LookupError as exc:  # an encoding expat does not know, named in the XML declaration
        raise GecInputError(f"unknown encoding: {exc}", path=name, line=1) from None
    key = appraise_item_key(
        src_ids, items=len(found), src_id_base=src_id_base, corpus_lines=corpus_lines, path=name
    )
    judgments = [
        RankingJudgment(
            _item_of(c, key),
            c["annotator"],
            tuple(c["entries"]),
            shown=tuple(c["shown"]),
        )
        for c in found
        if c["entries"] and not c["skipped"] and c["annotator"] not in excluded
    ]
    return judgments, key


def _item_of(item: dict, key: ItemKey) -> str:
    if key.attribute == "id":
        return item["item"]
    return str(int(item["src-id"].strip()) - key.base)  # type: ignore[operator]


_SYSTEM_ID = re.compile(r"^system(\d+)id$")


def read_wmt_csv(
    source: Source, *, exclude_judges: Sequence[str] = (), limit: int | None = None
) -> list[RankingJudgment]:
    """One ``RankingJudgment`` per row of a WMT ranking CSV (2-way to 5-way; see the module docstring)."""
    name, text = open_text(source, limit=limit)
    excluded = set(exclude_judges)
    with io.StringIO(text, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise GecInputError("empty file, expected a WMT CSV header", path=name, line=1)
        columns = {field.strip().lower(): i for i, field in enumerate(header)}
        slots: list[tuple[int, int]] = []
        for field, index in columns.items():
            match = _SYSTEM_ID.match(field)
            if match:
                rank_col = columns.get(f"system{match.group(1)}rank")
                if rank_col is None:
                    raise GecInputError(
                        f"header has {field} but no system{match.group(1)}rank", path=name, line=1
                    )
                slots.append((int(match.group(1)), index))
        if len(slots) < 2:
            raise GecInputError(
                "header needs system1Id/system1rank and system2Id/system2rank", path=name, line=1
            )
        slots.sort()
        pairs = [(sys_col, columns[f"system{number}rank"]) for number, sys_col in slots]
        judge_col = columns.get("judgeid")
        item_col = columns.get("segmentid", columns.get("srcindex"))
        if judge_col is None or item_col is None:
            raise GecInputError("header needs judgeId and segmentId (or srcIndex) columns", path=name, line=1)
        width = len(header)
        judgments: list[RankingJudgment] = []
        for row in reader:
            line = reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != width:
                raise GecInputError(f"{len(row)} fields, the header has {width}", path=name, line=line)
            annotator = row[judge_col].strip()
            if annotator in excluded:
                continue
            entries = []
            for sys_col, rank_col in pairs:
                system = row[sys_col].strip()
                if not system:
                    continue
                entries.append((system, _parse_rank(row[rank_col], name, line, header[rank_col].strip())))
            if len(entries) < 2:
                raise GecInputError("a ranking row needs at least two systems", path=name, line=line)
            judgments.append(RankingJudgment(row[item_col].strip(), annotator, tuple(entries)))
    return judgments


def read_jsonl(
    source: Source, *, exclude_judges: Sequence[str] = (), limit: int | None = None
) -> list[RankingJudgment]:
    """Our own JSONL: one k-way ranking per line, blank lines ignored.

    Each line is an object with ``item`` (string or number), ``annotator``
    (string) and either

    - ``"ranks": {"SYS": 1, "OTHER": 2, ...}`` (one entry per system), or
    - ``"entries": [["SYS", 1], ["OTHER", 1], ...]`` (also
      ``[{"system": "SYS", "rank": 1}, ...]``), which keeps document order and
      allows a system twice (identical outputs shown once count as separate
      entries with the same rank).

    Ranks are integers >= 1, or -1 for an entry that was not ranked.
    """
    name, text = open_text(source, limit=limit)
    excluded = set(exclude_judges)
    judgments: list[RankingJudgment] = []
    with io.StringIO(text) as handle:
        for line_no, text in enumerate(handle, 1):
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise GecInputError(f"not JSON: {exc.msg}", path=name, line=line_no) from None
            if not isinstance(record, dict):
                raise GecInputError("a line must be a JSON object", path=name, line=line_no)
            if "item" not in record or "annotator" not in record:
                raise GecInputError('a ranking needs "item" and "annotator"', path=name, line=line_no)
            annotator = str(record["annotator"])
            if annotator in excluded:
                continue
            raw = _jsonl_entries(record, name, line_no)
            entries = []
            for system, rank in raw:
                if not isinstance(system, str) or not system:
                    raise GecInputError(
                        f"system {system!r} is not a non-empty string", path=name, line=line_no
                    )
                if isinstance(rank, bool) or not isinstance(rank, int) or (rank < 1 and rank != SKIPPED):
                    raise GecInputError(
                        f"rank {rank!r} of {system} is not an integer >= 1 or -1", path=name, line=line_no
                    )
                entries.append((system, rank))
            if len(entries) < 2:
                raise GecInputError("a ranking needs at least two entries", path=name, line=line_no)
            judgments.append(RankingJudgment(str(record["item"]), annotator, tuple(entries)))
    return judgments


def _jsonl_entries(record: dict, path: str, line: int) -> list[tuple[object, object]]:
    if "ranks" in record:
        ranks = record["ranks"]
        if not isinstance(ranks, dict):
            raise GecInputError('"ranks" must be an object {system: rank}', path=path, line=line)
        return list(ranks.items())
    if "entries" in record:
        entries = record["entries"]
        if not isinstance(entries, list):
            raise GecInputError('"entries" must be a list', path=path, line=line)
        out: list[tuple[object, object]] = []
        for entry in entries:
            if isinstance(entry, dict) and "system" in entry and "rank" in entry:
                out.append((entry["system"], entry["rank"]))
            elif isinstance(entry, list) and len(entry) == 2:
                out.append((entry[0], entry[1]))
            else:
                raise GecInputError(f"entry {entry!r} is not [system, rank]", path=path, line=line)
        return out
    raise GecInputError('a ranking needs "ranks" or "entries"', path=path, line=line)


def write_jsonl(rankings: Iterable[RankingJudgment], path: str | Path) -> None:
    """Write rankings in the ``read_jsonl`` layout (``entries`` form, so duplicates and order survive)."""
    with open(path, "w", encoding="utf-8") as handle:
        for ranking in rankings:
            record = {
                "item": ranking.item,
                "annotator": ranking.annotator,
                "entries": [[system, rank] for system, rank in ranking.entries],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def read_rankings_keyed(
    source: Source,
    fmt: str,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int | None = None,
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
) -> tuple[list[RankingJudgment], ItemKey | None]:
    """``read_rankings`` and, for Appraise XML, the ``ItemKey`` its items were read by (else None)."""
    if fmt == "appraise-xml":
        return read_appraise_xml_keyed(
            source,
            exclude_judges=exclude_judges,
            limit=limit,
            src_id_base=src_id_base,
            corpus_lines=corpus_lines,
        )
    if src_id_base is not None:
        raise GecInputError(f"--src-id-base applies to appraise-xml judgments only, not {fmt}")
    return read_rankings(source, fmt, exclude_judges=exclude_judges, limit=limit), None


def read_rankings(
    source: Source,
    fmt: str,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int | None = None,
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
) -> list[RankingJudgment]:
    """Read k-way rankings in one of ``FORMATS`` (path, bytes or binary file, gzip or not); Appraise
    XML items named as ``appraise_item_key`` says (``src_id_base``/``corpus_lines`` are its inputs)."""
    if fmt == "appraise-xml":
        return read_appraise_xml(
            source,
            exclude_judges=exclude_judges,
            limit=limit,
            src_id_base=src_id_base,
            corpus_lines=corpus_lines,
        )
    readers = {"wmt-csv": read_wmt_csv, "jsonl": read_jsonl}
    if fmt not in readers:
        raise ValueError(f"unknown judgment format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if src_id_base is not None:
        raise GecInputError(f"--src-id-base applies to appraise-xml judgments only, not {fmt}")
    return readers[fmt](source, exclude_judges=exclude_judges, limit=limit)


def read_pairwise(
    source: Source,
    fmt: str,
    *,
    exclude_judges: Sequence[str] = (),
    limit: int | None = None,
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
) -> list[PairwiseJudgment]:
    """Read rankings and expand them to pairwise judgments (the reference's ``-n 2``)."""
    return expand_pairwise(
        read_rankings(
            source,
            fmt,
            exclude_judges=exclude_judges,
            limit=limit,
            src_id_base=src_id_base,
            corpus_lines=corpus_lines,
        )
    )
