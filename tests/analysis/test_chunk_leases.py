"""Chunk leases (issue 18): beat reclaims the chunks of a worker that died, a chunk delivered twice
is computed at most once while its lease is alive and stored once in any case."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from geceval.formats.judgments import expand_pairwise
from geceval.human.system_ranking import rank
from ranking.analysis import services
from ranking.analysis.models import ChunkStatus, RunChunk, RunStatus
from tests.factories import ranking_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch, settings):
    settings.ANALYSIS_CHUNK_LEASE_SECONDS = 60
    out = []
    monkeypatch.setattr(services, "task_send", lambda name, **kw: out.append((name.rsplit(".", 1)[1], kw)))
    return out


def _started_run(sent):
    _user, campaign, rankings = ranking_campaign()
    run = services.analysis_run_create(
        campaign=campaign, kind="trueskill", parameters={"runs": 20, "chunks": 3}, seed=1
    )
    services.analysis_run_enqueue(run)
    services.analysis_run_start(run_id=run.pk)  # chunk messages "lost" with the dead worker
    run.refresh_from_db()
    sent.clear()
    return run, rankings, list(RunChunk.objects.filter(run=run).order_by("index"))


def _ago(seconds):
    return timezone.now() - datetime.timedelta(seconds=seconds)


def test_a_dead_chunk_is_sent_again_and_a_live_one_is_left_to_its_worker(sent):
    run, _, (a, b, _c) = _started_run(sent)
    run.__class__.objects.filter(pk=run.pk).update(started=_ago(600))
    RunChunk.objects.filter(pk=a.pk).update(status=ChunkStatus.RUNNING, claimed=_ago(300), alive=_ago(61))
    RunChunk.objects.filter(pk=b.pk).update(status=ChunkStatus.RUNNING, claimed=_ago(300), alive=_ago(5))
    assert services.chunks_reclaim() == 1
    assert sent == [("task_run_chunk", {"chunk_id": a.pk})]
    assert RunChunk.objects.get(pk=a.pk).status == ChunkStatus.PENDING
    assert RunChunk.objects.get(pk=b.pk).status == ChunkStatus.RUNNING
    # The live chunk's message delivered twice: left alone.
    assert services.run_chunk_execute(chunk_id=b.pk) is False
    assert RunChunk.objects.get(pk=b.pk).attempts == 0


def test_when_nothing_moves_the_pending_chunks_are_sent_again_too(sent):
    run, rankings, (a, b, c) = _started_run(sent)
    run.__class__.objects.filter(pk=run.pk).update(started=_ago(600))
    RunChunk.objects.filter(pk=a.pk).update(status=ChunkStatus.RUNNING, claimed=_ago(300), alive=_ago(61))
    assert services.chunks_reclaim() == 3
    assert sorted(kw["chunk_id"] for _, kw in sent) == [a.pk, b.pk, c.pk]
    # Each delivered twice (the repair's message and the broker's late one): computed and stored once.
    for chunk in (a, b, c):
        assert services.run_chunk_execute(chunk_id=chunk.pk) is True
        assert services.run_chunk_execute(chunk_id=chunk.pk) is False
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    expected = rank(expand_pairwise(rankings), runs=20, seed=1)
    assert list(run.rank_results.values_list("name", "mu")) == [(s.name, s.mu) for s in expected.systems]
    assert list(RunChunk.objects.filter(run=run).values_list("attempts", flat=True)) == [1, 1, 1]


def test_a_run_just_started_is_not_touched(sent):
    _started_run(sent)
    assert services.chunks_reclaim() == 0
    assert sent == []


def test_the_beat_schedule_reclaims_chunks_every_minute():
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["reclaim-analysis-chunks"]
    assert entry["task"] == "ranking.analysis.tasks.task_reclaim_chunks"
    assert entry["schedule"] == 60.0
    assert settings.ANALYSIS_CHUNK_LEASE_SECONDS == 120
