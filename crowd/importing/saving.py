"""Saving parsed judgments as a closed ranking campaign of origin ``imported`` (all or nothing)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from annotate.models import Corpus, Output, Project, Sentence, System, SystemKind
from annotate.services import SentenceRecord, corpus_create
from crowd.importing.readers import Entry, judgments_parse
from crowd.models import Platform
from crowd.services.workers import crowd_workers_bulk
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
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
    return len(ranking_of("", "", entries).pairs())


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
        if protocol_get(parsed.protocol).shows_ranking:
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
