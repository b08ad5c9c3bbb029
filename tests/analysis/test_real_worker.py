"""Analysis runs on real Celery worker processes (Redis broker, PostgreSQL test database).

Skips locally without DATABASE_URL / CELERY_BROKER_URL (real_postgres, real_redis);
the worker pattern is tests/test_real_services.py's, with the analysis tasks included.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from geceval.judgments import expand_pairwise
from geceval.ranking import rank
from ranking.analysis import services
from ranking.analysis.models import AnalysisRun, ChunkStatus, RunStatus, SystemRankResult
from tests.analysis.helpers import ranking_campaign

REPO = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def workers(transactional_db, real_postgres, real_redis):
    """start() launches a `celery worker` process on a queue of this test; all are stopped at the end."""
    from config.celery import app

    queue = f"test-analysis-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, DATABASE_URL=_database_url(), CELERY_QUEUE=queue, DEBUG="true")
    started: list[tuple[subprocess.Popen, object]] = []

    def start():
        n = len(started)
        log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"celery-{queue}-{n}.log", "w+")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-Q", queue,
             "-I", "ranking.analysis.tasks", "--without-gossip", "--without-mingle", "--loglevel=INFO",
             "-n", f"{queue}-{n}@%h"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        started.append((proc, log))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log.seek(0)
            if "ready." in log.read():
                return proc, log
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"celery worker exited early:\n{log.read()}")
            time.sleep(0.3)
        pytest.fail("celery worker did not become ready in 60 s")

    old_queue = app.conf.task_default_queue
    app.conf.task_always_eager = False
    app.conf.task_default_queue = queue
    try:
        yield start
    finally:
        app.conf.task_always_eager = True
        app.conf.task_default_queue = old_queue
        for proc, log in started:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            log.close()


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
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 400, "chunks": 8}, seed=11
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
    workers()
    resent = services.analysis_run_resume(run=run)
    assert len(resent) == 8 - done_before
    _wait(run, lambda r: r.status in (RunStatus.DONE, RunStatus.FAILED))
    assert run.status == RunStatus.DONE, run.error
    assert _table(run) == _expected(rankings, 400, 11)
    # the chunk that was running when the worker died was claimed twice; results were written once
    assert run.chunks.filter(attempts__gte=2).count() >= 1
    assert SystemRankResult.objects.filter(run=run).count() == 4
