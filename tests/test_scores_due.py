"""A campaign's results are recomputed by one task at a time: while a sent recompute has not started,
submits send no other (``ranking.services.results.campaign_scores_send``, ``ScoresDue``). A recompute
of a large campaign takes seconds; a crowd that finished a HIT a second queued one task per HIT, and
the crowd evidence (the ring's hold, the agreement holds) waited behind them: 2,189 such tasks in
the bots benchmark of 2026-11-28.

The broker is the boundary here: ``task_send`` is replaced by a recorder that accepts the message and
runs nothing, so what is queued can be counted; the task is then run by hand, as a worker would.
The real worker's part: tests/test_real_services.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ranking.models import CampaignStatus, ScoresDue, SystemScore
from ranking.services.results import SCORES_DUE_STALE, TASK_CAMPAIGN_SCORES, campaign_scores_send
from ranking.tasks import task_campaign_scores, task_recompute_active_campaigns
from ranking.work.assignments import assignment_next_screen, assignment_request, screen_submit
from ranking.work.judging import CandidateScore
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


class Broker:
    """What ``task_send`` was asked to send; ``up`` False: unreachable, as task_send reports it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []
        self.up = True

    def __call__(self, name: str, **kwargs) -> bool:
        if self.up:
            self.sent.append((name, kwargs))
        return self.up

    def scores(self) -> list[dict]:
        return [kw for name, kw in self.sent if name == TASK_CAMPAIGN_SCORES]


@pytest.fixture
def broker(monkeypatch):
    broker = Broker()
    monkeypatch.setattr("ranking.services.results.task_send", broker)
    return broker


def _campaign(judges: int = 3):
    campaign, workers = factories.prws_crowd(
        [f"ann{i}" for i in range(judges)],
        ["He go ."],
        {"a": ["He goes ."], "b": ["He went ."]},
        name="scores",
        screens_per_hit=1,
    )
    return campaign, list(workers.values())


def _finish(campaign, worker, good: int, bad: int) -> None:
    """The worker's one HIT, one screen: its submit finishes the HIT, which sends the recompute."""
    assignment = assignment_request(campaign=campaign, worker=worker)
    screen = assignment_next_screen(assignment)
    by_text = {c.text: c.pk for c in screen.candidates.all()}
    answers = {
        by_text["He goes ."]: CandidateScore(score=good),
        by_text["He went ."]: CandidateScore(score=bad),
    }
    screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers)


def test_submits_while_a_recompute_waits_send_no_other_and_it_reads_them_all(broker):
    campaign, workers = _campaign()
    for worker, (good, bad) in zip(workers, [(90, 40), (80, 30), (70, 20)], strict=True):
        _finish(campaign, worker, good, bad)
    # three HITs finished, one task queued: the others found it waiting
    assert broker.scores() == [{"campaign_id": campaign.pk}]
    assert ScoresDue.objects.filter(campaign=campaign).exists()
    # the worker runs it: the mark goes first, then it reads every submit committed before
    assert task_campaign_scores(campaign_id=campaign.pk) == 2
    assert not ScoresDue.objects.filter(campaign=campaign).exists()
    scores = dict(SystemScore.objects.filter(campaign=campaign).values_list("system__name", "mean_score"))
    assert scores == {"a": 80.0, "b": 30.0}
    # the next change after it started sends a task of its own
    campaign_scores_send(campaign.pk)
    assert len(broker.scores()) == 2


def test_a_recompute_the_broker_did_not_take_does_not_stop_the_next(broker):
    campaign, workers = _campaign(judges=2)
    broker.up = False
    _finish(campaign, workers[0], 90, 40)
    # not sent: no mark is left to make later submits think one waits
    assert broker.scores() == [] and not ScoresDue.objects.filter(campaign=campaign).exists()
    broker.up = True
    _finish(campaign, workers[1], 80, 30)
    assert broker.scores() == [{"campaign_id": campaign.pk}]


def test_beat_s_repair_clears_a_mark_whose_task_was_lost(broker):
    """A task taken by the broker and lost (a worker killed mid-queue, a flushed Redis) leaves the mark:
    the periodic recompute clears it as it recomputes, so submits send again."""
    campaign, workers = _campaign(judges=2)
    _finish(campaign, workers[0], 90, 40)
    assert len(broker.scores()) == 1  # ... and that message is lost
    campaign_scores_send(campaign.pk)
    assert len(broker.scores()) == 1  # the mark still stands
    campaign.status = CampaignStatus.ACTIVE
    campaign.save(update_fields=["status"])
    task_recompute_active_campaigns()
    assert not ScoresDue.objects.filter(campaign=campaign).exists()
    assert SystemScore.objects.filter(campaign=campaign).count() == 2
    _finish(campaign, workers[1], 80, 30)
    assert len(broker.scores()) == 2


def test_a_mark_older_than_the_stale_limit_is_sent_again_on_a_closed_campaign_too(broker):
    """Beat's repair covers live campaigns only; a researcher releasing held work on a closed campaign
    whose last recompute was lost still gets results, once the mark is older than SCORES_DUE_STALE."""
    campaign, workers = _campaign(judges=2)
    _finish(campaign, workers[0], 90, 40)
    assert len(broker.scores()) == 1  # ... and that message is lost
    campaign.status = CampaignStatus.CLOSED
    campaign.save(update_fields=["status"])
    campaign_scores_send(campaign.pk)
    assert len(broker.scores()) == 1  # recent: taken as still queued
    ScoresDue.objects.filter(campaign=campaign).update(
        since=timezone.now() - SCORES_DUE_STALE - timedelta(seconds=1)
    )
    campaign_scores_send(campaign.pk)
    campaign_scores_send(campaign.pk)
    assert len(broker.scores()) == 2  # renewed once: the second call found a fresh mark
