"""Large WMT CSV and PRWS CSV imports in the compact stored form (``ranking.models.imported.ImportedEntry``).

The file is read once, streaming, into integer arrays (``geceval.formats.judgment_stream``), at most
``JUDGMENT_UPLOAD_MAX_BYTES`` of it (after gzip); the corpus, systems and judges are found or made
as the full import does; the entries then go in with PostgreSQL ``COPY`` from a buffer written in blocks
(other databases: ``bulk_create`` in batches). All in the caller's transaction:
all or nothing. No screens, candidates or empty outputs are made: these files
carry no texts and no HITs. Analyses and exports read the rows through
``ranking.rankings.iter_screen_rankings`` as they read collected judgments.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from django.conf import settings
from django.db import connection

from annotate.models import Corpus, Project, System
from annotate.services import SentenceRecord, corpus_create
from annotate.streaming import MemoryGuard
from crowd.importing.saving import (
    ImportReport,
    _item_order,
    _sentences_for,
    _system_kind,
    corpus_join_check,
)
from crowd.models import Platform
from crowd.services.workers import crowd_workers_bulk
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.formats.judgment_stream import JudgmentArrays, stream_prws_csv, stream_wmt_csv
from geceval.formats.stream import source_name
from ranking.models import Campaign, CampaignOrigin, CampaignStatus, ImportedEntry
from ranking.protocols import protocol_get

BLOCK = 200_000
"""Entries (rows of ``ImportedEntry``) sent in one COPY; the progress is reported after each."""

Progress = Callable[[str, int, int], None]


def compact_import(
    *,
    project: Project,
    name: str,
    fmt: str,
    path_or_bytes: Source,
    corpus: Corpus | None,
    exclude_judges: Sequence[str],
    allow_missing: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``fmt`` (one of COMPACT_FORMATS) as a closed campaign; returns an ``ImportReport``.

    ``progress(step, done, total)`` (the background job's, issue 40): while the file is read, the line
    reached in the step's words (how many judgments it holds is not known yet); then the judgments
    saved so far of those kept, after each COPY block (``BLOCK`` entries), as the full form reports them
    after each batch."""
    reader = stream_wmt_csv if fmt == "wmt-csv" else stream_prws_csv
    # streamed, so bounded by the judgment files' own limit, not by what may be held in memory
    # and, as every upload, within UPLOAD_MEMORY_MAX_BYTES while it is read (issue 36)
    guard = MemoryGuard(source_name(path_or_bytes))
    check = guard.check
    if progress is not None:

        def check(line: int) -> None:
            guard.check(line)
            progress(f"reading the judgments (line {line:,})", 0, 0)

    data = reader(
        path_or_bytes,
        exclude_judges=exclude_judges,
        limit=settings.JUDGMENT_UPLOAD_MAX_BYTES,
        check=check,
    )
    skipped = data.skipped
    items = data.items.names()
    if not items:
        raise GecInputError("the file has no judgments to import")
    given = corpus is not None
    corpus, sentence_ids = _sentences(project=project, name=name, corpus=corpus, items=items)
    keep = _kept(data, corpus if given else None, items, sentence_ids, skipped, allow_missing)
    entry_judgment = np.frombuffer(data.entry_judgment, dtype=np.int64)
    entry_keep = keep[entry_judgment]
    renumber = np.cumsum(keep) - 1  # judgment numbers without the skipped ones
    judgment_item = np.frombuffer(data.item, dtype=np.int64)[keep]
    judgment_judge = np.frombuffer(data.judge, dtype=np.int64)[keep]
    entry_system = np.frombuffer(data.system, dtype=np.int64)[entry_keep]
    used_systems = sorted({data.systems.names()[k] for k in np.unique(entry_system).tolist()})
    per_judgment = np.bincount(renumber[entry_judgment[entry_keep]])
    protocol = protocol_get("ranking" if data.kind == "rank" else "prws").name
    campaign = Campaign.objects.create(
        project=project,
        corpus=corpus,
        name=name,
        protocol=protocol,
        status=CampaignStatus.CLOSED,
        origin=CampaignOrigin.IMPORTED,
        max_candidates=min(5, max(2, int(per_judgment.max()))),
        judgments_per_item=max(1, int(np.bincount(judgment_item).max())),
        created_by=project.owner,
        instructions=f"Imported from {fmt}.",
    )
    had = set(System.objects.filter(corpus=corpus).values_list("name", flat=True)) if given else set()
    system_of = _systems(corpus, used_systems)
    campaign.systems.set(system_of.values())
    judge_names = data.judges.names()
    used_judges = sorted(set(np.unique(judgment_judge).tolist()))
    workers = crowd_workers_bulk(
        platform=Platform.IMPORTED, external_ids=[f"{campaign.pk}:{judge_names[k]}" for k in used_judges]
    )
    user_ids = np.zeros(len(judge_names), dtype=np.int64)
    for k in used_judges:
        user_ids[k] = workers[f"{campaign.pk}:{judge_names[k]}"].user_id
    system_ids = np.array(
        [system_of[n].pk if n in system_of else 0 for n in data.systems.names()], dtype=np.int64
    )
    columns = {
        "judgment": renumber[entry_judgment[entry_keep]],
        "sentence": sentence_ids[judgment_item][renumber[entry_judgment[entry_keep]]],
        "judge": user_ids[judgment_judge][renumber[entry_judgment[entry_keep]]],
        "system": system_ids[entry_system],
        "value": np.frombuffer(data.value, dtype=np.int16)[entry_keep],
        "mc": np.frombuffer(data.meaning_changed, dtype=np.int8)[entry_keep],
    }
    _entries_save(campaign.pk, data.kind, columns, progress=progress, judgments=int(keep.sum()))
    return ImportReport(
        campaign=campaign,
        items=len(np.unique(judgment_item)),
        workers=len(used_judges),
        judgments=int(keep.sum()),
        pairwise=_pairwise(data, keep) if protocol_get(protocol).shows_ranking else 0,
        skipped=skipped,
        systems_added=sorted(set(used_systems) - had) if had else [],
    )


def _kept(
    data: JudgmentArrays,
    given: Corpus | None,
    items: list[str],
    sentence_ids: np.ndarray,
    skipped: Counter,
    allow_missing: bool,
) -> np.ndarray:
    """Which judgments name a sentence of the corpus (the others counted as skipped); onto a corpus
    the researcher chose, under 90% of them is refused (``corpus_join_check``)."""
    keep = sentence_ids[np.frombuffer(data.item, dtype=np.int64)] > 0 if data.judgments else np.zeros(0, bool)
    if not keep.all():
        skipped["item not in corpus"] += int((~keep).sum())
    if given is not None:
        corpus_join_check(
            given,
            kept=int(keep.sum()),
            total=len(keep),
            missing_items=[i for i, sid in zip(items, sentence_ids.tolist(), strict=True) if not sid],
            allow_missing=allow_missing,
        )
    if not keep.any():
        raise GecInputError("nothing to import: every judgment was skipped (" + ", ".join(skipped) + ")")
    return keep


def _sentences(
    *, project: Project, name: str, corpus: Corpus | None, items: list[str]
) -> tuple[Corpus, np.ndarray]:
    """The corpus and the sentence id per item code (0: not in the corpus); without a corpus, one is
    made as the full import does."""
    if corpus is None:
        ordered = _item_order(list(items))
        corpus = corpus_create(
            project=project,
            name=name,
            sentences=[SentenceRecord(text=i, metadata={"id": i}) for i in ordered],
            description=f"items of the imported judgments {name!r}",
        )
    found = _sentences_for(corpus, items)
    return corpus, np.array([found.get(i, 0) for i in items], dtype=np.int64)


def _systems(corpus: Corpus, names: list[str]) -> dict[str, System]:
    systems = {s.name: s for s in System.objects.filter(corpus=corpus, name__in=names)}
    new = System.objects.bulk_create(
        [System(corpus=corpus, name=n, kind=_system_kind(n)) for n in names if n not in systems]
    )
    systems.update({s.name: s for s in new})
    return systems


def _pairwise(data: JudgmentArrays, keep: np.ndarray) -> int:
    """Pairs of distinct systems in the kept rankings (the full import's ``pairwise``)."""
    judgment = np.frombuffer(data.entry_judgment, dtype=np.int64)
    system = np.frombuffer(data.system, dtype=np.int64)
    mask = keep[judgment]
    sizes = np.bincount(judgment[mask], minlength=len(keep))
    total = int((sizes * (sizes - 1) // 2).sum())
    # a system twice in one ranking makes no pair with itself
    same = Counter(zip(judgment[mask].tolist(), system[mask].tolist()))
    return total - sum(n * (n - 1) // 2 for n in same.values() if n > 1)


def _entries_save(
    campaign_id: int,
    kind: str,
    columns: dict[str, np.ndarray],
    *,
    progress: Progress | None,
    judgments: int,
) -> None:
    """Save the entries a block at a time; after each, ``progress`` gets the judgments whose entries
    are all saved (the entries come in judgment order, so those numbered below the next block's first)."""
    n = len(columns["judgment"])

    def saved(stop: int) -> None:
        if progress is not None:
            done = int(columns["judgment"][stop]) if stop < n else judgments
            progress("saving the judgments", done, judgments)

    saved(0)
    if connection.vendor == "postgresql":
        table = ImportedEntry._meta.db_table
        sql = (
            f"COPY {table} (campaign_id, judgment, sentence_id, judge_id, system_id, rank, score, meaning_changed)"
            " FROM STDIN"
        )
        with connection.cursor() as cursor:
            for start in range(0, n, BLOCK):
                stop = min(n, start + BLOCK)
                cursor.cursor.copy_expert(sql, _copy_block(campaign_id, kind, columns, start, stop))
                saved(stop)
        return
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        ImportedEntry.objects.bulk_create(
            [
                ImportedEntry(
                    campaign_id=campaign_id,
                    judgment=j,
                    sentence_id=s,
                    judge_id=u,
                    system_id=y,
                    rank=v if kind == "rank" else None,
                    score=v if kind == "score" else None,
                    meaning_changed=bool(m),
                )
                for j, s, u, y, v, m in zip(*(columns[k][start:stop].tolist() for k in _ORDER))
            ],
            batch_size=5000,
        )
        saved(stop)


_ORDER = ("judgment", "sentence", "judge", "system", "value", "mc")


def _copy_block(
    campaign_id: int, kind: str, columns: dict[str, np.ndarray], start: int, stop: int
) -> io.StringIO:
    """COPY's text format: tab-separated, ``\\N`` for NULL; every field is an integer or a flag."""
    if kind == "rank":
        line = f"{campaign_id}\t{{}}\t{{}}\t{{}}\t{{}}\t{{}}\t\\N\t{{}}\n".format
    else:
        line = f"{campaign_id}\t{{}}\t{{}}\t{{}}\t{{}}\t\\N\t{{}}\t{{}}\n".format
    flags = ("f", "t")
    parts = [columns[k][start:stop].tolist() for k in _ORDER]
    parts[-1] = [flags[m] for m in parts[-1]]
    return io.StringIO("".join(line(*row) for row in zip(*parts)))
