"""Reading results files into plain judgments (no database): MTurk CSV, Appraise XML, WMT CSV, PRWS CSV.

See the package docstring (crowd.importing) for the mapping schema and what is skipped.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.conf import settings

from annotate.streaming import MemoryGuard
from geceval.errors import GecInputError
from geceval.formats.inputs import Input, Source, read_input
from geceval.formats.judgments import SKIPPED, ItemKey, RankingJudgment, read_appraise_xml_keyed, read_wmt_csv
from geceval.formats.mturk import Entry, ParsedJudgment, parse_mturk_csv
from geceval.formats.prws_csv import read_prws_csv
from geceval.formats.stream import check_line_count, iter_bytes
from ranking.protocols import protocol_get

# The protocols the file formats imply, by name (the registry owns what they mean).
RANKING = protocol_get("ranking").name
PRWS = protocol_get("prws").name

FORMATS = ("mturk-csv", "appraise-xml", "wmt-csv", "prws-csv")
MTURK_MAX_ROWS = 100_000
"""An MTurk batch file is read whole, at ~0.9 KB of memory a row once parsed (200,000 rows: +173 MB):
more rows are refused before it is read, so it stays within UPLOAD_MEMORY_MAX_BYTES (issue 36).
Real batches are far smaller (JFLEG's pairwise judgments: 1,629 rows)."""


FULL_MAX_ROWS = 100_000
"""A WMT or PRWS CSV stored in the full form (a screen per judgment) is read whole, at up to ~1 KB a
row once parsed (a 5 MB WMT CSV of 437,000 short rows: +418 MB): more rows are refused there before it
is read, and the automatic choice stores such a file in the compact form (issue 36 review)."""


def more_rows_than(path_or_bytes: Source, max_rows: int) -> bool:
    """Whether the file holds more than ``max_rows`` rows after its header, its newlines counted as
    they stream (False when it cannot be read: the import then says why). A stream is left at 0."""
    count = 0
    try:
        for chunk in iter_bytes(path_or_bytes, limit=settings.JUDGMENT_UPLOAD_MAX_BYTES):
            count += chunk.count(b"\n")
            if count > max_rows + 1:
                return True
    except GecInputError:
        return False
    finally:
        if hasattr(path_or_bytes, "seek"):
            path_or_bytes.seek(0)
    return False


@dataclass
class Parsed:
    protocol: str
    judgments: list[ParsedJudgment]
    skipped: Counter
    mapping: dict | None = None
    columns: list[str] = field(default_factory=list)
    item_key: ItemKey | None = None
    """How an Appraise file's items name sentences (``geceval.formats.judgments.appraise_item_key``)."""


# --------------------------------------------------------------------------- reading


def _open(path_or_bytes: Source) -> Input:
    """The file as every import opens it: gzip detected by its magic bytes, bounded by UPLOAD_MAX_BYTES."""
    return read_input(path_or_bytes, limit=settings.UPLOAD_MAX_BYTES)


def _check_rows(path_or_bytes: Source) -> None:
    """Refuse a file of more than ``MTURK_MAX_ROWS`` rows (and its header) as its newlines stream, before
    it is read whole; a stream is left at its start for the reading."""
    check_line_count(
        path_or_bytes,
        max_lines=MTURK_MAX_ROWS + 1,
        limit=settings.UPLOAD_MAX_BYTES,
        what="lines (an MTurk batch file may hold at most 100000 rows: split it)",
    )
    if hasattr(path_or_bytes, "seek"):
        path_or_bytes.seek(0)


def _from_rankings(rankings: list[RankingJudgment]) -> list[ParsedJudgment]:
    """One candidate per group shown (Appraise's collapsed ``system="A,B"`` stays one candidate)."""
    return [
        ParsedJudgment(
            item=r.item,
            worker=r.annotator,
            hit=f"item {r.item}",
            entries=[Entry(systems=systems, rank=rank) for systems, rank in r.groups()],
        )
        for r in rankings
    ]


def _parse_mturk(data: bytes, name: str, mapping: Mapping | None, include_rejected: bool) -> Parsed:
    batch = parse_mturk_csv(data, name=name, mapping=mapping, include_rejected=include_rejected)
    protocol = RANKING if batch.answer_kind == "rank" else PRWS
    return Parsed(protocol, batch.judgments, batch.skipped, batch.mapping, batch.columns)


def judgments_parse(
    *,
    fmt: str,
    path_or_bytes: Source,
    mapping: Mapping | None = None,
    include_rejected: bool = False,
    exclude_judges: Sequence[str] = (),
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
) -> Parsed:
    """Read a results file into plain judgments (no database): the preview and the import use this.

    Appraise XML items name sentences by ``geceval.formats.judgments.appraise_item_key``'s rule (src-id
    minus ``src_id_base``, given or detected with the corpus' ``corpus_lines``, else id)."""
    if src_id_base is not None and fmt != "appraise-xml":
        raise GecInputError(f"a src-id base applies to appraise-xml files only, not {fmt}")
    parsed = _judgments_parse(
        fmt=fmt,
        path_or_bytes=path_or_bytes,
        mapping=mapping,
        include_rejected=include_rejected,
        exclude_judges=exclude_judges,
        src_id_base=src_id_base,
        corpus_lines=corpus_lines,
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
    path_or_bytes: Source,
    mapping: Mapping | None,
    include_rejected: bool,
    exclude_judges: Sequence[str],
    src_id_base: int | None = None,
    corpus_lines: int | None = None,
) -> Parsed:
    if fmt not in FORMATS:
        raise GecInputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    exclude = set(exclude_judges)
    if fmt == "mturk-csv":
        _check_rows(path_or_bytes)
    elif fmt in ("wmt-csv", "prws-csv"):
        check_line_count(
            path_or_bytes,
            max_lines=FULL_MAX_ROWS + 1,
            limit=settings.UPLOAD_MAX_BYTES,
            what=f"lines (more than {FULL_MAX_ROWS} rows import in the compact form only)",
        )
        if hasattr(path_or_bytes, "seek"):
            path_or_bytes.seek(0)
    opened = _open(path_or_bytes)
    if fmt == "mturk-csv":
        parsed = _parse_mturk(opened.data, opened.name, mapping, include_rejected)
        if exclude:
            parsed.judgments = [j for j in parsed.judgments if j.worker not in exclude]
        return parsed
    if fmt == "appraise-xml":
        rankings, key = read_appraise_xml_keyed(
            opened,
            exclude_judges=sorted(exclude),
            src_id_base=src_id_base,
            corpus_lines=corpus_lines,
            check=MemoryGuard(opened.name).check,  # items and entries are capped too (issue 36)
        )
        return _clean_ranks(Parsed(RANKING, _from_rankings(rankings), Counter(), item_key=key))
    if fmt == "wmt-csv":
        rankings = read_wmt_csv(opened, exclude_judges=sorted(exclude))
        return _clean_ranks(Parsed(RANKING, _from_rankings(rankings), Counter()))
    ratings = read_prws_csv(opened)
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
        ParsedJudgment(item, worker, f"item {item}", entries) for (item, worker), entries in grouped.items()
    ]
    return Parsed(PRWS, judgments, skipped)


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
