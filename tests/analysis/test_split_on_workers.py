"""The million-judgment analysis split across real Celery worker processes (issue 43).

A TrueSkill run and a PRWS summary of compact imported campaigns, frozen in parts and computed in
chunks by two `celery worker` processes (PostgreSQL test database, Redis broker), give the figures
of the same runs unsplit (frozen at once, one chunk, in this process) to the last digit; a chunk
that raises fails its run, says which chunk and why, and leaves no result rows.
Skips locally without DATABASE_URL / CELERY_BROKER_URL (a failure under CI=true).
"""

from __future__ import annotations

import time

import pytest

from bench.make_million import write_pairs, write_ratings
from crowd.importing import judgments_import
from ranking.analysis import services
from ranking.analysis.models import (
    AnalysisRun,
    ChunkPhase,
    ChunkStatus,
    PrwsResult,
    RunChunk,
    RunInput,
    RunStatus,
    SystemRankResult,
)
from tests.celery_workers import celery_workers
from tests.factories import researcher_and_project

SEED = 7
PER_PART = 1500  # in the workers: 3,000 pairwise judgments (6,000 entries) freeze in 4 parts


@pytest.fixture
def pool(transactional_db, real_postgres, real_redis):
    with celery_workers("test-split", ["-I", "ranking.analysis.tasks"]) as workers:
        workers.env["ANALYSIS_FREEZE_ENTRIES_PER_PART"] = str(PER_PART)
        yield workers


@pytest.fixture
def campaigns(tmp_path):
    """A compact pairwise campaign (6 systems) and a compact PRWS one whose outputs are often rated
    twice or more (so split-half samples are drawn and shared out as chunks)."""
    write_pairs(tmp_path / "pairs.csv", pairs=3000, systems=6, sentences=300, judges=20, seed=0)
    write_ratings(tmp_path / "ratings.csv", ratings=3000, systems=6, sentences=150, judges=15, seed=1)
    _user, project = researcher_and_project()
    return {
        kind: judgments_import(
            project=project, name=kind, fmt=fmt, path_or_bytes=tmp_path / name, compact=True
        ).campaign
        for kind, fmt, name in (("pairs", "wmt-csv", "pairs.csv"), ("ratings", "prws-csv", "ratings.csv"))
    }


def _wait(*runs: AnalysisRun, until=(RunStatus.DONE, RunStatus.FAILED), timeout: float = 240) -> list[int]:
    """Poll until every run's status is in ``until``; returns the first run's progress values seen."""
    seen = []
    deadline = time.monotonic() + timeout
    for run in runs:
        while True:
            run.refresh_from_db()
            if run is runs[0]:
                seen.append(run.progress_done)
            if run.status in until:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"run {run.pk} stuck in {run.status} ({run.progress_done}/{run.progress_total})")
            time.sleep(0.05)
    return seen


def _ranks(run):
    return list(
        SystemRankResult.objects.filter(run=run)
        .order_by("position")
        .values_list("name", "mu", "rank_lo", "rank_hi", "cluster", "pairs")
    )


def _prws(run):
    return list(
        PrwsResult.objects.filter(run=run)
        .order_by("position")
        .values_list("name", "mean", "z_mean", "cluster", "ratings", "items", "meaning_changed")
    )


def _unsplit(campaign, kind: str, parameters: dict, settings) -> AnalysisRun:
    """The same run frozen at once and computed in one chunk, in this process (no broker)."""
    settings.ANALYSIS_FREEZE_ENTRIES_PER_PART = 10**9
    run = services.analysis_run_create(campaign=campaign, kind=kind, parameters=parameters, seed=SEED)
    for chunk_id in services.analysis_run_start(run_id=run.pk):
        assert services.run_chunk_execute(chunk_id=chunk_id)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    assert not RunChunk.objects.filter(run=run, phase=ChunkPhase.FREEZE).exists()
    return run


@pytest.mark.slow
def test_two_worker_processes_split_the_runs_and_give_the_unsplit_runs_figures(pool, campaigns, settings):
    pool.start()
    pool.start()
    split = {
        "trueskill": services.analysis_run_create(
            campaign=campaigns["pairs"], kind="trueskill", parameters={"runs": 120, "chunks": 12}, seed=SEED
        ),
        "prws": services.analysis_run_create(
            campaign=campaigns["ratings"],
            kind="prws_summary",
            parameters={"samples": 40, "chunks": 8},
            seed=SEED,
        ),
    }
    for run in split.values():
        assert services.analysis_run_enqueue(run)
    progress = _wait(*split.values())
    for run in split.values():
        assert run.status == RunStatus.DONE, run.error

    # split: frozen in parts, then chunks of runs / samples, shared by both processes
    assert RunInput.objects.get(run=split["trueskill"]).data["parts"] == 4
    assert RunInput.objects.get(run=split["prws"]).data["parts"] == 2
    chunks = RunChunk.objects.filter(run__in=split.values())
    assert chunks.filter(run=split["trueskill"], phase=ChunkPhase.RUNS).count() == 12
    assert chunks.filter(run=split["prws"], phase=ChunkPhase.RUNS).count() == 8
    assert set(chunks.values_list("status", flat=True)) == {ChunkStatus.DONE}
    assert len(set(chunks.values_list("worker", flat=True))) == 2, "one process did all the work"
    # progress moved forward to the total, never back
    assert progress == sorted(progress) and progress[-1] == 120

    whole = {
        "trueskill": _unsplit(campaigns["pairs"], "trueskill", {"runs": 120, "chunks": 1}, settings),
        "prws": _unsplit(campaigns["ratings"], "prws_summary", {"samples": 40}, settings),
    }
    assert "parts" not in RunInput.objects.get(run=whole["trueskill"]).data
    assert _ranks(split["trueskill"]) == _ranks(whole["trueskill"])
    assert len(_ranks(whole["trueskill"])) == 6
    assert split["trueskill"].summary == whole["trueskill"].summary
    assert split["trueskill"].pairs_used == whole["trueskill"].pairs_used == 3000
    assert _prws(split["prws"]) == _prws(whole["prws"])
    assert split["prws"].summary == whole["prws"].summary
    assert split["prws"].summary["reliability"]["cells"] > 100  # samples were drawn, in chunks


@pytest.mark.slow
def test_a_chunk_that_raises_fails_the_run_saying_which_and_no_result_is_saved(pool, campaigns):
    pool.start()
    pool.start()
    run = services.analysis_run_create(
        campaign=campaigns["pairs"], kind="trueskill", parameters={"runs": 80, "chunks": 8}, seed=SEED
    )
    # chunk 6 of the run (the 3rd of its 8 after 4 freeze parts), stored before the run starts
    # (the start keeps chunks it finds): a run index the random streams refuse, so computing it raises
    RunChunk.objects.create(run=run, index=6, run_indices=[-1], steps_total=1)
    assert services.analysis_run_enqueue(run)
    _wait(run)

    assert run.status == RunStatus.FAILED
    assert run.error.startswith("ChunkFailed: chunk 6 (runs or samples -1 to -1) failed on "), run.error
    assert run.error.endswith("ValueError: expected non-negative integer"), run.error
    assert RunInput.objects.get(run=run).data["parts"] == 4  # the freeze parts went before
    # the other chunks stop or finish; none merges: no result row, no summary, ever
    deadline = time.monotonic() + 30
    others = RunChunk.objects.filter(run=run, phase=ChunkPhase.RUNS).exclude(index=6)
    while others.filter(status=ChunkStatus.PENDING).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert not SystemRankResult.objects.filter(run=run).exists()
    assert run.summary == {}
    assert not services.analysis_run_merge(run_id=run.pk)
    assert not SystemRankResult.objects.filter(run=run).exists()
