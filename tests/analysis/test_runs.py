"""Analysis runs through the (eager) Celery path: results equal the core's, deterministic, written once."""

from __future__ import annotations

import pytest

from geceval.formats.judgments import expand_pairwise
from geceval.human.system_ranking import rank
from ranking.analysis import services
from ranking.analysis.models import AnalysisRun, RunChunk, RunStatus, SystemRankResult
from tests.factories import ranking_campaign

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
    from geceval.human.agreement import group_agreement

    pooled = group_agreement(expand_pairwise(rankings))[0]  # items: 40 sentences, judges: 7
    assert run.summary["agreement"]["shared"] == pooled.n > 0
    assert run.summary["agreement"]["kappa"] == pytest.approx(pooled.kappa)


def test_expected_wins_run_equals_the_cores_bootstrap_and_stores_expected_wins():
    _user, campaign, rankings = ranking_campaign()
    run = _run(campaign, kind="expected_wins", runs=30, chunks=4)
    assert run.status == RunStatus.DONE, run.error
    expected = rank(expand_pairwise(rankings), method="ew", runs=30, seed=3)
    rows = list(SystemRankResult.objects.filter(run=run).order_by("position"))
    assert [(r.name, r.expected_wins, (r.rank_lo, r.rank_hi), r.cluster) for r in rows] == [
        (s.name, s.mu, s.rank_range, s.cluster) for s in expected.systems
    ]


def test_a_run_without_judgments_fails_with_a_reason_and_writes_nothing():
    from ranking.models import Campaign
    from tests import factories
    from tests.factories import researcher_and_project

    user, project = researcher_and_project()
    corpus, made = factories.corpus_with_systems(
        project, sources=["a ."], systems={"x": ["a ."], "y": ["b ."]}
    )
    campaign = Campaign.objects.create(
        project=project, corpus=corpus, name="empty", protocol="ranking", created_by=user
    )
    campaign.systems.set(made)
    run = _run(campaign, runs=10, chunks=1)
    assert run.status == RunStatus.FAILED and "fewer than two systems" in run.error
    assert (
        not SystemRankResult.objects.filter(run=run).exists()
        and not RunChunk.objects.filter(run=run).exists()
    )
    assert services.analysis_run_resume(run=run) == []


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("trueskill", {"runs": 10, "chunks": 11}, "number of chunks from 1 to the number of runs"),
        ("metric_scores", {"metrics": ["nope"]}, "unknown metric"),
        ("meta_eval", {"human_run": 999, "metric_run": 998}, "Choose a finished run for the human judgments"),
        ("ensemble", {}, "The human judgments must come from a finished PRWS summary"),
        ("nope", {}, "not available"),
        ("trueskill", {"runs": "many"}, "malformed parameters"),
        ("trueskill", {"runs": 5000, "chunks": 5000}, "at most 1000"),
        ("metric_scores", {"reference_sets": {"x": "ref"}}, "not references of the corpus"),
        ("metric_scores", {"reference_sets": []}, "no reference systems"),
    ],
)
def test_bad_run_parameters_are_refused_before_a_run_exists(kind, params, message):
    _user, campaign, _r = ranking_campaign(n=10)
    with pytest.raises(services.AnalysisError, match=message):
        services.analysis_run_create(campaign=campaign, kind=kind, parameters=params)
    assert not AnalysisRun.objects.exists()


def test_a_chunk_claimed_by_a_dead_worker_long_ago_is_claimed_again_by_a_redelivery(monkeypatch):
    import datetime

    from django.utils import timezone

    from ranking.analysis.models import ChunkStatus

    monkeypatch.setattr("ranking.analysis.tasks.task_run_chunk.delay", lambda **kw: None)
    _user, campaign, rankings = ranking_campaign()
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 20, "chunks": 2}, seed=1
    )
    services.analysis_run_enqueue(run)  # start only: chunk tasks are "lost"
    first, second = RunChunk.objects.filter(run=run).order_by("index")
    now = timezone.now()
    RunChunk.objects.filter(pk=first.pk).update(status=ChunkStatus.RUNNING, claimed=now, alive=now)
    assert services.run_chunk_execute(chunk_id=first.pk) is False  # a live lease is respected
    long_ago = timezone.now() - datetime.timedelta(seconds=services.chunk_lease_seconds() + 1)
    RunChunk.objects.filter(pk=first.pk).update(claimed=long_ago, alive=long_ago)
    assert services.run_chunk_execute(chunk_id=first.pk) is True
    assert services.run_chunk_execute(chunk_id=second.pk) is True
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    expected = rank(expand_pairwise(rankings), runs=20, seed=1)
    assert list(run.rank_results.values_list("name", "mu")) == [(s.name, s.mu) for s in expected.systems]


def test_the_periodic_safety_net_resumes_a_run_whose_chunks_stopped_moving(monkeypatch):
    import datetime

    from django.utils import timezone

    from ranking.analysis.models import ChunkStatus
    from ranking.analysis.tasks import task_run_chunk

    _user, campaign, rankings = ranking_campaign()
    with monkeypatch.context() as m:
        m.setattr(task_run_chunk, "delay", lambda **kw: None)  # the chunk messages are lost
        run = services.analysis_run_create(
            campaign=campaign, kind="trueskill", parameters={"runs": 20, "chunks": 2}, seed=2
        )
        services.analysis_run_enqueue(run)
    long_ago = timezone.now() - datetime.timedelta(hours=2)
    AnalysisRun.objects.filter(pk=run.pk).update(started=long_ago)
    RunChunk.objects.filter(run=run, index=0).update(status=ChunkStatus.RUNNING, claimed=long_ago)
    assert services.stale_runs_resume(older_than_seconds=3600) == 1
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    expected = rank(expand_pairwise(rankings), runs=20, seed=2)
    assert list(run.rank_results.values_list("name", "mu")) == [(s.name, s.mu) for s in expected.systems]
    assert services.stale_runs_resume(older_than_seconds=3600) == 0


def test_a_run_launched_while_the_broker_is_unreachable_stays_pending_and_the_repair_starts_it():
    from django.test import Client

    from tests.celery_workers import broker_at

    user, campaign, rankings = ranking_campaign()
    client = Client()
    client.force_login(user)
    with broker_at("redis://127.0.0.1:1/0"):  # nothing listens there
        page = client.post(
            f"/campaigns/{campaign.pk}/analysis/", {"kind": "trueskill", "seed": 3, "runs": 20, "chunks": 2}
        )
        shown = client.get(page["Location"]).content.decode()
    assert page.status_code == 302
    run = AnalysisRun.objects.get(campaign=campaign)
    assert run.status == RunStatus.PENDING
    assert "The task queue cannot be reached just now" in shown
    # a run younger than the repair interval is left alone: its message may still be queued
    assert services.stale_runs_resume(pending_after_seconds=3600) == 0
    assert services.stale_runs_resume(pending_after_seconds=0) == 1  # beat, once the broker is back
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    expected = rank(expand_pairwise(rankings), runs=20, seed=3)
    assert list(run.rank_results.values_list("name", "mu")) == [(s.name, s.mu) for s in expected.systems]
