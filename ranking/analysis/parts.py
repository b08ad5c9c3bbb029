"""Runs on large compact campaigns frozen in parts by the workers (issue 23, past one machine).

A TrueSkill or Expected Wins run, or a PRWS summary, of a compact imported campaign of more than
``ANALYSIS_FREEZE_ENTRIES_PER_PART`` entries does not read every judgment in one process. Its
start task notes only what every part needs (the systems' codes; for PRWS the judges' sums, from
one ``GROUP BY``) and makes one freeze part per share of the sentences (``RunChunk`` of phase
``freeze``, sent as any chunk). Each part reads its sentences' entries and keeps what adds up:

- ranking runs: the part's pairs as arrays, pairs per system and the judge-pair agreement tables
  (``frozen.CompactPairs``); the bootstrap chunks put every part's pairs in one pass's order;
- PRWS: per cell counts and sums, the ratings of splittable cells (``prws_parts``); the split-half
  samples are then shared out between chunks.

The part that finds every part done adds their summaries up (``after_freeze``: systems x systems
counts and tables, not the judgments) and makes the chunks; the run's merge does the rest as
before. Results equal those of the run frozen at once, whatever the number of parts.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotate.tasking import task_send
from ranking.analysis import frozen, prws_parts
from ranking.analysis.models import (
    AnalysisKind,
    AnalysisRun,
    ChunkPhase,
    ChunkStatus,
    RunChunk,
    RunInput,
    RunStatus,
)
from ranking.analysis.onestep import _fail, _write
from ranking.analysis.parameters import DEFAULT_CHUNKS, AnalysisError

TASK_RUN_CHUNK = "ranking.analysis.tasks.task_run_chunk"
MAX_FREEZE_PARTS = 64  # each part's query scans the campaign's entries once


def parts_for(campaign) -> int:
    """Parts a compact campaign is frozen in, by its entries (1: at once, in the start task)."""
    entries = frozen.compact_entry_count(campaign)
    return max(1, min(MAX_FREEZE_PARTS, -(-entries // settings.ANALYSIS_FREEZE_ENTRIES_PER_PART)))


def compact_ranking_freeze(run: AnalysisRun) -> dict:
    """A compact ranking campaign's frozen input: frozen at once (arrays in ``RunInput.arrays``,
    summaries in the data) when small, else only what its parts read (``ranking_start``)."""
    n = parts_for(run.campaign)
    if n > 1:
        return ranking_start(run, n)
    found = frozen.compact_pairs(run.campaign)
    run.judgments_used = found.rankings
    run.pairs_used = len(found.first)
    if len(set(found.first.tolist()) | set(found.second.tolist())) < 2:
        raise AnalysisError("fewer than two systems have valid ranking judgments")
    run._frozen_arrays = frozen.pair_data_to_bytes(found.pair_data())
    return {"compact": True, "pair_counts": found.pair_counts(), "agreement": found.agreement_summary()}


def _parts_read(run: AnalysisRun, parts: int) -> dict:
    """What every part of a run reads: the systems (sorted names) and each system id's code."""
    ordered, code = frozen.compact_systems(run.campaign)
    return {
        "compact": True,
        "parts": parts,
        "systems": list(ordered),
        "codes": [[k, v] for k, v in code.items()],
    }


def ranking_start(run: AnalysisRun, parts: int) -> dict:
    """What the parts of a ranking run read."""
    data = _parts_read(run, parts)
    if len(data["systems"]) < 2:
        raise AnalysisError("fewer than two systems have valid ranking judgments")
    return data


def prws_start(run: AnalysisRun, parts: int) -> dict:
    """What the parts of a PRWS summary read: ``_parts_read`` and every judge's exact sums."""
    data = _parts_read(run, parts)
    data["judges"] = prws_parts.judge_sums(run.campaign, dict(data["codes"]))
    if not data["judges"]:
        raise AnalysisError("the campaign has no valid PRWS ratings")
    run.judgments_used = frozen.compact_judgment_count(run.campaign) or 0
    return data


def units(run: AnalysisRun) -> int:
    """Steps of a chunked run's progress: bootstrap runs, or split-half samples."""
    return run.parameters["samples"] if run.kind == AnalysisKind.PRWS_SUMMARY else run.parameters["runs"]


def make_chunks(run: AnalysisRun, t0: float | None, first_index: int = 0) -> list[int]:
    """The run's chunks of bootstrap runs or split-half samples (indices from ``first_index``: after
    its freeze parts); returns the ids of those not done."""
    total = units(run)
    n_chunks = run.parameters.get("chunks", DEFAULT_CHUNKS)
    size = -(-total // n_chunks) if total else 1
    shares = [list(range(start, min(start + size, total))) for start in range(0, total, size)]
    RunChunk.objects.bulk_create(
        [
            RunChunk(run=run, index=first_index + i, run_indices=p, steps_total=len(p))
            for i, p in enumerate(shares)
        ],
        ignore_conflicts=True,
    )
    update: dict = {"progress_total": total}
    if t0 is not None:
        update["timings"] = {"freeze": round(time.perf_counter() - t0, 3)}
    AnalysisRun.objects.filter(pk=run.pk).update(**update)
    return list(
        RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS)
        .exclude(status=ChunkStatus.DONE)
        .values_list("pk", flat=True)
    )


def make_freeze_parts(run: AnalysisRun, parts: int, t0: float) -> list[int]:
    """One chunk per freeze part; the part that finds every part done makes the other chunks."""
    RunChunk.objects.bulk_create(
        [RunChunk(run=run, index=i, phase=ChunkPhase.FREEZE, run_indices=[]) for i in range(parts)],
        ignore_conflicts=True,
    )
    AnalysisRun.objects.filter(pk=run.pk).update(
        progress_total=units(run), timings={"freeze_start": round(time.perf_counter() - t0, 3)}
    )
    return list(
        RunChunk.objects.filter(run=run, phase=ChunkPhase.FREEZE)
        .exclude(status=ChunkStatus.DONE)
        .values_list("pk", flat=True)
    )


class ChunkFailed(AnalysisError):
    """A chunk or freeze part raised: the run fails and says which one, where, and why."""


def chunk_failed(run_id: int, chunk: RunChunk, exc: BaseException) -> None:
    """Fail the run for a chunk that raised. Nothing of the run's results is written: the result rows
    are written by the merge, in one transaction, and only from a running run."""
    if chunk.phase == ChunkPhase.FREEZE:
        what = f"freeze part {chunk.index}"
    else:
        indices = chunk.run_indices or [None]
        what = f"chunk {chunk.index} (runs or samples {indices[0]} to {indices[-1]})"
    _fail(run_id, ChunkFailed(f"{what} failed on {chunk.worker}: {type(exc).__name__}: {exc}"))


def _ranking_part(run: AnalysisRun, data: dict, part: int, touch) -> tuple[dict, bytes]:
    code = {int(k): int(v) for k, v in data["codes"]}
    found = frozen.compact_part(run.campaign, tuple(data["systems"]), code, data["parts"], part)
    touch()
    result = {
        "rankings": found.rankings,
        "pairs": len(found.first),
        "pair_counts": found.pair_counts(),
        "agreement_tables": frozen.tables_to_json(found.agreement_tables()),
    }
    return result, frozen.part_to_bytes(found)


def freeze_part_execute(chunk: RunChunk, run: AnalysisRun) -> bool:
    """Freeze one part (a claimed chunk of phase freeze); the part that finds every part done goes
    on to the run's other chunks."""
    data = RunInput.objects.filter(run=run).values_list("data", flat=True).get()

    def touch() -> None:
        """Renew the part's lease between its query and its computing (beat would send it again)."""
        RunChunk.objects.filter(pk=chunk.pk, status=ChunkStatus.RUNNING).update(alive=timezone.now())

    try:
        if run.kind == AnalysisKind.PRWS_SUMMARY:
            result, blob = prws_parts.part_compute(run.campaign, data, chunk.index, touch=touch)
        else:
            result, blob = _ranking_part(run, data, chunk.index, touch)
    except Exception as exc:
        chunk_failed(run.pk, chunk, exc)
        raise
    RunChunk.objects.filter(pk=chunk.pk).exclude(status=ChunkStatus.DONE).update(
        status=ChunkStatus.DONE, result=result, arrays=blob, finished=timezone.now()
    )
    if (
        not RunChunk.objects.filter(run=run, phase=ChunkPhase.FREEZE)
        .exclude(status=ChunkStatus.DONE)
        .exists()
    ):
        send_after_freeze(run.pk)
    return True


def send_after_freeze(run_id: int) -> None:
    """``after_freeze`` and send what it made: its chunks, or the merge when there is none (a PRWS
    summary with no splittable cell)."""
    ids = after_freeze(run_id)
    if ids == [MERGE_NOW]:
        task_send("ranking.analysis.tasks.task_run_merge", run_id=run_id)
        return
    for chunk_id in ids:
        task_send(TASK_RUN_CHUNK, chunk_id=chunk_id)


MERGE_NOW = -1


def _add_up_ranking(run: AnalysisRun, parts: list[dict], data: dict) -> None:
    counts: dict[str, int] = {}
    tables: dict = {}
    for part in parts:
        for name, n in part["pair_counts"].items():
            counts[name] = counts.get(name, 0) + n
        frozen.tables_add(tables, part["agreement_tables"])
    if len(counts) < 2:
        raise AnalysisError("fewer than two systems have valid ranking judgments")
    run.judgments_used = sum(p["rankings"] for p in parts)
    run.pairs_used = sum(p["pairs"] for p in parts)
    data["pair_counts"] = dict(sorted(counts.items()))
    data["agreement"] = frozen.agreement_from_tables(tables)


def after_freeze(run_id: int) -> list[int]:
    """Once every freeze part is done: the parts' summaries added up into the run's input and the
    run's chunks made. Returns the chunk ids to send (``[MERGE_NOW]``: none, merge at once); []
    when another process did it (the run's row is locked meanwhile) or the run failed."""
    try:
        with transaction.atomic():
            run = AnalysisRun.objects.select_for_update().get(pk=run_id)
            frozen_input = RunInput.objects.select_for_update().get(run=run)
            if run.status != RunStatus.RUNNING or frozen_input.data.get("assembled"):
                return []
            parts = list(
                RunChunk.objects.filter(run=run, phase=ChunkPhase.FREEZE)
                .order_by("index")
                .values_list("result", flat=True)
            )
            data = dict(frozen_input.data, assembled=True)
            splittable = True
            if run.kind == AnalysisKind.PRWS_SUMMARY:
                splittable = any(p["splittable"] for p in parts)
            else:
                _add_up_ranking(run, parts, data)
                run.save(update_fields=["judgments_used", "pairs_used"])
            frozen_input.data = data
            frozen_input.save(update_fields=["data"])
            timings = dict(run.timings)
            timings["freeze"] = round((timezone.now() - run.started).total_seconds(), 3)
            AnalysisRun.objects.filter(pk=run.pk).update(timings=timings)
            if not splittable:
                return [MERGE_NOW]
            return make_chunks(run, None, first_index=len(parts))
    except (AnalysisError, ValueError) as exc:
        _fail(run_id, exc)
        return []
    # any other error (the database, a lock) leaves the run as it was: every part done and the run
    # not assembled, which beat's repair finds and sends again (services.chunks_reclaim -> merge)


def chunk_times(run: AnalysisRun, timings: dict) -> dict:
    """The run's timings with its chunks' summed seconds (bootstrap or sample chunks; freeze parts)."""
    times: dict[str, float] = {}
    for phase, claimed, finished in RunChunk.objects.filter(run=run).values_list(
        "phase", "claimed", "finished"
    ):
        if claimed and finished:
            times[phase] = times.get(phase, 0.0) + (finished - claimed).total_seconds()
    timings = dict(timings, chunks=round(times.get(ChunkPhase.RUNS, 0.0), 3))
    if ChunkPhase.FREEZE in times:
        timings["freeze_parts"] = round(times[ChunkPhase.FREEZE], 3)
    timings["total"] = round((timezone.now() - run.started).total_seconds(), 3) if run.started else None
    return timings


def merge_prws(run: AnalysisRun, t0: float) -> bool:
    """The merge of a PRWS summary frozen in parts (claimed by the caller): the parts' cells and
    the chunks' split-half samples, in sample order."""
    try:
        data = RunInput.objects.filter(run=run).values_list("data", flat=True).get()
        results = list(
            RunChunk.objects.filter(run=run, phase=ChunkPhase.FREEZE)
            .order_by("index")
            .values_list("result", flat=True)
        )
        chunks = list(
            RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS)
            .order_by("index")
            .values_list("result", flat=True)
        )
        samples = (
            [row for c in chunks for row in prws_parts.samples_from_json(c["samples"])] if chunks else None
        )
        rows, summary = prws_parts.summary_of_parts(data, results, frozen.part_blobs(run.pk), samples)
        timings = dict(run.timings, merge=round(time.perf_counter() - t0, 3))
        return _write(
            run,
            t0,
            summary=summary,
            prws=rows,
            from_status=RunStatus.MERGING,
            timings=chunk_times(run, timings),
        )
    except Exception as exc:
        _fail(run.pk, exc)
        return False
