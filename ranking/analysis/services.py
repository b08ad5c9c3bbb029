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
   ``geceval.ranking.run_chunk`` on the frozen pairs and stores its
   ``ChunkResult``; the chunk that finds every chunk done calls
   ``analysis_run_merge``, which claims the run (running -> merging) and writes
   the result rows (unique per run and system) in one transaction.
4. ``analysis_run_resume``: after a worker died, unfinished chunks go back to
   pending and are sent again; a run stuck in start or merge is restarted
   from there. Runs are deterministic given their seed and frozen input, so a
   chunk computed twice stores the same numbers.
"""

from __future__ import annotations

import datetime
import functools
import time
from collections.abc import Callable

from django.db import transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from ranking.analysis import compute, inputs
from ranking.analysis.models import (
    AnalysisCache,
    AnalysisKind,
    AnalysisRun,
    ChunkStatus,
    CorrelationResult,
    MetricResult,
    PrwsResult,
    RunChunk,
    RunInput,
    RunStatus,
    SystemRankResult,
)
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
from ranking.models import Campaign, System

PROGRESS_EVERY = 0.5  # seconds between progress writes
CHUNK_STALE_SECONDS = 1800
"""A chunk claimed longer ago than this may be claimed again (its worker is presumed dead): the
broker's redelivery of an unacknowledged task (acks_late) then finishes it without a resume."""


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
    )


def analysis_run_enqueue(run: AnalysisRun) -> None:
    """Send the run to the workers (eager in tests and without a broker). Call it after the run's
    transaction has committed (a worker must be able to read the run)."""
    from ranking.analysis.tasks import task_run_start

    task_run_start.delay(run_id=run.pk)


# --------------------------------------------------------------------------- start


def _claim_run(run_id: int, old: str, new: str, **extra) -> bool:
    return bool(AnalysisRun.objects.filter(pk=run_id, status=old).update(status=new, **extra))


def _freeze_input(run: AnalysisRun) -> dict:
    campaign = run.campaign
    data: dict = {}
    if run.kind in RANKING_KINDS:
        rankings = inputs.campaign_rankings(campaign)
        data["rankings"] = compute.rankings_to_json(rankings)
        pairs = compute.pairs_from_json(data["rankings"])
        run.judgments_used = len(rankings)
        run.pairs_used = len(pairs)
        if len({s for p in pairs for s in (p.sys1, p.sys2)}) < 2:
            raise AnalysisError("fewer than two systems have valid ranking judgments")
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
        data = {}
    run.excluded_workers = inputs.excluded_worker_count(campaign)
    return data


def analysis_run_start(*, run_id: int) -> list[int]:
    """Claim and prepare a pending run; returns the chunk ids to send (empty for one-step kinds)."""
    if not _claim_run(run_id, RunStatus.PENDING, RunStatus.RUNNING, started=timezone.now()):
        return []
    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    t0 = time.perf_counter()
    try:
        with transaction.atomic():
            frozen = RunInput.objects.filter(run=run).first()
            if frozen is None:
                frozen = RunInput.objects.create(run=run, data=_freeze_input(run))
                run.save(update_fields=["judgments_used", "pairs_used", "excluded_workers"])
            if run.kind in RANKING_KINDS:
                return _make_chunks(run, t0)
    except Exception as exc:
        _fail(run.pk, exc)
        return []
    _execute_one_step(run, frozen.data, t0)
    return []


def _make_chunks(run: AnalysisRun, t0: float) -> list[int]:
    runs, n_chunks = run.parameters["runs"], run.parameters["chunks"]
    size = -(-runs // n_chunks)
    parts = [list(range(start, min(start + size, runs))) for start in range(0, runs, size)]
    RunChunk.objects.bulk_create(
        [RunChunk(run=run, index=i, run_indices=p, steps_total=len(p)) for i, p in enumerate(parts)],
        ignore_conflicts=True,
    )
    AnalysisRun.objects.filter(pk=run.pk).update(
        progress_total=runs, timings={"freeze": round(time.perf_counter() - t0, 3)}
    )
    return list(
        RunChunk.objects.filter(run=run).exclude(status=ChunkStatus.DONE).values_list("pk", flat=True)
    )


def _fail(run_id: int, exc: BaseException) -> None:
    AnalysisRun.objects.filter(pk=run_id).exclude(status=RunStatus.DONE).update(
        status=RunStatus.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished=timezone.now()
    )


def _progress_writer(run_id: int) -> Callable[[int, int], None]:
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY and done < total:
            return
        last[0] = now
        AnalysisRun.objects.filter(pk=run_id).update(progress_done=min(done, total), progress_total=total)

    return progress


# --------------------------------------------------------------------------- one-step kinds


class DbCache:
    """compute.CacheStore in the database (AnalysisCache): shared by every worker, written once per key."""

    def get(self, kind: str, key: str) -> str | None:
        return AnalysisCache.objects.filter(kind=kind, key=key).values_list("value", flat=True).first()

    def put(self, kind: str, key: str, value: str) -> None:
        AnalysisCache.objects.bulk_create(
            [AnalysisCache(kind=kind, key=key, value=value)], ignore_conflicts=True
        )


def _execute_one_step(run: AnalysisRun, data: dict, t0: float) -> None:
    progress = _progress_writer(run.pk)
    try:
        if run.kind == AnalysisKind.PRWS_SUMMARY:
            rows, summary = compute.prws_summary(
                compute.ratings_from_json(data["ratings"]), seed=run.seed, samples=run.parameters["samples"]
            )
            _write(run, t0, summary=summary, prws=rows)
        elif run.kind == AnalysisKind.METRIC_SCORES:
            refs = data["references"]
            sets = {
                name: [refs[m] for m in members] for name, members in run.parameters["reference_sets"].items()
            }
            rows = compute.metric_scores(
                data["source"],
                data["outputs"],
                sets,
                run.parameters["metrics"],
                store=DbCache(),
                progress=progress,
            )
            summary = {}
            if "gleu" in run.parameters["metrics"]:
                summary["gleu_by_edit_distance"] = {
                    name: compute.gleu_by_edit_distance(data["source"], refs_, data["outputs"])
                    for name, refs_ in sets.items()
                }
            _write(run, t0, metrics=rows, summary=summary)
        elif run.kind == AnalysisKind.GLEU_VS_REFS:
            rows = compute.gleu_vs_refs(
                data["source"], data["outputs"], data["references"], progress=progress
            )
            _write(run, t0, metrics=rows)
        elif run.kind == AnalysisKind.ENSEMBLE:
            human_input = RunInput.objects.get(run_id=run.parameters["human_run"]).data
            segments = _segments_by_index(human_input, data.get("sentence_ids", []))
            rows, summary = compute.ensemble_train(
                data["source"],
                [data["references"][n] for n in sorted(data["references"])],
                {n: v for n, v in data["outputs"].items() if segments.get(n)},
                segments,
                components=run.parameters["components"],
                synthetic=run.parameters["synthetic"],
                samples=run.parameters["samples"],
                folds=run.parameters["folds"],
                alpha=run.parameters["alpha"],
                seed=run.seed,
                progress=progress,
            )
            _write(run, t0, metrics=rows, summary=summary)
        elif run.kind == AnalysisKind.META_EVAL:
            human = human_scores(AnalysisRun.objects.get(pk=run.parameters["human_run"]))
            metric_rows = list(
                MetricResult.objects.filter(run_id=run.parameters["metric_run"]).values(
                    "name", "reference_set", "metric", "score"
                )
            )
            summary: dict = {"human": human}
            if run.parameters.get("synthetic"):
                extra_rows, extra_human = _synthetic(run, progress)
                metric_rows += extra_rows
                human = {**human, **extra_human}
                summary["synthetic"] = len(extra_human)
            rows = compute.correlations(metric_rows, human, exclude=run.parameters.get("exclude", []))
            _write(run, t0, correlations=rows, summary=summary)
    except Exception as exc:
        _fail(run.pk, exc)


def _segments_by_index(human_input: dict, sentence_ids: list[int]) -> dict[str, dict[str, float]]:
    """PRWS segment means keyed by the 0-based line of a frozen corpus (items are sentence ids)."""
    from geceval.prws import segment_means

    position = {str(pk): str(i) for i, pk in enumerate(sentence_ids)}
    segments = segment_means(compute.ratings_from_json(human_input["ratings"]))
    return {
        system: {position[item]: v for item, v in cells.items() if item in position}
        for system, cells in segments.items()
    }


def _synthetic(run: AnalysisRun, progress) -> tuple[list[dict], dict[str, float]]:
    """Hybrid super-sampled systems (Graham and Liu 2016) scored by every metric × reference set of the
    metric run, with human scores from the PRWS human run's segment means."""
    human_input = RunInput.objects.get(run_id=run.parameters["human_run"]).data
    metric_run = AnalysisRun.objects.get(pk=run.parameters["metric_run"])
    metric_input = RunInput.objects.get(run=metric_run).data
    by_index = _segments_by_index(human_input, metric_input.get("sentence_ids", []))
    refs = metric_input["references"]
    sets = {
        name: [refs[m] for m in members] for name, members in metric_run.parameters["reference_sets"].items()
    }
    return compute.synthetic_systems(
        metric_input["source"],
        {n: v for n, v in metric_input["outputs"].items() if by_index.get(n)},
        by_index,
        sets,
        metric_run.parameters["metrics"],
        seed=run.seed,
        samples=run.parameters["synthetic"]["samples"],
        store=DbCache(),
        progress=progress,
    )


def human_scores(run: AnalysisRun) -> dict[str, float]:
    """System -> human score of a finished human run (TrueSkill mu, Expected Wins, or PRWS mean)."""
    if run.kind == AnalysisKind.PRWS_SUMMARY:
        return dict(PrwsResult.objects.filter(run=run).values_list("name", "mean"))
    return dict(SystemRankResult.objects.filter(run=run).values_list("name", "mu"))


def _write(
    run: AnalysisRun,
    t0: float,
    *,
    summary: dict | None = None,
    ranks: list[dict] | None = None,
    prws: list[dict] | None = None,
    metrics: list[dict] | None = None,
    correlations: list[dict] | None = None,
    from_status: str = RunStatus.RUNNING,
    timings: dict | None = None,
) -> bool:
    """Write the result rows and mark the run done, once (the status update is the claim)."""
    systems = dict(System.objects.filter(corpus_id=run.campaign.corpus_id).values_list("name", "pk"))
    with transaction.atomic():
        now = timezone.now()
        total = max(run.progress_total, 1) if run.kind in RANKING_KINDS else 1
        updated = AnalysisRun.objects.filter(pk=run.pk, status=from_status).update(
            status=RunStatus.DONE,
            finished=now,
            summary=summary or {},
            progress_total=total,
            progress_done=total,
            timings=timings if timings is not None else {"total": round(time.perf_counter() - t0, 3)},
        )
        if not updated:
            return False
        if ranks:
            SystemRankResult.objects.bulk_create(
                [SystemRankResult(run=run, system_id=systems.get(r["name"]), **r) for r in ranks]
            )
        if prws:
            PrwsResult.objects.bulk_create(
                [PrwsResult(run=run, system_id=systems.get(r["name"]), **r) for r in prws]
            )
        if metrics:
            MetricResult.objects.bulk_create([MetricResult(run=run, **r) for r in metrics])
        if correlations:
            CorrelationResult.objects.bulk_create([CorrelationResult(run=run, **r) for r in correlations])
    return True


# --------------------------------------------------------------------------- chunks and merge


@functools.lru_cache(maxsize=4)
def _pair_data(run_id: int, started: str):
    """The run's frozen pairs, prepared once per worker process (a run's input never changes).

    Keyed by id and start time: a database that reuses ids (tests rolling back) cannot hand a
    new run an old run's pairs."""
    from geceval.ranking import prepare

    data = RunInput.objects.get(run_id=run_id).data
    pairs = compute.pairs_from_json(data["rankings"])
    return prepare(pairs)


def run_chunk_execute(*, chunk_id: int) -> bool:
    """Claim and compute one chunk; merges when it is the last. False when another worker has it
    (claimed less than ``CHUNK_STALE_SECONDS`` ago) or it is done."""
    now = timezone.now()
    claimable = Q(status=ChunkStatus.PENDING) | Q(
        status=ChunkStatus.RUNNING, claimed__lt=now - datetime.timedelta(seconds=CHUNK_STALE_SECONDS)
    )
    claimed = RunChunk.objects.filter(claimable, pk=chunk_id).update(
        status=ChunkStatus.RUNNING, claimed=now, attempts=F("attempts") + 1, steps_done=0
    )
    if not claimed:
        return False
    chunk = RunChunk.objects.select_related("run").get(pk=chunk_id)
    run = chunk.run
    if run.status != RunStatus.RUNNING:
        return False
    from geceval.ranking import run_chunk

    method = "trueskill" if run.kind == AnalysisKind.TRUESKILL else "ew"
    n_runs = len(chunk.run_indices)
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        RunChunk.objects.filter(pk=chunk_id, status=ChunkStatus.RUNNING).update(
            steps_done=min(n_runs, n_runs * done // max(total, 1))
        )
        _run_progress(run.pk)

    try:
        result = run_chunk(
            _pair_data(run.pk, str(run.started)),
            chunk.run_indices,
            run.seed,
            method=method,
            progress=progress,
        )
    except Exception as exc:
        _fail(run.pk, exc)
        raise
    RunChunk.objects.filter(pk=chunk_id).exclude(status=ChunkStatus.DONE).update(
        status=ChunkStatus.DONE, result=result.to_dict(), steps_done=n_runs, finished=timezone.now()
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
    """Merge the chunks of a ranking run and write its rows (once: claimed running -> merging)."""
    if not _claim_run(run_id, RunStatus.RUNNING, RunStatus.MERGING):
        return False
    run = AnalysisRun.objects.select_related("campaign").get(pk=run_id)
    t0 = time.perf_counter()
    try:
        from geceval.ranking import ChunkResult, merge

        chunks = list(RunChunk.objects.filter(run=run).order_by("index").values_list("result", flat=True))
        if any(c is None for c in chunks):
            raise AnalysisError("a chunk has no result")
        result = merge([ChunkResult.from_dict(c) for c in chunks])
        pairs = compute.pairs_from_json(RunInput.objects.get(run=run).data["rankings"])
        counts = compute.pair_counts(pairs)
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
            "agreement": compute.agreement_summary(pairs),
        }
        if run.parameters.get("estimate_needed"):
            summary["needed"] = compute.judgments_needed(
                pairs, seed=run.seed, runs=int(run.parameters.get("estimate_runs", 100))
            )
        timings = dict(run.timings)
        timings["merge"] = round(time.perf_counter() - t0, 3)
        chunk_times = [
            (c.finished - c.claimed).total_seconds()
            for c in RunChunk.objects.filter(run=run)
            if c.finished and c.claimed
        ]
        timings["chunks"] = round(sum(chunk_times), 3)
        timings["total"] = round((timezone.now() - run.started).total_seconds(), 3) if run.started else None
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
    stored once.
    """
    from ranking.analysis.tasks import task_run_chunk, task_run_merge, task_run_start

    run.refresh_from_db()
    if run.status in (RunStatus.DONE, RunStatus.FAILED):
        return []
    if run.status == RunStatus.MERGING:
        AnalysisRun.objects.filter(pk=run.pk, status=RunStatus.MERGING).update(status=RunStatus.RUNNING)
        task_run_merge.delay(run_id=run.pk)
        return []
    if run.status == RunStatus.RUNNING and run.kind in RANKING_KINDS and run.chunks.exists():
        RunChunk.objects.filter(run=run, status=ChunkStatus.RUNNING).update(status=ChunkStatus.PENDING)
        ids = list(run.chunks.exclude(status=ChunkStatus.DONE).values_list("pk", flat=True))
        if not ids:
            task_run_merge.delay(run_id=run.pk)
        for chunk_id in ids:
            task_run_chunk.delay(chunk_id=chunk_id)
        return ids
    AnalysisRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(status=RunStatus.PENDING)
    task_run_start.delay(run_id=run.pk)
    return []


def stale_runs_resume(*, older_than_seconds: int = 3600) -> int:
    """Resume running runs whose chunks have not moved for a while (a periodic safety net)."""
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than_seconds)
    count = 0
    for run in AnalysisRun.objects.filter(
        status__in=[RunStatus.RUNNING, RunStatus.MERGING], started__lt=cutoff
    ):
        if not run.chunks.filter(status=ChunkStatus.RUNNING, claimed__gte=cutoff).exists():
            analysis_run_resume(run=run)
            count += 1
    return count
