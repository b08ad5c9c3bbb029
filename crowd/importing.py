"""Importing past crowd results as a closed ranking campaign of origin ``imported``.

Formats: ``mturk-csv`` (an MTurk batch results CSV), ``appraise-xml`` and
``wmt-csv`` (read by ``geceval.judgments``), ``prws-csv`` (``geceval.prws``).
Everything lands in ranking's tables (Campaign, Hit, Screen, Candidate,
Assignment, ScreenJudgment, Rating), so analyses read imported and collected
judgments the same way. All or nothing: one transaction.

Items and sentences
    With ``corpus``, an item id names a sentence of that corpus: the sentence
    whose ``metadata["id"]`` equals the id when any sentence of the corpus
    carries such ids, else the sentence at that 0-based position (an integer
    id). Items with no such sentence are skipped ("item not in corpus").
    Without ``corpus``, a new corpus named like the campaign is made: one
    sentence per item (ordered numerically when every id is an integer, else
    by first appearance) with the source text from the file, or the item id
    itself as text when the file has none; ``metadata["id"]`` keeps the id.

Systems and outputs
    Systems are found by name in the corpus or created (kind ``source`` for
    src/source/orig/input, ``reference`` for ref*/turk, else ``model``); an
    output missing for a (system, sentence) is created with the text from the
    file, or empty. Identical outputs shown once (Appraise ``system="A,B"``,
    MTurk ``Input.system1 = "A B"``) become one candidate standing for every
    output it collapses, as in collected campaigns.

HITs, screens, workers
    One HIT per MTurk ``HITId`` (per item for the other formats), one screen
    per distinct (item, candidates shown) -- a judge who saw the same screen
    twice gets a second screen, so nothing is lost -- and one submitted
    assignment per (worker, HIT). MTurk workers are the same identities as
    live MTurk workers (platform ``mturk``, WorkerId); other formats' judges
    are identities of platform ``imported`` scoped to this campaign.

Skipped (each with a reason in the report): rejected MTurk assignments
(unless ``include_rejected``), empty slots, unanswered slots, ranks outside
1-5 (a Rating is rank 1-5 or score 0-100), judgments left with too few
answers, items not in the corpus.

MTurk mapping (``mapping``; detected when absent) is a JSON object::

    {"item": "Input.item_id",                  # required
     "source": "Input.source",                 # optional source text
     "systems": ["Input.system1", ...],        # system names, space- or comma-joined when collapsed
     "texts": ["Input.text1", ...],            # optional output texts, same length
     "answers": ["Answer.rank_1", ...],        # same length
     "answer_kind": "rank" | "score",
     "worker": "WorkerId", "assignment": "AssignmentId", "status": "AssignmentStatus",
     "seconds": "WorkTimeInSeconds", "hit": "HITId",
     "items": [ {item, source, systems, texts, answers}, ... ]}   # optional: several items per row

Detection: ``Input.system<k>`` with ``Answer.rank_<k>`` (or ``Answer.rank<k>``,
``Answer.score_<k>``), ``Input.text<k>``/``Input.output<k>``, item from
``Input.item_id``/``Input.id``/``Input.item``/``Input.segment_id``, source
from ``Input.source``/``Input.src``/``Input.original``/``Input.sentence``.
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

from django.db import transaction
from django.utils import timezone

from annotate.models import Corpus, Project, Sentence
from annotate.services import SentenceRecord, corpus_create
from crowd.models import Platform
from crowd.services.workers import crowd_workers_bulk
from geceval.errors import GecInputError
from geceval.judgments import SKIPPED, RankingJudgment, read_appraise_xml, read_wmt_csv
from geceval.prws import read_prws_csv
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignOrigin,
    CampaignStatus,
    Candidate,
    Hit,
    Output,
    Protocol,
    Rating,
    Screen,
    ScreenJudgment,
    System,
    SystemKind,
)

FORMATS = ("mturk-csv", "appraise-xml", "wmt-csv", "prws-csv")


@dataclass
class ImportReport:
    campaign: Campaign | None
    items: int = 0
    workers: int = 0
    judgments: int = 0
    pairwise: int = 0
    skipped: Counter = field(default_factory=Counter)

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def lines(self) -> list[str]:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(self.skipped.items()))
        return [
            f"items: {self.items}",
            f"workers: {self.workers}",
            f"judgments: {self.judgments}",
            f"pairwise: {self.pairwise}",
            f"skipped: {self.skipped_total}" + (f" ({reasons})" if reasons else ""),
        ]


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


def _system_kind(name: str) -> str:
    low = name.lower()
    if low in {"src", "source", "orig", "original", "input"}:
        return SystemKind.SOURCE
    if low.startswith("ref") or low == "turk":
        return SystemKind.REFERENCE
    return SystemKind.MODEL


_NUM = re.compile(r"(\d+)$")


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


# --------------------------------------------------------------------------- saving


def _item_order(items: list[str]) -> list[str]:
    if all(i.isdigit() for i in items):
        return sorted(items, key=int)
    return items


def _sentences_for(corpus: Corpus, items: list[str]) -> dict[str, int]:
    by_id = {
        str(m): pk
        for pk, m in Sentence.objects.filter(corpus=corpus, metadata__has_key="id").values_list(
            "pk", "metadata__id"
        )
    }
    if by_id:
        return {i: by_id[i] for i in items if i in by_id}
    positions = dict(Sentence.objects.filter(corpus=corpus).values_list("position", "pk"))
    return {i: positions[int(i)] for i in items if i.isdigit() and int(i) in positions}


def _pairs(entries: list[tuple[tuple[str, ...], int]]) -> int:
    expanded = tuple((s, rank) for systems, rank in entries for s in systems)
    return len(RankingJudgment("", "", expanded).pairs())


@transaction.atomic
def judgments_import(
    *,
    project: Project,
    name: str,
    fmt: str,
    path_or_bytes: str | Path | bytes,
    corpus: Corpus | None = None,
    mapping: Mapping | None = None,
    include_rejected: bool = False,
    exclude_judges: Sequence[str] = (),
) -> ImportReport:
    """Import a results file as a closed campaign of origin ``imported`` (see the module docstring).

    ``exclude_judges`` drops judges by name (e.g. ``["non-native"]`` for
    gec-ranking's all_judgments.xml, as its all_judgments.csv was made).
    """
    name = (name or "").strip()
    if not name:
        raise GecInputError("the imported campaign needs a name")
    if corpus is not None and corpus.project_id != project.pk:
        raise GecInputError("the corpus belongs to another project")
    if Campaign.objects.filter(project=project, name=name).exists():
        raise GecInputError(f"a campaign named {name!r} already exists in project {project.name!r}")
    parsed = judgments_parse(
        fmt=fmt,
        path_or_bytes=path_or_bytes,
        mapping=mapping,
        include_rejected=include_rejected,
        exclude_judges=exclude_judges,
    )
    skipped = parsed.skipped
    judgments = parsed.judgments
    items = _item_order(list(dict.fromkeys(j.item for j in judgments)))

    # Sentences.
    if corpus is None:
        sources: dict[str, str] = {}
        for j in judgments:
            if j.source and j.item not in sources:
                sources[j.item] = j.source
        if not items:
            raise GecInputError("the file has no judgments to import")
        corpus = corpus_create(
            project=project,
            name=name,
            sentences=[SentenceRecord(text=sources.get(i, i), metadata={"id": i}) for i in items],
            description=f"items of the imported judgments {name!r}",
        )
    sentence_of = _sentences_for(corpus, items)
    kept = []
    for j in judgments:
        if j.item in sentence_of:
            kept.append(j)
        else:
            skipped["item not in corpus"] += 1
    judgments = kept
    if not judgments:
        raise GecInputError("nothing to import: every judgment was skipped (" + ", ".join(skipped) + ")")

    # Systems and outputs.
    names = sorted({s for j in judgments for e in j.entries for s in e.systems})
    systems = {s.name: s for s in System.objects.filter(corpus=corpus, name__in=names)}
    new = System.objects.bulk_create(
        [System(corpus=corpus, name=n, kind=_system_kind(n)) for n in names if n not in systems]
    )
    systems.update({s.name: s for s in new})
    system_ids = {n: s.pk for n, s in systems.items()}
    outputs: dict[tuple[int, int], int] = {
        (sys_id, sent_id): pk
        for pk, sys_id, sent_id in Output.objects.filter(
            system_id__in=system_ids.values(), sentence_id__in=set(sentence_of.values())
        ).values_list("pk", "system_id", "sentence_id")
    }
    missing: dict[tuple[int, int], str] = {}
    for j in judgments:
        for e in j.entries:
            for s in e.systems:
                key = (system_ids[s], sentence_of[j.item])
                if key not in outputs and (key not in missing or not missing[key]):
                    missing[key] = e.text or ""
    made = Output.objects.bulk_create(
        [Output(system_id=k[0], sentence_id=k[1], text=t) for k, t in missing.items()], batch_size=2000
    )
    outputs.update({(o.system_id, o.sentence_id): o.pk for o in made})
    texts = dict(Output.objects.filter(pk__in=outputs.values()).values_list("pk", "text"))

    # Campaign, HITs, screens, candidates.
    owner = project.owner
    campaign = Campaign.objects.create(
        project=project,
        corpus=corpus,
        name=name,
        protocol=parsed.protocol,
        status=CampaignStatus.CLOSED,
        origin=CampaignOrigin.IMPORTED,
        max_candidates=min(5, max(2, max(len(j.entries) for j in judgments))),
        judgments_per_item=1,
        created_by=owner,
        instructions=f"Imported from {fmt}.",
    )
    campaign.systems.set(systems.values())
    hit_keys = list(dict.fromkeys(j.hit for j in judgments))
    hits = Hit.objects.bulk_create([Hit(campaign=campaign, index=i) for i, _ in enumerate(hit_keys)])
    hit_of = dict(zip(hit_keys, hits))

    screen_keys: dict[tuple, int] = {}
    seen: Counter = Counter()
    screen_rows: list[Screen] = []
    screen_entries: list[list[Entry]] = []
    per_sentence: Counter = Counter()
    per_hit: Counter = Counter()
    judgment_screen: list[int] = []
    for j in judgments:
        shape = tuple(e.systems for e in j.entries)
        base = (j.hit, j.item, shape)
        seen[(base, j.worker)] += 1
        key = (base, seen[(base, j.worker)])
        if key not in screen_keys:
            sentence_id = sentence_of[j.item]
            screen_keys[key] = len(screen_rows)
            screen_rows.append(
                Screen(
                    campaign=campaign,
                    sentence_id=sentence_id,
                    index=per_sentence[sentence_id],
                    hit=hit_of[j.hit],
                    hit_position=per_hit[j.hit],
                )
            )
            screen_entries.append(j.entries)
            per_sentence[sentence_id] += 1
            per_hit[j.hit] += 1
        judgment_screen.append(screen_keys[key])
    screens = Screen.objects.bulk_create(screen_rows, batch_size=2000)
    candidate_rows: list[Candidate] = []
    candidate_outputs: list[list[int]] = []
    first_candidate: list[int] = []
    for screen, entries in zip(screens, screen_entries):
        first_candidate.append(len(candidate_rows))
        for position, e in enumerate(entries):
            out_ids = [outputs[(system_ids[s], screen.sentence_id)] for s in e.systems]
            candidate_rows.append(
                Candidate(
                    screen=screen, position=position, text=e.text if e.text is not None else texts[out_ids[0]]
                )
            )
            candidate_outputs.append(out_ids)
    candidates = Candidate.objects.bulk_create(candidate_rows, batch_size=2000)
    Through = Candidate.outputs.through
    Through.objects.bulk_create(
        [
            Through(candidate_id=c.pk, output_id=o)
            for c, out_ids in zip(candidates, candidate_outputs)
            for o in dict.fromkeys(out_ids)
        ],
        batch_size=5000,
    )
    campaign.judgments_per_item = max(1, max(Counter(judgment_screen).values()))
    campaign.screens_per_hit = max(1, max(per_hit.values()))
    campaign.save(update_fields=["judgments_per_item", "screens_per_hit"])

    # Workers and assignments.
    if fmt == "mturk-csv":
        workers = crowd_workers_bulk(platform=Platform.MTURK, external_ids=[j.worker for j in judgments])
        user_of = {k: w.user_id for k, w in workers.items()}
    else:
        workers = crowd_workers_bulk(
            platform=Platform.IMPORTED, external_ids=[f"{campaign.pk}:{j.worker}" for j in judgments]
        )
        user_of = {k.split(":", 1)[1]: w.user_id for k, w in workers.items()}
    now = timezone.now()
    slots: Counter = Counter()
    assignment_keys: dict[tuple[str, str], int] = {}
    assignment_rows: list[Assignment] = []
    for j in judgments:
        key = (j.hit, j.worker)
        if key not in assignment_keys:
            assignment_keys[key] = len(assignment_rows)
            assignment_rows.append(
                Assignment(
                    hit=hit_of[j.hit],
                    worker_id=user_of[j.worker],
                    slot=slots[j.hit],
                    status=AssignmentStatus.SUBMITTED,
                    expires=now,
                    submitted=now,
                )
            )
            slots[j.hit] += 1
    assignments = Assignment.objects.bulk_create(assignment_rows, batch_size=2000)
    judgment_rows = [
        ScreenJudgment(
            screen=screens[s],
            assignment=assignments[assignment_keys[(j.hit, j.worker)]],
            judge_id=user_of[j.worker],
            seconds=j.seconds if j.seconds is None or j.seconds >= 0 else None,
        )
        for j, s in zip(judgments, judgment_screen)
    ]
    saved = ScreenJudgment.objects.bulk_create(judgment_rows, batch_size=2000)
    ratings = []
    pairwise = 0
    for j, s, sj in zip(judgments, judgment_screen, saved):
        base = first_candidate[s]
        for position, e in enumerate(j.entries):
            ratings.append(
                Rating(
                    judgment=sj,
                    candidate=candidates[base + position],
                    rank=e.rank,
                    score=e.score,
                    meaning_changed=e.meaning_changed,
                )
            )
        if parsed.protocol == Protocol.RANKING:
            pairwise += _pairs([(e.systems, e.rank) for e in j.entries])
    Rating.objects.bulk_create(ratings, batch_size=5000)
    return ImportReport(
        campaign=campaign,
        items=len({j.item for j in judgments}),
        workers=len({j.worker for j in judgments}),
        judgments=len(saved),
        pairwise=pairwise,
        skipped=skipped,
    )
