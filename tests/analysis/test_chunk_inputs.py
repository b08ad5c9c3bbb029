"""A ranking run's frozen input carries its pairs encoded once, so chunks and the merge expand no
rankings again; old inputs without them still run; worker processes load TrueSkill's kernel at start.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from geceval.formats.judgments import expand_pairwise
from geceval.human.pairs import prepare
from geceval.human.system_ranking import rank
from ranking.analysis import compute, services
from ranking.analysis.models import RunInput, RunStatus
from tests.factories import ranking_campaign

REPO = Path(__file__).resolve().parents[2]


def _started_run(monkeypatch, campaign):
    """A TrueSkill run started (input frozen, chunks made) whose chunk tasks are not sent."""
    monkeypatch.setattr("ranking.analysis.tasks.task_run_chunk.delay", lambda **kw: None)
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 20, "chunks": 2}, seed=1
    )
    services.analysis_run_enqueue(run)
    return run


def _finish(run):
    for chunk in run.chunks.order_by("index"):
        assert services.run_chunk_execute(chunk_id=chunk.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return list(run.rank_results.values_list("name", "mu", "rank_lo", "rank_hi", "cluster"))


def _expected(pairs):
    return [(s.name, s.mu, *s.rank_range, s.cluster) for s in rank(pairs, runs=20, seed=1).systems]


@pytest.mark.django_db
def test_chunks_and_merge_use_the_frozen_encoded_pairs_and_expand_no_rankings(monkeypatch):
    _user, campaign, rankings = ranking_campaign()
    run = _started_run(monkeypatch, campaign)
    frozen = RunInput.objects.get(run=run).data
    pairs = expand_pairwise(rankings)
    assert frozen["pair_data"] == prepare(pairs).to_dict()
    assert frozen["pair_counts"] == compute.pair_counts(pairs)
    assert frozen["agreement"] == compute.agreement_summary(pairs)

    def expanded_again(data):
        raise AssertionError("a chunk or the merge expanded the rankings again")

    monkeypatch.setattr(compute, "pairs_from_json", expanded_again)
    assert _finish(run) == _expected(pairs)
    assert run.summary["agreement"] == frozen["agreement"]


@pytest.mark.django_db
def test_an_input_frozen_without_the_encoded_pairs_still_runs_to_the_same_result(monkeypatch):
    _user, campaign, rankings = ranking_campaign()
    run = _started_run(monkeypatch, campaign)
    data = RunInput.objects.get(run=run).data
    for key in ("pair_data", "pair_counts", "agreement"):
        del data[key]
    RunInput.objects.filter(run=run).update(data=data)
    pairs = expand_pairwise(rankings)
    assert _finish(run) == _expected(pairs)
    assert run.summary["agreement"] == compute.agreement_summary(pairs)


def test_a_worker_process_loads_the_trueskill_kernel_when_it_starts():
    code = (
        "import django; django.setup()\n"
        "from celery.signals import worker_process_init\n"
        "import ranking.analysis.tasks\n"
        "from geceval.human import trueskill_kernel\n"
        "assert not trueskill_kernel.games.overloads\n"
        "worker_process_init.send(sender=None)\n"
        "assert trueskill_kernel.games.overloads\n"
        "print('loaded')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.strip() == "loaded", done.stderr[-2000:]
