"""Analysis runs on real Celery worker processes (Redis broker, PostgreSQL test database).

Skips locally without DATABASE_URL / CELERY_BROKER_URL (real_postgres, real_redis);
the workers come from tests/celery_workers.py, with the analysis tasks included.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from geceval.formats.judgments import expand_pairwise
from geceval.human.system_ranking import rank
from ranking.analysis import services
from ranking.analysis.models import AnalysisRun, ChunkStatus, RunStatus, SystemRankResult
from tests.celery_workers import celery_workers
from tests.factories import ranking_campaign


@pytest.fixture
def workers(transactional_db, real_postgres, real_redis):
    """start() launches a `celery worker` process on a queue of this test; all are stopped at the end."""
    with celery_workers("test-analysis", ["-I", "ranking.analysis.tasks"]) as pool:
        yield pool.start


def _wait(run: AnalysisRun, until, timeout: float = 180) -> list[int]:
    """Poll the run until ``until(run)``; returns the progress values seen."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run.refresh_from_db()
        seen.append(run.progress_done)
        if until(run):
            return seen
        time.sleep(0.05)
    pytest.fail(f"run {run.pk} stuck in {run.status} ({run.progress_done}/{run.progress_total}) {run.error}")


def _table(run):
    return [
        (r.name, r.mu, (r.rank_lo, r.rank_hi), r.cluster)
        for r in SystemRankResult.objects.filter(run=run).order_by("position")
    ]


def _expected(rankings, runs, seed):
    return [
        (s.name, s.mu, s.rank_range, s.cluster)
        for s in rank(expand_pairwise(rankings), runs=runs, seed=seed).systems
    ]


@pytest.mark.slow
def test_a_worker_process_runs_trueskill_in_chunks_with_moving_progress_and_matches_one_process(workers):
    workers()
    _user, campaign, rankings = ranking_campaign(n=3000)
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 200, "chunks": 5}, seed=7
    )
    services.analysis_run_enqueue(run)
    seen = _wait(run, lambda r: r.status in (RunStatus.DONE, RunStatus.FAILED))
    assert run.status == RunStatus.DONE, run.error
    assert _table(run) == _expected(rankings, 200, 7)
    assert any(0 < v < 200 for v in seen), f"no intermediate progress among {sorted(set(seen))}"
    assert run.chunks.filter(status=ChunkStatus.DONE, attempts=1).count() == 5
    assert run.versions["numpy"] and run.finished and run.timings["merge"] >= 0


@pytest.mark.slow
def test_a_run_whose_worker_is_killed_resumes_on_another_worker_and_matches(workers):
    proc, _log = workers()
    _user, campaign, rankings = ranking_campaign(n=3000)
    # 500 runs a chunk, as in test_real_worker_recovery.py (e65a2dd): with 50 (~9 ms of kernel each)
    # the run could finish between two polls, more so with another test process on the machine
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 4000, "chunks": 8}, seed=11
    )
    services.analysis_run_enqueue(run)
    _wait(
        run,
        lambda r: (
            # kill with at least 3 chunks still to do, so the worker cannot finish first
            1 <= r.chunks.filter(status=ChunkStatus.DONE).count() <= 5
            and r.chunks.filter(status=ChunkStatus.RUNNING).exists()
        ),
    )
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    done_before = run.chunks.filter(status=ChunkStatus.DONE).count()
    assert 1 <= done_before < 8
    # resumed before the next worker starts: that worker would otherwise take the chunks still
    # queued at once (prefetch 1) and, at the kernel's speed, finish some before the resume counts
    resent = services.analysis_run_resume(run=run)
    assert len(resent) == 8 - done_before
    workers()
    _wait(run, lambda r: r.status in (RunStatus.DONE, RunStatus.FAILED))
    assert run.status == RunStatus.DONE, run.error
    assert _table(run) == _expected(rankings, 4000, 11)
    # the chunk that was running when the worker died was claimed twice; results were written once
    assert run.chunks.filter(attempts__gte=2).count() >= 1
    assert SystemRankResult.objects.filter(run=run).count() == 4
