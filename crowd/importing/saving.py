"""Saving parsed judgments as a closed ranking campaign of origin ``imported`` (all or nothing)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotate.models import Corpus, Output, Project, Sentence, System, SystemKind
from annotate.selectors import corpus_item_names
from annotate.services import SentenceRecord, corpus_create
from crowd.importing.readers import (
    FULL_MAX_ROWS,
    Entry,
    Parsed,
    ParsedJudgment,
    judgments_parse,
    more_rows_than,
)
from crowd.models import Platform
from crowd.services.workers import crowd_workers_bulk
from geceval.errors import GecInputError
from geceval.formats.inputs import Source, content_size
from geceval.formats.joins import JoinCount, min_share, require_share
from geceval.formats.mturk import ranking_of
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignOrigin,
    CampaignStatus,
    Candidate,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
)
from ranking.protocols import protocol_get


@dataclass
class ImportReport:
    campaign: Campaign | None
    items: int = 0
    workers: int = 0
    judgments: int = 0
    pairwise: int = 0
    skipped: Counter = field(default_factory=Counter)
    item_key: str = ""
    """How an Appraise file's items named sentences (``ItemKey.describe``); empty for other formats."""
    systems_added: list[str] = field(default_factory=list)
    """Systems not found by name in a chosen corpus that already had systems, so made by the import."""

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
            *(
                [
                    f"systems added to the corpus (no system of that name was there): "
                    f"{', '.join(self.systems_added)}"
                ]
                if self.systems_added
                else []
            ),
            *([f"items: {self.item_key}"] if self.item_key else []),
        ]


COMPACT_FORMATS = ("wmt-csv", "prws-csv")


def compact_by_default(fmt: str, size: int) -> bool:
    """Whether a ``fmt`` file holding ``size`` bytes (after gzip) is stored in the compact form unless
    told otherwise. Then it is streamed and may be as large as ``JUDGMENT_UPLOAD_MAX_BYTES``; any
    other file is read whole, within ``UPLOAD_MAX_BYTES`` (the full form builds objects per judgment)."""
    return fmt in COMPACT_FORMATS and size > settings.IMPORT_COMPACT_BYTES


def _system_kind(name: str) -> str:
    low = name.lower()
    if low in {"src", "source", "orig", "original", "input"}:
        return SystemKind.SOURCE
    if low.startswith("ref") or low == "turk":
        return SystemKind.REFERENCE
    return SystemKind.MODEL


def _item_order(items: list[str]) -> list[str]:
    if all(i.isdigit() for i in items):
        return sorted(items, key=int)
    return items


def _sentences_for(corpus: Corpus, items: list[str]) -> dict[str, int]:
    by_id = {name: pk for pk, name in corpus_item_names(corpus.pk).items()}
    if by_id:
        return {i: by_id[i] for i in items if i in by_id}
    positions = dict(Sentence.objects.filter(corpus=corpus).values_list("position", "pk"))
    return {i: positions[int(i)] for i in items if i.isdigit() and int(i) in positions}


def _pairs(entries: list[tuple[tuple[str, ...], int]]) -> int:
    return len(ranking_of("", "", entries).pairs())


@dataclass
class _Resolved:
    """The judgments that found a sentence, with the corpus, systems and outputs they name."""

    corpus: Corpus
    judgments: list[ParsedJudgment]
    sentence_of: dict[str, int]
    systems: dict[str, System]
    outputs: dict[tuple[int, int], int]
    texts: dict[int, str]
    added: list[str] = field(default_factory=list)


@dataclass
class _Screens:
    """The saved campaign's HITs, screens and candidates; ``judgment_screen[k]`` indexes judgment k's screen."""

    campaign: Campaign
    hit_of: dict[str, Hit]
    screens: list[Screen]
    candidates: list[Candidate]
    first_candidate: list[int]
    judgment_screen: list[int]


@transaction.atomic
def judgments_import(
    *,
    project: Project,
    name: str,
    fmt: str,
    path_or_bytes: Source,
    corpus: Corpus | None = None,
    mapping: Mapping | None = None,
    include_rejected: bool = False,
    exclude_judges: Sequence[str] = (),
    compact: bool | None = None,
    src_id_base: int | None = None,
    allow_missing: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> ImportReport:
    """Import a results file as a closed campaign of origin ``imported`` (see the module docstring).

    ``progress(step, done, total)``: the background job's (issue 40), the judgments saved so far of
    the file's, a batch (``SAVE_BATCH``) at a time with their ratings; in the compact form a COPY block
    at a time, after the lines read while the file streams (``compact_import``).

    ``exclude_judges`` drops judges by name (e.g. ``["non-native"]`` for
    gec-ranking's all_judgments.xml, as its all_judgments.csv was made).

    ``src_id_base``: an Appraise file whose items carry ``src-id`` names sentence ``src-id - base``
    (0-based positions of ``corpus``); without it the base is detected (0 when an item has src-id 0,
    1 when an item has the corpus' sentence count) or the file is refused
    (``geceval.formats.judgments.appraise_item_key``). The report says which attribute and base were used.

    ``allow_missing``: onto a given ``corpus``, the import refuses (``geceval.formats.joins``) when fewer than
    90% of the judgments name one of its sentences (a wrong corpus or src-id base); ``allow_missing``
    accepts that on purpose (the skipped judgments are still counted in the report).

    ``compact``: store a WMT CSV or PRWS CSV in the compact form (``crowd.importing.compact``:
    streamed, COPY, one row per entry, no screens). ``None`` chooses it for files holding more than
    ``settings.IMPORT_COMPACT_BYTES`` (after gzip); smaller ones keep screens a researcher can open one by one.
    """
    name = (name or "").strip()
    if not name:
        raise GecInputError("the imported campaign needs a name")
    if corpus is not None and corpus.project_id != project.pk:
        raise GecInputError("the corpus belongs to another project")
    if src_id_base is not None and fmt != "appraise-xml":
        raise GecInputError(f"a src-id base applies to appraise-xml files only, not {fmt}")
    if Campaign.objects.filter(project=project, name=name).exists():
        raise GecInputError(f"a campaign named {name!r} already exists in project {project.name!r}")
    if compact is None:
        # the content's size, not the file's: a small gzip file of a million ratings is large
        compact = compact_by_default(
            fmt, content_size(path_or_bytes, upto=settings.IMPORT_COMPACT_BYTES + 1)
        ) or (
            fmt in COMPACT_FORMATS and more_rows_than(path_or_bytes, FULL_MAX_ROWS)  # many short rows
        )
    if compact:
        if fmt not in COMPACT_FORMATS:
            raise GecInputError(f"only {' and '.join(COMPACT_FORMATS)} files import in the compact form")
        from crowd.importing.compact import compact_import  # it builds on this module's helpers

        return compact_import(
            project=project,
            name=name,
            fmt=fmt,
            path_or_bytes=path_or_bytes,
            corpus=corpus,
            exclude_judges=exclude_judges,
            allow_missing=allow_missing,
            progress=progress,
        )
    parsed = judgments_parse(
        fmt=fmt,
        path_or_bytes=path_or_bytes,
        mapping=mapping,
        include_rejected=include_rejected,
        exclude_judges=exclude_judges,
        src_id_base=src_id_base,
        corpus_lines=corpus.sentences.count() if corpus is not None and fmt == "appraise-xml" else None,
    )
    resolved = _resolve(project=project, name=name, corpus=corpus, parsed=parsed, allow_missing=allow_missing)
    built = _screens_build(project=project, name=name, fmt=fmt, protocol=parsed.protocol, resolved=resolved)
    report = _judgments_save(fmt=fmt, parsed=parsed, resolved=resolved, built=built, progress=progress)
    report.item_key = parsed.item_key.describe() if parsed.item_key is not None else ""
    if report.item_key:
        # kept with the campaign so every run over it says how its sentences were found
        Campaign.objects.filter(pk=report.campaign.pk).update(item_key=report.item_key)
        report.campaign.item_key = report.item_key
    return report


def _resolve(
    *, project: Project, name: str, corpus: Corpus | None, parsed: Parsed, allow_missing: bool = False
) -> _Resolved:
    """Find (or make) the corpus, keep the judgments whose item is in it, then find or make systems and outputs."""
    judgments = parsed.judgments
    items = _item_order(list(dict.fromkeys(j.item for j in judgments)))
    given = corpus is not None
    if corpus is None:
        if not items:
            raise GecInputError("the file has no judgments to import")
        corpus = _corpus_of_items(project=project, name=name, judgments=judgments, items=items)
    sentence_of = _sentences_for(corpus, items)
    kept = []
    for j in judgments:
        if j.item in sentence_of:
            kept.append(j)
        else:
            parsed.skipped["item not in corpus"] += 1
    if given:
        corpus_join_check(
            corpus,
            kept=len(kept),
            total=len(judgments),
            missing_items=[i for i in items if i not in sentence_of],
            allow_missing=allow_missing,
        )
    if not kept:
        raise GecInputError(
            "nothing to import: every judgment was skipped (" + ", ".join(parsed.skipped) + ")"
        )
    had = set(System.objects.filter(corpus=corpus).values_list("name", flat=True)) if given else set()
    systems, outputs = _systems_and_outputs(corpus=corpus, judgments=kept, sentence_of=sentence_of)
    texts = dict(Output.objects.filter(pk__in=outputs.values()).values_list("pk", "text"))
    added = sorted(set(systems) - had) if had else []
    return _Resolved(corpus, kept, sentence_of, systems, outputs, texts, added)


def corpus_join_check(
    corpus: Corpus,
    *,
    kept: int,
    total: int,
    missing_items: Sequence[str],
    allow_missing: bool,
) -> None:
    """Refuse (``JoinError``) judgments that mostly miss the given corpus: under 90% of them naming
    one of its sentences, unless ``allow_missing``."""
    share = min_share(allow_missing)
    hint = "choose the right corpus, or accept it with --allow-missing (on the page: accept judgments that miss the corpus)"
    shown = ", ".join(list(missing_items)[:5]) + (", ..." if len(missing_items) > 5 else "")
    require_share(
        JoinCount(
            "judgments",
            kept,
            total,
            f"items {shown} name no sentence of corpus {corpus.name!r} ({corpus.sentences.count()} sentences)"
            if missing_items
            else "",
            found="name a sentence of the corpus",
        ),
        min_share=share,
        where=f"corpus {corpus.name!r}",
        hint=hint,
    )


def _corpus_of_items(
    *, project: Project, name: str, judgments: list[ParsedJudgment], items: list[str]
) -> Corpus:
    """A new corpus named like the campaign: one sentence per item, the file's source text or the item id."""
    sources: dict[str, str] = {}
    for j in judgments:
        if j.source and j.item not in sources:
            sources[j.item] = j.source
    return corpus_create(
        project=project,
        name=name,
        sentences=[SentenceRecord(text=sources.get(i, i), metadata={"id": i}) for i in items],
        description=f"items of the imported judgments {name!r}",
    )


def _systems_and_outputs(
    *, corpus: Corpus, judgments: list[ParsedJudgment], sentence_of: dict[str, int]
) -> tuple[dict[str, System], dict[tuple[int, int], int]]:
    """Systems by name (found or created) and output ids by (system id, sentence id), missing ones created."""
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
    return systems, outputs


def _screens_build(*, project: Project, name: str, fmt: str, protocol: str, resolved: _Resolved) -> _Screens:
    """The closed campaign, one HIT per HIT key, one screen per distinct shown judgment, its candidates."""
    judgments = resolved.judgments
    campaign = Campaign.objects.create(
        project=project,
        corpus=resolved.corpus,
        name=name,
        protocol=protocol,
        status=CampaignStatus.CLOSED,
        origin=CampaignOrigin.IMPORTED,
        max_candidates=min(5, max(2, max(len(j.entries) for j in judgments))),
        judgments_per_item=1,
        created_by=project.owner,
        instructions=f"Imported from {fmt}.",
    )
    campaign.systems.set(resolved.systems.values())
    hit_keys = list(dict.fromkeys(j.hit for j in judgments))
    hits = Hit.objects.bulk_create([Hit(campaign=campaign, index=i) for i, _ in enumerate(hit_keys)])
    hit_of = dict(zip(hit_keys, hits))
    screen_rows, screen_entries, judgment_screen = _screen_rows(campaign, hit_of, resolved)
    screens = Screen.objects.bulk_create(screen_rows, batch_size=2000)
    candidates, first_candidate = _candidates_save(screens, screen_entries, resolved)
    per_hit = Counter(screen.hit_id for screen in screens)
    campaign.judgments_per_item = max(1, max(Counter(judgment_screen).values()))
    campaign.screens_per_hit = max(1, max(per_hit.values()))
    campaign.save(update_fields=["judgments_per_item", "screens_per_hit"])
    return _Screens(campaign, hit_of, screens, candidates, first_candidate, judgment_screen)


def _screen_rows(
    campaign: Campaign, hit_of: dict[str, Hit], resolved: _Resolved
) -> tuple[list[Screen], list[list[Entry]], list[int]]:
    """One screen per (HIT, item, candidates shown), again for a judge who saw it twice; each judgment's screen."""
    screen_keys: dict[tuple, int] = {}
    seen: Counter = Counter()
    screen_rows: list[Screen] = []
    screen_entries: list[list[Entry]] = []
    per_sentence: Counter = Counter()
    per_hit: Counter = Counter()
    judgment_screen: list[int] = []
    for j in resolved.judgments:
        shape = tuple(e.systems for e in j.entries)
        base = (j.hit, j.item, shape)
        seen[(base, j.worker)] += 1
        key = (base, seen[(base, j.worker)])
        if key not in screen_keys:
            sentence_id = resolved.sentence_of[j.item]
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
    return screen_rows, screen_entries, judgment_screen


def _candidates_save(
    screens: list[Screen], screen_entries: list[list[Entry]], resolved: _Resolved
) -> tuple[list[Candidate], list[int]]:
    """Each screen's candidates with the outputs they stand for; the index of each screen's first candidate."""
    system_ids = {n: s.pk for n, s in resolved.systems.items()}
    candidate_rows: list[Candidate] = []
    candidate_outputs: list[list[int]] = []
    first_candidate: list[int] = []
    for screen, entries in zip(screens, screen_entries):
        first_candidate.append(len(candidate_rows))
        for position, e in enumerate(entries):
            out_ids = [resolved.outputs[(system_ids[s], screen.sentence_id)] for s in e.systems]
            text = e.text if e.text is not None else resolved.texts[out_ids[0]]
            candidate_rows.append(Candidate(screen=screen, position=position, text=text))
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
    return candidates, first_candidate


SAVE_BATCH = 2000
"""Judgments saved (with their ratings) between two progress reports."""


def _judgments_save(
    *,
    fmt: str,
    parsed: Parsed,
    resolved: _Resolved,
    built: _Screens,
    progress: Callable[[str, int, int], None] | None = None,
) -> ImportReport:
    """Workers, one submitted assignment per (worker, HIT), the judgments and their ratings."""
    judgments = resolved.judgments
    user_of = _workers(fmt, built.campaign, judgments)
    assignments = _assignments_save(judgments, built.hit_of, user_of)
    shows_ranking = protocol_get(parsed.protocol).shows_ranking
    saved_count = pairwise = 0
    if progress:
        progress("saving the judgments", 0, len(judgments))
    pairs = list(zip(judgments, built.judgment_screen))
    for start in range(0, len(pairs), SAVE_BATCH):
        batch = pairs[start : start + SAVE_BATCH]
        saved = ScreenJudgment.objects.bulk_create(
            [
                ScreenJudgment(
                    screen=built.screens[s],
                    assignment=assignments[(j.hit, j.worker)],
                    judge_id=user_of[j.worker],
                    seconds=j.seconds if j.seconds is None or j.seconds >= 0 else None,
                )
                for j, s in batch
            ]
        )
        ratings = []
        for (j, s), sj in zip(batch, saved):
            base = built.first_candidate[s]
            for position, e in enumerate(j.entries):
                ratings.append(
                    Rating(
                        judgment=sj,
                        candidate=built.candidates[base + position],
                        rank=e.rank,
                        score=e.score,
                        meaning_changed=e.meaning_changed,
                    )
                )
            if shows_ranking:
                pairwise += _pairs([(e.systems, e.rank) for e in j.entries])
        Rating.objects.bulk_create(ratings, batch_size=5000)
        saved_count += len(saved)
        if progress:
            progress("saving the judgments", saved_count, len(judgments))
    return ImportReport(
        campaign=built.campaign,
        items=len({j.item for j in judgments}),
        workers=len({j.worker for j in judgments}),
        judgments=saved_count,
        pairwise=pairwise,
        skipped=parsed.skipped,
        systems_added=resolved.added,
    )


def _workers(fmt: str, campaign: Campaign, judgments: list[ParsedJudgment]) -> dict[str, int]:
    """User id per worker name: MTurk workers are live MTurk identities, other judges imported ones."""
    if fmt == "mturk-csv":
        workers = crowd_workers_bulk(platform=Platform.MTURK, external_ids=[j.worker for j in judgments])
        return {k: w.user_id for k, w in workers.items()}
    workers = crowd_workers_bulk(
        platform=Platform.IMPORTED, external_ids=[f"{campaign.pk}:{j.worker}" for j in judgments]
    )
    return {k.split(":", 1)[1]: w.user_id for k, w in workers.items()}


def _assignments_save(
    judgments: list[ParsedJudgment], hit_of: dict[str, Hit], user_of: dict[str, int]
) -> dict[tuple[str, str], Assignment]:
    """One submitted assignment per (HIT, worker), slots numbered per HIT in order of appearance."""
    now = timezone.now()
    slots: Counter = Counter()
    rows: dict[tuple[str, str], Assignment] = {}
    for j in judgments:
        key = (j.hit, j.worker)
        if key not in rows:
            rows[key] = Assignment(
                hit=hit_of[j.hit],
                worker_id=user_of[j.worker],
                slot=slots[j.hit],
                status=AssignmentStatus.SUBMITTED,
                expires=now,
                submitted=now,
            )
            slots[j.hit] += 1
    saved = Assignment.objects.bulk_create(list(rows.values()), batch_size=2000)
    return dict(zip(rows.keys(), saved))
