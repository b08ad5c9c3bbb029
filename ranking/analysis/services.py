"""Writes for analysis runs: create, start (freeze input, make chunks), run chunks, merge, resume.

Life of a run (statuses in ``RunStatus``):

1. ``analysis_run_create`` (pending) then ``analysis_run_enqueue`` (sends
   ``task_run_start`` after the caller's transaction committed).
2. ``analysis_run_start`` claims the run (pending -> running, a conditional
   update: a duplicate delivery does nothing), freezes what it reads in
   ``RunInput``. Ranking kinds (TrueSkill, Expected Wins) get ``RunChunk`` rows
   (disjoint run indices) and one ``task_run_chunk`` per chunk; other kinds
   compute at once and finish.
3. ``run_chunk_execute`` claims a chunk (pending -> running), runs
   ``geceval.human.system_ranking.run_chunk`` on the frozen pairs and stores its
   ``ChunkResult``; the chunk that finds every chunk done calls
   ``analysis_run_merge``, which claims the run (running -> merging) and writes
   the result rows (unique per run and system) in one transaction.
   A large compact imported campaign is frozen by the workers in parts
   (``ranking.analysis.parts``: chunks of phase ``freeze``, a share of the
   sentences each) before the chunks are made; PRWS summaries of such a
   campaign share their split-half samples out as chunks too.
4. ``analysis_run_resume``: after a worker died, unfinished chunks go back to
   pending and are sent again; a run stuck in start or merge is restarted
   from there. Runs are deterministic given their seed and frozen input, so a
   chunk computed twice stores the same numbers.
"""

from __future__ import annotations

import datetime
import functools
import logging
import os
import socket
import time

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from annotate.tasking import task_send
from geceval.human.pairs import PairData, prepare
from geceval.human.prws import reliability_samples
from geceval.human.system_ranking import ChunkResult, merge, run_chunk
from ranking.analysis import compute, frozen, inputs, parts, prws_parts, sentence_meta
from ranking.analysis.models import (
    AnalysisKind,
    AnalysisRun,
    ChunkPhase,
    ChunkStatus,
    RunChunk,
    RunInput,
    RunStatus,
)
from ranking.analysis.onestep import _fail, _write, execute_one_step
from ranking.analysis.parameters import (  # noqa: F401  (re-exported)
    DEFAULT_CHUNKS,
    DEFAULT_RUNS,
    MAX_RUNS,
    RANKING_KINDS,
    SUPPORTED_KINDS,
    AnalysisError,
    clean_parameters,
    code_versions,
)
from ranking.models import Campaign
from ranking.protocols import protocol_get
from ranking.rankings import campaign_is_compact, campaign_rankings
from ranking.study.documents import study_export

logger = logging.getLogger(__name__)

# Celery tasks by name (services never import tasks.py; see annotate.tasking).
TASK_RUN_START = "ranking.analysis.tasks.task_run_start"
TASK_RUN_CHUNK = "ranking.analysis.tasks.task_run_chunk"
TASK_RUN_MERGE = "ranking.analysis.tasks.task_run_merge"

QUEUE_DOWN = (
    "The task queue cannot be reached just now. The run is saved and starts by itself when the "
    "queue is back (within a few minutes); you need not launch it again."
)

PROGRESS_EVERY = 0.5  # seconds between progress writes
# kinds that may have chunks: ranking runs always, a PRWS summary frozen in parts (beat repairs them)
CHUNKED_KINDS = (*RANKING_KINDS, AnalysisKind.PRWS_SUMMARY)


def chunk_lease_seconds() -> int:
    """A running chunk whose worker gave no sign of life for this long may be claimed again (its
    worker is presumed dead, e.g. killed): beat's ``chunks_reclaim`` sends it again, and the broker's
    late redelivery of the dead worker's message (Redis' visibility timeout) finds it done."""
    return max(1, settings.ANALYSIS_CHUNK_LEASE_SECONDS)


@transaction.atomic
def analysis_run_create(
    *, campaign: Campaign, kind: str, parameters: dict | None = None, seed: int = 0, created_by=None
) -> AnalysisRun:
    """A pending run; call ``analysis_run_enqueue`` after the transaction commits."""
    if kind not in SUPPORTED_KINDS:
        raise AnalysisError(f"analysis kind {kind!r} is not available")
    if seed < 0:
        raise AnalysisError("seed must be >= 0")
    params = clean_parameters(kind, parameters or {}, campaign)
    return AnalysisRun.objects.create(
        campaign=campaign,
        kind=kind,
        parameters=params,
        seed=seed,
        created_by=created_by,
        versions=code_versions(),
        study=study_export(campaign),  # the run carries the study it came from (issue 39)
    )


def analysis_run_enqueue(run: AnalysisRun) -> bool:
    """Send the run to the workers (eager in tests and without a broker). Call it after the run's
    transaction has committed (a worker must be able to read the run).

    Returns False when the broker could not be reached: the run stays pending in the database and
    beat's ``task_resume_stale_runs`` sends it again once the broker is back.

    This and ``analysis_run_resume`` are the two services that send at once rather than on commit:
    their callers (the run page and API, ``reproduce``, beat's repair) have committed the run
    already, and the page tells the researcher whether the broker took it."""
    return task_send(TASK_RUN_START, run_id=run.pk)


# --------------------------------------------------------------------------- start


def _claim_run(run_id: int, old: str, new: str, **extra) -> bool:
    return bool(AnalysisRun.objects.filter(pk=run_id, status=old).update(status=new, **extra))


def _freeze_input(run: AnalysisRun) -> dict:
    campaign = run.campaign
    data: dict = {}
    if run.kind in RANKING_KINDS and campaign_is_compact(campaign, ranked=True):
        data = parts.compact_ranking_freeze(run)
    elif run.kind in RANKING_KINDS:
        rankings = campaign_rankings(campaign)
        data["rankings"] = compute.rankings_to_json(rankings)
        pairs = compute.pairs_from_json(data["rankings"])
        run.judgments_used = len(rankings)
        run.pairs_used = len(pairs)
        if len({s for p in pairs for s in (p.sys1, p.sys2)}) < 2:
            raise AnalysisError("fewer than two systems have valid ranking judgments")
        # What the chunks and the merge need from the pairs, derived once here: a chunk then decodes
        # integer arrays instead of expanding every ranking into pair objects again.
        data["pair_data"] = prepare(pairs).to_dict()
        data["pair_counts"] = compute.pair_counts(pairs)
        data["agreement"] = compute.agreement_summary(pairs)
    elif run.kind == AnalysisKind.PRWS_SUMMARY and (n := _prws_parts(campaign)) > 1:
        data = parts.prws_start(run, n)
    elif run.kind == AnalysisKind.PRWS_SUMMARY:
        ratings = inputs.campaign_prws_ratings(campaign)
        if not ratings:
            raise AnalysisError("the campaign has no valid PRWS ratings")
        data["ratings"] = compute.ratings_to_json(ratings)
        run.judgments_used = inputs.valid_judgment_count(campaign)
    elif run.kind in (AnalysisKind.METRIC_SCORES, AnalysisKind.GLEU_VS_REFS, AnalysisKind.ENSEMBLE):
        texts = inputs.campaign_texts(campaign)
        if not texts.outputs:
            raise AnalysisError("no campaign system has an output for every sentence")
        data = {
            "source": texts.source,
            "outputs": texts.outputs,
            "references": texts.references,
            "sentence_ids": texts.sentence_ids,
        }
        if run.kind == AnalysisKind.GLEU_VS_REFS and not texts.references:
            raise AnalysisError("the corpus has no reference systems")
    elif run.kind == AnalysisKind.META_EVAL:
        data = {"imported": sentence_meta.imported_freeze(run)}
    run.excluded_workers = inputs.excluded_worker_count(campaign)
    return data


def _prws_parts(campaign: Campaign) -> int:
    """Freeze parts of a PRWS summary: more than 1 only for a large compact campaign."""
    if not protocol_get(campaign.protocol).prws_ratings:
        return 1
    return parts.parts_for(campaign)


def analysis_run_start(*, run_id: int) -> list[int]:
    """Claim and prepare a pending run; returns the chunk ids to send (empty for one-step kinds)."""
    if not _claim_run(run_id, RunStatus.PENDING, RunStatus.RUNNING, started=timezone.now()):
        return []
    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    t0 = time.perf_counter()
    try:
        with transaction.atomic():
            frozen_input = RunInput.objects.filter(run=run).first()
            if frozen_input is None:
                data = _freeze_input(run)
                frozen_input = RunInput.objects.create(
                    run=run, data=data, arrays=getattr(run, "_frozen_arrays", None)
                )
                run.save(update_fields=["judgments_used", "pairs_used", "excluded_workers"])
            if frozen_input.data.get("parts"):
                return parts.make_freeze_parts(run, frozen_input.data["parts"], t0)
            if run.kind in RANKING_KINDS:
                return parts.make_chunks(run, t0)
    except Exception as exc:
        _fail(run.pk, exc)
        return []
    execute_one_step(run, frozen_input.data, t0)
    return []


# --------------------------------------------------------------------------- chunks and merge


@functools.lru_cache(maxsize=4)
def _pair_data(run_id: int, started: str):
    """The run's frozen pairs, prepared once per worker process (a run's input never changes).

    Keyed by id and start time: a database that reuses ids (tests rolling back) cannot hand a
    new run an old run's pairs."""

    blob = RunInput.objects.filter(run_id=run_id).values_list("arrays", flat=True).get()
    if blob is not None:
        return frozen.pair_data_from_bytes(blob)
    systems = RunInput.objects.filter(run_id=run_id).values_list("data__systems", flat=True).get()
    if systems is not None:  # frozen in parts: each part's pairs, put in one pass's order
        return frozen.pair_data_from_parts(tuple(systems), frozen.part_blobs(run_id))
    encoded = RunInput.objects.filter(run_id=run_id).values_list("data__pair_data", flat=True).get()
    if encoded is not None:
        return PairData.from_dict(encoded)
    # frozen before the input kept its encoded pairs
    return prepare(compute.pairs_from_json(RunInput.objects.get(run_id=run_id).data["rankings"]))


def _pair_summary(run: AnalysisRun) -> tuple[dict[str, int], dict, list | None]:
    """Pairwise judgments per system and the annotators' agreement, as frozen with the run's input;
    the pairs themselves only when they must be computed again (inputs frozen before these were)."""
    counts, agreement = (
        RunInput.objects.filter(run=run).values_list("data__pair_counts", "data__agreement").get()
    )
    if counts is not None and agreement is not None:
        return counts, agreement, None
    pairs = compute.pairs_from_json(RunInput.objects.get(run=run).data["rankings"])
    return compute.pair_counts(pairs), compute.agreement_summary(pairs), pairs


def run_chunk_execute(*, chunk_id: int) -> bool:
    """Claim and compute one chunk; merges when it is the last. False when another worker has it
    (its lease, ``alive``, less than ``chunk_lease_seconds()`` old) or it is done."""
    now = timezone.now()
    # Delivered twice: a chunk whose lease is alive is left to its worker (False); one whose worker
    # died is computed again, with the same numbers (seeded by run index), and stored once.
    claimable = Q(status=ChunkStatus.PENDING) | Q(status=ChunkStatus.RUNNING, alive__lt=_lease_cutoff(now))
    claimed = RunChunk.objects.filter(claimable, pk=chunk_id).update(
        status=ChunkStatus.RUNNING,
        claimed=now,
        alive=now,
        attempts=F("attempts") + 1,
        steps_done=0,
        worker=f"{socket.gethostname()}:{os.getpid()}"[:120],  # at claim: prefork children differ
    )
    if not claimed:
        return False
    chunk = RunChunk.objects.select_related("run", "run__campaign").get(pk=chunk_id)
    run = chunk.run
    if run.status != RunStatus.RUNNING:
        return False
    if chunk.phase == ChunkPhase.FREEZE:
        return parts.freeze_part_execute(chunk, run)

    method = "trueskill" if run.kind == AnalysisKind.TRUESKILL else "ew"
    n_runs = len(chunk.run_indices)
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        RunChunk.objects.filter(pk=chunk_id, status=ChunkStatus.RUNNING).update(
            steps_done=min(n_runs, n_runs * done // max(total, 1)), alive=timezone.now()
        )
        _run_progress(run.pk)

    try:
        if run.kind == AnalysisKind.PRWS_SUMMARY:
            values = reliability_samples(
                prws_parts.run_cells(run.pk, str(run.started)),
                chunk.run_indices,
                seed=run.seed,
                progress=progress,
            )
            result = {"samples": prws_parts.samples_to_json(values)}
        else:
            result = run_chunk(
                _pair_data(run.pk, str(run.started)),
                chunk.run_indices,
                run.seed,
                method=method,
                progress=progress,
            ).to_dict()
    except Exception as exc:
        parts.chunk_failed(run.pk, chunk, exc)
        raise
    RunChunk.objects.filter(pk=chunk_id).exclude(status=ChunkStatus.DONE).update(
        status=ChunkStatus.DONE, result=result, steps_done=n_runs, finished=timezone.now()
    )
    _run_progress(run.pk)
    if not RunChunk.objects.filter(run=run).exclude(status=ChunkStatus.DONE).exists():
        analysis_run_merge(run_id=run.pk)
    return True


def _run_progress(run_id: int) -> None:
    done = RunChunk.objects.filter(run_id=run_id).aggregate(s=Sum("steps_done"))["s"] or 0
    AnalysisRun.objects.filter(pk=run_id, status=RunStatus.RUNNING, progress_total__gte=done).update(
        progress_done=done
    )


def analysis_run_merge(*, run_id: int) -> bool:
    """Merge the chunks of a ranking run and write its rows (once: claimed running -> merging).

    Asked while some chunk is not done (a message delivered twice) it does nothing: the last chunk
    merges. Asked of a run whose freeze parts are all done but whose bootstrap chunks were never
    made (the process that finished the last part died), it makes and sends them instead."""
    chunks_of = RunChunk.objects.filter(run_id=run_id)
    if chunks_of.exclude(status=ChunkStatus.DONE).exists():
        return False
    if (
        chunks_of.filter(phase=ChunkPhase.FREEZE).exists()
        and not RunInput.objects.filter(run_id=run_id, data__assembled=True).exists()
    ):
        parts.send_after_freeze(run_id)
        return False
    if not _claim_run(run_id, RunStatus.RUNNING, RunStatus.MERGING):
        return False
    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    t0 = time.perf_counter()
    if run.kind == AnalysisKind.PRWS_SUMMARY:
        return parts.merge_prws(run, t0)
    try:
        chunks = list(
            RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS)
            .order_by("index")
            .values_list("result", flat=True)
        )
        if any(c is None for c in chunks):
            raise AnalysisError("a chunk has no result")
        result = merge([ChunkResult.from_dict(c) for c in chunks])
        counts, agreement, pairs = _pair_summary(run)
        point = chunks[0].get("point") is not None
        ranks = [
            {
                "name": s.name,
                "position": k + 1,
                "mu": s.mu,
                "rank_lo": s.rank_range[0],
                "rank_hi": s.rank_range[1],
                "cluster": s.cluster,
                "expected_wins": s.mu if point else None,
                "pairs": counts.get(s.name, 0),
            }
            for k, s in enumerate(result.systems)
        ]
        summary = {
            "runs": result.runs,
            "method": result.method,
            "pairs": result.judgments,
            "agreement": agreement,
        }
        in_parts = RunInput.objects.filter(run=run, data__assembled=True).exists()
        if run.parameters.get("estimate_needed") and in_parts:
            # resampling needs every pair as an object in this one process: not for a campaign
            # large enough to be frozen in parts
            summary["needed"] = None
            summary["needed_note"] = (
                "not estimated: the campaign is large enough to be frozen in parts, and the estimate "
                "resamples every judgment in one process"
            )
        elif run.parameters.get("estimate_needed"):
            if pairs is None and RunInput.objects.filter(run=run, data__compact=True).exists():
                pairs = frozen.compact_pairs(run.campaign).pairwise_judgments()
            if pairs is None:
                pairs = compute.pairs_from_json(RunInput.objects.get(run=run).data["rankings"])
            summary["needed"] = compute.judgments_needed(
                pairs, seed=run.seed, runs=int(run.parameters.get("estimate_runs", 100))
            )
        timings = parts.chunk_times(run, dict(run.timings, merge=round(time.perf_counter() - t0, 3)))
        return _write(run, t0, summary=summary, ranks=ranks, from_status=RunStatus.MERGING, timings=timings)
    except Exception as exc:
        _fail(run.pk, exc)
        return False


# --------------------------------------------------------------------------- resume


def analysis_run_resume(*, run: AnalysisRun) -> list[int]:
    """Make a run that lost its worker go on; returns the chunk ids re-sent. Finished runs are left alone.

    Unfinished chunks (pending, or running on a worker that died) go back to
    pending and are sent again; if every chunk is done the merge is redone; a
    run that never finished its start is started again. A chunk that was in
    fact still running elsewhere is computed twice with the same numbers and
    stored once. Called on committed rows (a researcher's button, beat's repair): sends at once.
    """
    run.refresh_from_db()
    if run.status in (RunStatus.DONE, RunStatus.FAILED):
        return []
    if run.status == RunStatus.MERGING:
        AnalysisRun.objects.filter(pk=run.pk, status=RunStatus.MERGING).update(status=RunStatus.RUNNING)
        task_send(TASK_RUN_MERGE, run_id=run.pk)
        return []
    if run.status == RunStatus.RUNNING and run.chunks.exists():  # ranking runs, runs frozen in parts
        RunChunk.objects.filter(run=run, status=ChunkStatus.RUNNING).update(status=ChunkStatus.PENDING)
        ids = list(run.chunks.exclude(status=ChunkStatus.DONE).values_list("pk", flat=True))
        if not ids:
            task_send(TASK_RUN_MERGE, run_id=run.pk)
        for chunk_id in ids:
            task_send(TASK_RUN_CHUNK, chunk_id=chunk_id)
        return ids
    AnalysisRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(status=RunStatus.PENDING)
    task_send(TASK_RUN_START, run_id=run.pk)
    return []


def stale_runs_resume(*, older_than_seconds: int = 3600, pending_after_seconds: int | None = None) -> int:
    """Resume running runs whose chunks have not moved for a while (a periodic safety net); with
    ``pending_after_seconds``, also send again runs still pending that long after they were made
    (their start message was lost). A duplicate start is harmless: the claim is conditional."""
    count = 0
    if pending_after_seconds is not None:
        pending_cutoff = timezone.now() - datetime.timedelta(seconds=pending_after_seconds)
        for run in AnalysisRun.objects.filter(status=RunStatus.PENDING, created__lt=pending_cutoff):
            if analysis_run_enqueue(run):
                count += 1
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    for run in AnalysisRun.objects.filter(
        status__in=[RunStatus.RUNNING, RunStatus.MERGING], started__lt=cutoff
    ):
        if not run.chunks.filter(status=ChunkStatus.RUNNING, claimed__gte=cutoff).exists():
            analysis_run_resume(run=run)
            count += 1
    return count


def _lease_cutoff(now: datetime.datetime) -> datetime.datetime:
    return now - datetime.timedelta(seconds=chunk_lease_seconds())


def chunks_reclaim() -> int:
    """Beat's repair of runs whose worker died (e.g. ``kill -9``); returns the chunks sent again.

    A running chunk whose lease ran out goes back to pending and is sent again. When nothing of a
    run moved within a lease (no live lease, no chunk finished), its pending chunks are sent again
    too: their messages may sit unacknowledged with the dead worker (prefetched) until Redis'
    visibility timeout. A duplicate message is harmless: the claim is conditional. A run whose
    chunks are all done but which was not merged is merged.
    """
    now = timezone.now()
    cutoff = _lease_cutoff(now)
    sent = 0
    for run in AnalysisRun.objects.filter(
        status=RunStatus.RUNNING, kind__in=CHUNKED_KINDS, started__lt=cutoff
    ):
        chunks = RunChunk.objects.filter(run=run)
        moving = chunks.filter(
            Q(status=ChunkStatus.RUNNING, alive__gte=cutoff)
            | Q(status=ChunkStatus.DONE, finished__gte=cutoff)
        ).exists()
        dead = chunks.filter(status=ChunkStatus.RUNNING, alive__lt=cutoff)
        ids = list((dead if moving else chunks.exclude(status=ChunkStatus.DONE)).values_list("pk", flat=True))
        if not ids and not moving and chunks.exists():
            task_send(TASK_RUN_MERGE, run_id=run.pk)
            continue
        RunChunk.objects.filter(pk__in=ids, status=ChunkStatus.RUNNING, alive__lt=cutoff).update(
            status=ChunkStatus.PENDING
        )
        for chunk_id in ids:
            task_send(TASK_RUN_CHUNK, chunk_id=chunk_id)
        if ids:
            logger.warning("analysis run %s: %d chunk(s) sent again (worker presumed dead)", run.pk, len(ids))
        sent += len(ids)
    return sent
