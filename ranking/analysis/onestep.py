"""Storing a run's results (once) and computing the one-step kinds: PRWS summary, metric scores,
GLEU vs references, meta-evaluation, ensemble. Called by services.analysis_run_start."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from annotate.models import System
from geceval.human.prws import segment_means
from ranking.analysis import compute, metrics, prws_parts, sentence_meta
from ranking.analysis.models import (
    AnalysisCache,
    AnalysisKind,
    AnalysisRun,
    CorrelationResult,
    MetricResult,
    PrwsResult,
    RunInput,
    RunStatus,
    SentenceCorrelationResult,
    SystemRankResult,
)
from ranking.analysis.parameters import RANKING_KINDS
from ranking.protocols import protocol_get

PROGRESS_EVERY = 0.5  # seconds between progress writes


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


def execute_one_step(run: AnalysisRun, data: dict, t0: float) -> None:
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
            rows = metrics.metric_scores(
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
                    name: metrics.gleu_by_edit_distance(data["source"], refs_, data["outputs"])
                    for name, refs_ in sets.items()
                }
            _write(run, t0, metrics=rows, summary=summary)
        elif run.kind == AnalysisKind.GLEU_VS_REFS:
            rows = metrics.gleu_vs_refs(
                data["source"], data["outputs"], data["references"], progress=progress
            )
            _write(run, t0, metrics=rows)
        elif run.kind == AnalysisKind.ENSEMBLE:
            segments = _segments_by_index(run.parameters["human_run"], data.get("sentence_ids", []))
            compute.require_output_join(segments, data["outputs"], run.parameters)
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
            human_run = AnalysisRun.objects.get(pk=run.parameters["human_run"])
            human = human_scores(human_run)
            if run.parameters.get("human_score"):
                # a score the campaign's protocol gives besides the ranking (e.g. the edit labels'),
                # read from its judgments now
                protocol = protocol_get(human_run.campaign.protocol)
                human = protocol.human_scores(human_run.campaign, run.parameters["human_score"])
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
            imported = data.get("imported", [])
            metric_rows += sentence_meta.imported_system_rows(imported)
            compute.require_system_join(metric_rows, human, run.parameters)
            rows = compute.correlations(metric_rows, human, exclude=run.parameters.get("exclude", []))
            sentence_rows, summary["sentence_level"] = sentence_meta.sentence_level(
                run, imported, store=DbCache(), progress=progress
            )
            _write(run, t0, correlations=rows, sentences=sentence_rows, summary=summary)
    except Exception as exc:
        _fail(run.pk, exc)


def _segments_by_index(human_run_id: int, sentence_ids: list[int]) -> dict[str, dict[str, float]]:
    """A PRWS run's segment means keyed by the 0-based line of a frozen corpus (items are sentence
    ids): from its frozen ratings, or from its freeze parts' cells (``prws_parts``)."""

    position = {str(pk): str(i) for i, pk in enumerate(sentence_ids)}
    human_input = RunInput.objects.get(run_id=human_run_id).data
    if "ratings" in human_input:
        segments = segment_means(compute.ratings_from_json(human_input["ratings"]))
    else:
        segments = prws_parts.run_segments(human_run_id)
    return {
        system: {position[item]: v for item, v in cells.items() if item in position}
        for system, cells in segments.items()
    }


def _synthetic(run: AnalysisRun, progress) -> tuple[list[dict], dict[str, float]]:
    """Hybrid super-sampled systems (Graham and Liu 2016) scored by every metric × reference set of the
    metric run, with human scores from the PRWS human run's segment means."""
    metric_run = AnalysisRun.objects.get(pk=run.parameters["metric_run"])
    metric_input = RunInput.objects.get(run=metric_run).data
    by_index = _segments_by_index(run.parameters["human_run"], metric_input.get("sentence_ids", []))
    compute.require_output_join(by_index, metric_input["outputs"], run.parameters)
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
    sentences: list[dict] | None = None,
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
        if sentences:
            SentenceCorrelationResult.objects.bulk_create(
                [SentenceCorrelationResult(run=run, **r) for r in sentences]
            )
    return True
