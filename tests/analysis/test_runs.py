"""Analysis runs through the (eager) Celery path: results equal the core's, deterministic, written once."""

from __future__ import annotations

import pytest

from geceval.judgments import expand_pairwise
from geceval.ranking import rank
from ranking.analysis import services
from ranking.analysis.models import RunStatus, SystemRankResult
from tests.analysis.helpers import ranking_campaign

pytestmark = pytest.mark.django_db


def _run(campaign, kind="trueskill", **params):
    run = services.analysis_run_create(campaign=campaign, kind=kind, parameters=params, seed=3)
    services.analysis_run_enqueue(run)
    run.refresh_from_db()
    return run


def test_trueskill_run_in_chunks_equals_one_process_rank():
    _user, campaign, rankings = ranking_campaign()
    run = _run(campaign, runs=40, chunks=3)
    assert run.status == RunStatus.DONE, run.error
    expected = rank(expand_pairwise(rankings), runs=40, seed=3)
    rows = list(SystemRankResult.objects.filter(run=run).order_by("position"))
    assert [(r.name, r.mu, (r.rank_lo, r.rank_hi), r.cluster) for r in rows] == [
        (s.name, s.mu, s.rank_range, s.cluster) for s in expected.systems
    ]
    assert run.chunks.count() == 3 and run.progress_done == run.progress_total == 40
    assert run.judgments_used == 300 and run.pairs_used == 900
    assert rows[0].name == "best" and rows[-1].name == "src"
