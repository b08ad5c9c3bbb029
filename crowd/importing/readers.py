"""Reading results files into plain judgments (no database): MTurk CSV, Appraise XML, WMT CSV, PRWS CSV.

See the package docstring (crowd.importing) for the mapping schema and what is skipped.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geceval.errors import GecInputError
from geceval.judgments import SKIPPED, RankingJudgment, read_appraise_xml, read_wmt_csv
from geceval.prws import read_prws_csv
from ranking.models import Protocol

FORMATS = ("mturk-csv", "appraise-xml", "wmt-csv", "prws-csv")


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
class Parsed:
    protocol: str
    judgments: list[ParsedJudgment]
    skipped: Counter
    mapping: dict | None = None
    columns: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- reading


def _as_path(path_or_bytes: str | Path | bytes, suffix: str, stack: list) -> Path:
    if isinstance(path_or_bytes, bytes):
        handle = tempfile.NamedTemporaryFile(suffix=suffix)  # noqa: SIM115 (closed by the caller's stack)
        handle.write(path_or_bytes)
        handle.flush()
        stack.append(handle)
        return Path(handle.name)
    return Path(path_or_bytes)


def _read_bytes(path_or_bytes: str | Path | bytes) -> tuple[str, bytes]:
    if isinstance(path_or_bytes, bytes):
        return "upload", path_or_bytes
    path = Path(path_or_bytes)
    try:
        return str(path), path.read_bytes()
    except OSError as exc:
        raise GecInputError(f"cannot read: {exc.strerror}", path=str(path)) from None


_SPLIT = re.compile(r"[,\s]+")


def _appraise_groups(path: Path, exclude: set[str]) -> list[list[int]]:
    """Per kept ranking item (as the core reader keeps them), the sizes of its collapsed groups."""
    import xml.parsers.expat

    out: list[list[int]] = []
    current: dict | None = None
    parser = xml.parsers.expat.ParserCreate()

    def start(tag, attrs):
        nonlocal current
        if tag == "ranking-item":
            current = {
                "user": attrs.get("user", ""),
                "skip": attrs.get("skipped", "").lower() == "true",
                "g": [],
            }
        elif tag == "translation" and current is not None:
            current["g"].append(len([s for s in _SPLIT.split(attrs.get("system", "")) if s]))

    def end(tag):
        nonlocal current
        if tag == "ranking-item" and current is not None:
            if current["g"] and not current["skip"] and current["user"] not in exclude:
                out.append(current["g"])
            current = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    with open(path, "rb") as handle:
        parser.ParseFile(handle)
    return out


def _from_rankings(rankings: list[RankingJudgment], groups: list[list[int]] | None) -> list[ParsedJudgment]:
    out = []
    for index, r in enumerate(rankings):
        sizes = groups[index] if groups is not None else [1] * len(r.entries)
        entries, at = [], 0
        for size in sizes:
            chunk = r.entries[at : at + size]
            at += size
            entries.append(Entry(systems=tuple(s for s, _ in chunk), rank=chunk[0][1]))
        out.append(ParsedJudgment(item=r.item, worker=r.annotator, hit=f"item {r.item}", entries=entries))
    return out


def detect_mturk_mapping(columns: Sequence[str]) -> dict:
    """The column mapping of an MTurk batch CSV laid out as Input.system<k> / Answer.rank_<k>."""
    cols = set(columns)

    def first(*names):
        return next((n for n in names if n in cols), None)

    item = first("Input.item_id", "Input.id", "Input.item", "Input.segment_id", "Input.sentence_id")
    systems: dict[int, str] = {}
    for c in columns:
        m = re.fullmatch(r"Input\.system_?(\d+)", c)
        if m:
            systems[int(m.group(1))] = c
    if item is None or not systems:
        raise GecInputError(
            "cannot detect the column mapping (need Input.item_id and Input.system<k>); give a mapping"
        )
    answers, texts, kind = [], [], None
    for k in sorted(systems):
        rank = first(f"Answer.rank_{k}", f"Answer.rank{k}")
        score = first(f"Answer.score_{k}", f"Answer.score{k}")
        if rank and kind != "score":
            answers.append(rank)
            kind = "rank"
        elif score and kind != "rank":
            answers.append(score)
            kind = "score"
        else:
            raise GecInputError(f"no Answer.rank_{k} or Answer.score_{k} column for Input.system{k}")
        texts.append(first(f"Input.text{k}", f"Input.text_{k}", f"Input.output{k}", f"Input.output_{k}"))
    mapping = {
        "item": item,
        "source": first("Input.source", "Input.src", "Input.original", "Input.sentence"),
        "systems": [systems[k] for k in sorted(systems)],
        "answers": answers,
        "answer_kind": kind,
        "worker": "WorkerId",
        "assignment": "AssignmentId",
        "status": "AssignmentStatus",
        "seconds": "WorkTimeInSeconds",
        "hit": "HITId",
    }
    if all(texts):
        mapping["texts"] = texts
    return mapping


def _check_mapping(mapping: Mapping[str, Any], columns: Sequence[str]) -> dict:
    if not isinstance(mapping, Mapping):
        raise GecInputError("the mapping must be a JSON object")
    cols = set(columns)
    mapping = dict(mapping)
    if mapping.get("answer_kind", "rank") not in {"rank", "score"}:
        raise GecInputError("mapping: answer_kind is 'rank' or 'score'")
    mapping.setdefault("answer_kind", "rank")
    for key, default in (
        ("worker", "WorkerId"),
        ("assignment", "AssignmentId"),
        ("status", "AssignmentStatus"),
        ("seconds", "WorkTimeInSeconds"),
        ("hit", "HITId"),
    ):
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


def _parse_mturk(data: bytes, name: str, mapping: Mapping | None, include_rejected: bool) -> Parsed:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GecInputError(f"not UTF-8 (byte {exc.start})", path=name) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header:
        raise GecInputError("empty file, expected an MTurk batch results header", path=name, line=1)
    header = [h.strip() for h in header]
    mapping = _check_mapping(mapping or detect_mturk_mapping(header), header)
    col = {h: i for i, h in enumerate(header)}
    kind = mapping["answer_kind"]
    skipped: Counter = Counter()
    out: list[ParsedJudgment] = []
    for row in reader:
        line = reader.line_num
        if not row or not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise GecInputError(f"{len(row)} fields, the header has {len(header)}", path=name, line=line)

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
        blocks = mapping.get("items") or [mapping]
        row_judgments = []
        for block in blocks:
            item = get(block["item"])
            if not item:
                skipped["empty slot"] += 1
                continue
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
                except ValueError:
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
            if len(entries) < (2 if kind == "rank" else 1):
                skipped["judgment with too few answers"] += 1
                continue
            source = row[col[block["source"]]] if block.get("source") else None
            row_judgments.append(ParsedJudgment(item, worker, hit, entries, source=source))
        for j in row_judgments:
            j.seconds = seconds / len(row_judgments) if seconds is not None else None
        out.extend(row_judgments)
    return Parsed(Protocol.RANKING if kind == "rank" else Protocol.PRWS, out, skipped, mapping, header)


def judgments_parse(
    *,
    fmt: str,
    path_or_bytes: str | Path | bytes,
    mapping: Mapping | None = None,
    include_rejected: bool = False,
    exclude_judges: Sequence[str] = (),
) -> Parsed:
    """Read a results file into plain judgments (no database): the preview and the import use this."""
    parsed = _judgments_parse(
        fmt=fmt,
        path_or_bytes=path_or_bytes,
        mapping=mapping,
        include_rejected=include_rejected,
        exclude_judges=exclude_judges,
    )
    _refuse_nul(parsed)
    return parsed


def _refuse_nul(parsed: Parsed) -> None:
    """PostgreSQL cannot store a NUL character: refuse it here rather than fail while saving."""
    for j in parsed.judgments:
        texts = [j.item, j.worker, j.hit, j.source or ""]
        for e in j.entries:
            texts += [*e.systems, e.text or ""]
        if any("\x00" in t for t in texts):
            raise GecInputError(f"item {j.item!r}: contains a NUL character")


def _judgments_parse(
    *,
    fmt: str,
    path_or_bytes: str | Path | bytes,
    mapping: Mapping | None,
    include_rejected: bool,
    exclude_judges: Sequence[str],
) -> Parsed:
    if fmt not in FORMATS:
        raise GecInputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    exclude = set(exclude_judges)
    if fmt == "mturk-csv":
        name, data = _read_bytes(path_or_bytes)
        parsed = _parse_mturk(data, name, mapping, include_rejected)
        if exclude:
            parsed.judgments = [j for j in parsed.judgments if j.worker not in exclude]
        return parsed
    stack: list = []
    try:
        if fmt == "appraise-xml":
            path = _as_path(path_or_bytes, ".xml", stack)
            rankings = read_appraise_xml(path, exclude_judges=sorted(exclude))
            groups = _appraise_groups(path, exclude)
            if len(groups) != len(rankings) or any(
                sum(g) != len(r.entries) for g, r in zip(groups, rankings)
            ):
                groups = None  # cannot align: one candidate per system
            return _clean_ranks(Parsed(Protocol.RANKING, _from_rankings(rankings, groups), Counter()))
        if fmt == "wmt-csv":
            path = _as_path(path_or_bytes, ".csv", stack)
            rankings = read_wmt_csv(path, exclude_judges=sorted(exclude))
            return _clean_ranks(Parsed(Protocol.RANKING, _from_rankings(rankings, None), Counter()))
        path = _as_path(path_or_bytes, ".csv", stack)
        ratings = read_prws_csv(path)
        skipped: Counter = Counter()
        grouped: dict[tuple[str, str], list[Entry]] = defaultdict(list)
        for r in ratings:
            if r.annotator in exclude:
                continue
            score = round(r.score)
            if not 0 <= score <= 100:
                skipped["score outside 0-100"] += 1
                continue
            grouped[(r.item, r.annotator)].append(
                Entry((r.system,), score=score, meaning_changed=r.meaning_changed)
            )
        judgments = [
            ParsedJudgment(item, worker, f"item {item}", entries)
            for (item, worker), entries in grouped.items()
        ]
        return Parsed(Protocol.PRWS, judgments, skipped)
    finally:
        for handle in stack:
            handle.close()


def _clean_ranks(parsed: Parsed) -> Parsed:
    """Unranked entries (-1) and ranks past 5 leave the judgment; too few answers drop it."""
    kept = []
    for j in parsed.judgments:
        entries = []
        for e in j.entries:
            if e.rank == SKIPPED:
                parsed.skipped["unranked entry"] += 1
            elif not 1 <= e.rank <= 5:
                parsed.skipped["rank outside 1-5"] += 1
            else:
                entries.append(e)
        if len(entries) < 2:
            parsed.skipped["judgment with too few answers"] += 1
            continue
        j.entries = entries
        kept.append(j)
    parsed.judgments = kept
    return parsed
