"""Automatic recovery (issue 18): a Celery worker killed with SIGKILL mid-run; a new worker and
beat finish the run by themselves, with the same result, within 5 minutes.

Before: the dead worker's unacknowledged chunks waited for Redis' visibility timeout (an hour) and
beat's repair for an hour too; only a manual resume finished the run. Now a running chunk holds a
lease its progress renews (``RunChunk.alive``); beat reclaims chunks whose lease ran out
(``ANALYSIS_CHUNK_LEASE_SECONDS``) and sends them again. Real worker and beat processes on
PostgreSQL + Redis (tests/celery_workers.py); skips without them.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from ranking.analysis import services
from ranking.analysis.models import ChunkStatus, RunStatus, SystemRankResult
from tests.analysis.test_real_worker import _expected, _table, _wait
from tests.celery_workers import celery_workers
from tests.factories import ranking_campaign

LEASE = "20"
"""Seconds a running chunk's lease lasts here (``ANALYSIS_CHUNK_LEASE_SECONDS``; 120 by default)."""


@pytest.fixture
def pool(transactional_db, real_postgres, real_redis):
    with celery_workers("test-recovery", ["-I", "ranking.analysis.tasks"]) as workers:
        yield workers


@pytest.mark.slow
def test_a_run_whose_worker_is_killed_finishes_by_itself_on_a_new_worker_with_the_same_result(pool, tmp_path):
    proc, _log = pool.start()
    _user, campaign, rankings = ranking_campaign(n=3000)
    # 500 runs a chunk (~0.1 CPU-s of kernel each): long enough that the poll below finds a chunk
    # running; with 50 (the numba kernel made them ~9 ms) the whole run could finish between polls
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 4000, "chunks": 8}, seed=11
    )
    services.analysis_run_enqueue(run)
    _wait(
        run,
        lambda r: (
            1 <= r.chunks.filter(status=ChunkStatus.DONE).count() <= 5
            and r.chunks.filter(status=ChunkStatus.RUNNING).exists()
        ),
    )
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING
    # A new worker, and beat with the production schedule (its repair every 10 s here): no resume.
    # The lease is the worker's setting: beat only sends the reclaim, the worker runs it (given to
    # beat alone, the worker reclaimed at the default 120 s and the test took over two minutes).
    pool.start(ANALYSIS_CHUNK_LEASE_SECONDS=LEASE)
    started = time.monotonic()
    pool.start_beat(tmp_path, CELERY_REPAIR_SECONDS="10")
    _wait(run, lambda r: r.status in (RunStatus.DONE, RunStatus.FAILED), timeout=300)
    assert run.status == RunStatus.DONE, run.error
    # the lease (20 s), a repair tick (10 s) and the chunks' own time: well under the default lease
    assert time.monotonic() - started < 100
    assert _table(run) == _expected(rankings, 4000, 11)
    assert run.chunks.filter(attempts__gte=2).count() >= 1  # the chunk that died was computed again
    assert SystemRankResult.objects.filter(run=run).count() == 4
