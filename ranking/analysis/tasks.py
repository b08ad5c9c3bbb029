"""Celery tasks of analysis runs: ids in, call a service. Each is safe to deliver twice (claims are
conditional updates, result rows are unique). The worker finds them through
``app.autodiscover_tasks(["ranking.analysis"])`` in config/celery.py.
"""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_process_init

from geceval.human.trueskill import load_kernel
from ranking.analysis import services


@worker_process_init.connect
def warm_trueskill_kernel(**_kwargs) -> None:
    """Load TrueSkill's compiled kernel when a worker process starts (numba's import and its cached
    kernel, ~0.4 CPU-s), so that no chunk of a run pays for it."""
    load_kernel()


@shared_task(name="ranking.analysis.tasks.task_run_start")
def task_run_start(*, run_id: int) -> int:
    """Claim and prepare a run; sends one task per chunk (ranking kinds). Returns the chunks sent."""
    chunk_ids = services.analysis_run_start(run_id=run_id)
    for chunk_id in chunk_ids:
        task_run_chunk.delay(chunk_id=chunk_id)
    return len(chunk_ids)


@shared_task(name="ranking.analysis.tasks.task_run_chunk")
def task_run_chunk(*, chunk_id: int) -> bool:
    """Compute one chunk of bootstrap runs (no-op when already claimed); the last one merges."""
    return services.run_chunk_execute(chunk_id=chunk_id)


@shared_task(name="ranking.analysis.tasks.task_run_merge")
def task_run_merge(*, run_id: int) -> bool:
    return services.analysis_run_merge(run_id=run_id)


@shared_task(name="ranking.analysis.tasks.task_resume_stale_runs")
def task_resume_stale_runs(
    *, older_than_seconds: int = 3600, pending_after_seconds: int | None = None
) -> int:
    """Periodic safety net (beat): runs whose worker died, or whose start message was lost, are sent again."""
    return services.stale_runs_resume(
        older_than_seconds=older_than_seconds, pending_after_seconds=pending_after_seconds
    )


@shared_task(name="ranking.analysis.tasks.task_reclaim_chunks")
def task_reclaim_chunks() -> int:
    """Beat: chunks whose worker died (lease ran out) are sent again (services.chunks_reclaim)."""
    return services.chunks_reclaim()
