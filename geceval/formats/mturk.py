"""MTurk batch results CSVs as MTurk writes them: layout detection and reading, no framework.

The web import (``crowd.importing``) and ``python -m geceval rank --format
mturk-csv`` share this reader, so a file reads the same way in both.

As MTurk writes them
    The header ends with ``Approve`` and ``Reject``, which are empty in a
    downloaded batch; MTurk then writes data rows that stop before them, so a
    row may have fewer fields than the header when only those trailing
    columns are missing.

Detection (no mapping given)
    item id        one of ``ITEM_COLUMNS``;
    systems        ``Input.system<k>`` (or ``Input.system_<k>``), several
                   names space- or comma-joined when identical outputs were
                   shown once;
    answers        ``Answer.rank_<k>`` / ``Answer.rank<k>`` (ranks 1-5) or
                   ``Answer.score_<k>`` / ``Answer.score<k>`` (scores 0-100);
    texts          ``Input.sentence<k>``, ``Input.text<k>`` or ``Input.output<k>``
                   (optional);
    source         ``Input.source``, ``Input.src``, ``Input.original`` or an
                   unnumbered ``Input.sentence`` (optional).
    Only a layout that fits two ways (two item-id columns, two text families
    for one system, ranks and scores) or none asks for a mapping; the error
    names the columns found and the ones needed.

Mapping (see ``crowd.importing`` for the JSON schema): ``item``, ``systems``,
``answers``, optional ``texts`` / ``source``, ``answer_kind`` (``rank`` or
``score``), the assignment columns, and optional ``items`` for several items
per row.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.judgments import RankingJudgment

ITEM_COLUMNS = (
    "Input.sentID",
    "Input.sent_id",
    "Input.segment_id",
    "Input.item_id",
    "Input.id",
    "Input.hit_item",
    "Input.item",
    "Input.sentence_id",
)
TEXT_FAMILIES = ("sentence", "text", "output")
SOURCE_COLUMNS = ("Input.source", "Input.src", "Input.original", "Input.sentence")
TRAILING_EMPTY = ("Approve", "Reject")
"""MTurk's own trailing columns: a data row may stop before them."""

ASSIGNMENT_DEFAULTS = {
    "worker": "WorkerId",
    "assignment": "AssignmentId",
    "status": "AssignmentStatus",
    "seconds": "WorkTimeInSeconds",
    "hit": "HITId",
}

_SPLIT = re.compile(r"[,\s]+")


@dataclass
class Entry:
    """One candidate as shown: the systems it stands for and its answer."""

    systems: tuple[str, ...]
    rank: int | None = None
    score: int | None = None
    meaning_changed: bool = False
    text: str | None = None


@dataclass
class ParsedJudgment:
    item: str
    worker: str
    hit: str
    entries: list[Entry]
    seconds: float | None = None
    source: str | None = None


@dataclass
class MTurkBatch:
    """What a batch file holds: judgments, what was skipped and why, and the mapping used."""

    answer_kind: str
    judgments: list[ParsedJudgment]
    skipped: Counter
    mapping: dict
    columns: list[str] = field(default_factory=list)


def ranking_of(item: str, annotator: str, groups: Iterable[tuple[Sequence[str], int]]) -> RankingJudgment:
    """A k-way ranking from candidates as shown: each system of a collapsed candidate takes its rank.

    The pairs of the result (``RankingJudgment.pairs``) are what the import
    counts and what the analyses rank from.
    """
    groups = [(tuple(systems), rank) for systems, rank in groups]
    sizes = tuple(len(systems) for systems, _ in groups)
    return RankingJudgment(
        item,
        annotator,
        tuple((s, rank) for systems, rank in groups for s in systems),
        shown=sizes if any(size != 1 for size in sizes) else None,
    )


def rankings_of(batch: MTurkBatch) -> list[RankingJudgment]:
    if batch.answer_kind != "rank":
        raise GecInputError("the batch holds scores, not ranks; rank systems from ranks only")
    return [ranking_of(j.item, j.worker, ((e.systems, e.rank) for e in j.entries)) for j in batch.judgments]


# --------------------------------------------------------------------------- detection


def _numbered(columns: Sequence[str], pattern: str) -> dict[int, str]:
    found: dict[int, str] = {}
    for c in columns:
        m = re.fullmatch(pattern, c)
        if m:
            found.setdefault(int(m.group(1)), c)
    return found


def _cannot_detect(columns: Sequence[str], problem: str) -> GecInputError:
    shown = [c for c in columns if c.startswith(("Input.", "Answer."))] or list(columns)
    needed = (
        f"an item id (one of {', '.join(ITEM_COLUMNS[:6])}), Input.system<k> and "
        "Answer.rank_<k> or Answer.score_<k> for each k; texts optional (Input.sentence<k>, "
        "Input.text<k> or Input.output<k>)"
    )
    return GecInputError(
        f"cannot detect the MTurk layout: {problem}. Columns found: {', '.join(shown) or 'none'}. "
        f"Needed: {needed}. Give a column mapping (JSON) to read this file"
    )


def detect_mturk_mapping(columns: Sequence[str]) -> dict:
    """The column mapping of an MTurk batch CSV, from its header alone."""
    cols = set(columns)
    items = [c for c in ITEM_COLUMNS if c in cols]
    if not items:
        raise _cannot_detect(columns, "no item id column")
    if len(items) > 1:
        raise _cannot_detect(columns, f"several item id columns ({', '.join(items)})")
    systems = _numbered(columns, r"Input\.system_?(\d+)")
    if not systems:
        raise _cannot_detect(columns, "no Input.system<k> column")
    ranks = _numbered(columns, r"Answer\.rank_?(\d+)")
    scores = _numbered(columns, r"Answer\.score_?(\d+)")
    if ranks and scores:
        raise _cannot_detect(columns, "both Answer.rank<k> and Answer.score<k> columns")
    answers, kind = (ranks, "rank") if ranks else (scores, "score")
    missing = [f"Input.system{k}" for k in sorted(systems) if k not in answers]
    if missing:
        raise _cannot_detect(columns, f"no answer column for {', '.join(missing)}")
    families = {f: _numbered(columns, rf"Input\.{f}_?(\d+)") for f in TEXT_FAMILIES}
    texts: list[str | None] = []
    for k in sorted(systems):
        found = [families[f][k] for f in TEXT_FAMILIES if k in families[f]]
        if len(found) > 1:
            raise _cannot_detect(columns, f"several text columns for Input.system{k} ({', '.join(found)})")
        texts.append(found[0] if found else None)
    mapping: dict[str, Any] = {
        "item": items[0],
        "source": next((c for c in SOURCE_COLUMNS if c in cols), None),
        "systems": [systems[k] for k in sorted(systems)],
        "answers": [answers[k] for k in sorted(systems)],
        "answer_kind": kind,
        **ASSIGNMENT_DEFAULTS,
    }
    if all(texts):
        mapping["texts"] = texts
    return mapping


def check_mapping(mapping: Mapping[str, Any], columns: Sequence[str]) -> dict:
    """A given mapping, completed with the defaults; an error names what does not fit the file."""
    if not isinstance(mapping, Mapping):
        raise GecInputError("the mapping must be a JSON object")
    cols = set(columns)
    mapping = dict(mapping)
    if mapping.get("answer_kind", "rank") not in {"rank", "score"}:
        raise GecInputError("mapping: answer_kind is 'rank' or 'score'")
    mapping.setdefault("answer_kind", "rank")
    for key, default in ASSIGNMENT_DEFAULTS.items():
        mapping.setdefault(key, default)
    blocks = mapping.get("items") or [mapping]
    if not isinstance(blocks, list):
        raise GecInputError("mapping: items is a list of objects")
    for block in blocks:
        if not isinstance(block, Mapping) or not isinstance(block.get("item"), str):
            raise GecInputError("mapping: each item block needs an 'item' column name")
        systems, answers = block.get("systems"), block.get("answers")
        if not isinstance(systems, list) or not isinstance(answers, list) or len(systems) != len(answers):
            raise GecInputError("mapping: 'systems' and 'answers' are lists of the same length")
        texts = block.get("texts")
        if texts is not None and (not isinstance(texts, list) or len(texts) != len(systems)):
            raise GecInputError("mapping: 'texts' has one column per system")
        named = [
            block["item"],
            *systems,
            *answers,
            *(texts or []),
            *([block["source"]] if block.get("source") else []),
        ]
        missing = [c for c in named if c not in cols]
        if missing:
            raise GecInputError(f"mapping names columns the file does not have: {', '.join(missing)}")
    if mapping["worker"] not in cols:
        raise GecInputError(f"no worker column {mapping['worker']!r}")
    return mapping


# --------------------------------------------------------------------------- reading


def _rows(text: str, name: str) -> tuple[list[str], Iterable[tuple[int, list[str]]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise GecInputError(f"not a CSV file: {exc}", path=name, line=1) from None
    if not header:
        raise GecInputError("empty file, expected an MTurk batch results header", path=name, line=1)
    header = [h.strip() for h in header]
    # The columns a short row may leave out: MTurk's own trailing Approve/Reject, when they end the header.
    optional = 0
    while optional < len(header) and header[len(header) - 1 - optional] in TRAILING_EMPTY:
        optional += 1

    def rows():
        try:
            for row in reader:
                line = reader.line_num
                if not row or not any(c.strip() for c in row):
                    continue
                if len(header) - optional <= len(row) < len(header):
                    row = row + [""] * (len(header) - len(row))
                if len(row) != len(header):
                    short = f" (only {', '.join(TRAILING_EMPTY)} may be left out)" if optional else ""
                    raise GecInputError(
                        f"{len(row)} fields, the header has {len(header)}{short}", path=name, line=line
                    )
                yield line, row
        except csv.Error as exc:
            raise GecInputError(f"not a CSV file: {exc}", path=name, line=reader.line_num) from None

    return header, rows()


def parse_mturk_csv(
    data: bytes, *, name: str = "<mturk-csv>", mapping: Mapping | None = None, include_rejected: bool = False
) -> MTurkBatch:
    """Read an MTurk batch results CSV; rejected assignments are skipped unless ``include_rejected``."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GecInputError(f"not UTF-8 (byte {exc.start})", path=name) from None
    header, rows = _rows(text, name)
    try:
        mapping = check_mapping(mapping or detect_mturk_mapping(header), header)
    except GecInputError as exc:
        raise GecInputError(exc.problem, path=name) from None
    col = {h: i for i, h in enumerate(header)}
    kind = mapping["answer_kind"]
    skipped: Counter = Counter()
    out: list[ParsedJudgment] = []
    for line, row in rows:

        def get(column, row=row):
            return row[col[column]].strip() if column and column in col else ""

        status = get(mapping["status"])
        if status.lower() == "rejected" and not include_rejected:
            skipped["rejected assignment"] += 1
            continue
        worker = get(mapping["worker"])
        if not worker:
            raise GecInputError("empty WorkerId", path=name, line=line)
        hit = get(mapping["hit"]) or get(mapping["assignment"]) or f"row {line}"
        seconds_raw = get(mapping["seconds"])
        try:
            seconds = float(seconds_raw) if seconds_raw else None
        except ValueError:
            raise GecInputError(
                f"WorkTimeInSeconds {seconds_raw!r} is not a number", path=name, line=line
            ) from None
        row_judgments = []
        for block in mapping.get("items") or [mapping]:
            item = get(block["item"])
            if not item:
                skipped["empty slot"] += 1
                continue
            entries = _entries(block, kind, row, col, get, skipped, name, line)
            if len(entries) < (2 if kind == "rank" else 1):
                skipped["judgment with too few answers"] += 1
                continue
            source = row[col[block["source"]]] if block.get("source") else None
            row_judgments.append(ParsedJudgment(item, worker, hit, entries, source=source))
        for j in row_judgments:
            j.seconds = seconds / len(row_judgments) if seconds is not None else None
        out.extend(row_judgments)
    return MTurkBatch(kind, out, skipped, mapping, header)


def _entries(block, kind, row, col, get, skipped: Counter, name: str, line: int) -> list[Entry]:
    entries = []
    texts = block.get("texts") or [None] * len(block["systems"])
    for sys_col, ans_col, text_col in zip(block["systems"], block["answers"], texts):
        systems = tuple(s for s in _SPLIT.split(get(sys_col)) if s)
        if not systems:
            skipped["empty slot"] += 1
            continue
        raw = get(ans_col)
        if raw == "":
            skipped["unanswered slot"] += 1
            continue
        try:
            value = round(float(raw))
        except (ValueError, OverflowError):
            raise GecInputError(f"{ans_col} {raw!r} is not a number", path=name, line=line) from None
        if kind == "rank" and not 1 <= value <= 5:
            skipped["rank outside 1-5"] += 1
            continue
        if kind == "score" and not 0 <= value <= 100:
            skipped["score outside 0-100"] += 1
            continue
        entries.append(
            Entry(
                systems=systems,
                rank=value if kind == "rank" else None,
                score=value if kind == "score" else None,
                text=row[col[text_col]] if text_col else None,
            )
        )
    return entries
