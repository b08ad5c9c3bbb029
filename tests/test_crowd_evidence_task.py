"""Issue 38: a submit recounts the worker's own evidence in the request and leaves the evidence from
the rest of the crowd (agreement, one person behind many accounts, agreement drift, and the holds
that follow) to a task sent on commit, one per waiting record. The asynchrony is the point here, so
the on-commit callbacks are captured and run by hand (eager Celery runs the task in-process); the
same ring held by a real worker process: tests/test_real_services.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ranking.models import Assignment, AssignmentStatus, WorkerRecord
from ranking.quality.exclusion import TASK_CROWD_EVIDENCE
from ranking.services import crowd_evidence_refresh, worker_record_refresh_after_submit
from ranking.tasks import task_recompute_active_campaigns
from tests.judging import do_hit, ring_campaign

pytestmark = pytest.mark.django_db


def _record(campaign, worker) -> WorkerRecord:
    return WorkerRecord.objects.get(campaign=campaign, worker=worker)


def _status(campaign, worker) -> tuple[str, str]:
    return Assignment.objects.values_list("status", "hold_reason").get(hit__campaign=campaign, worker=worker)


def _crowd_tasks(callbacks) -> list[dict]:
    """The crowd-evidence tasks among captured on-commit callbacks (``task_send_on_commit``'s partials)."""
    return [cb.keywords for cb in callbacks if getattr(cb, "args", ())[:1] == (TASK_CROWD_EVIDENCE,)]


@pytest.fixture
def ring():
    """Four readers and a copy of reader0 each finish the campaign's one HIT through the services;
    no on-commit callback runs (as with the broker down), so every record waits for its task."""
    campaign, workers, answers = ring_campaign()
    for name, worker in workers.items():
        assert do_hit(campaign, worker, answers[name]).status == AssignmentStatus.SUBMITTED
    return campaign, workers


def test_the_submit_leaves_the_crowd_evidence_to_one_task_sent_on_commit(
    ring, django_capture_on_commit_callbacks
):
    campaign, workers = ring
    copy = _record(campaign, workers["copy"])
    # the submit recounted the copy's own evidence, not the crowd's: not flagged yet, the HIT counts
    assert copy.crowd_due is not None and copy.same_as == [] and copy.agreement is None
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.SUBMITTED, "")
    # a record already waiting sends no second task (a burst of submits: one task)
    WorkerRecord.objects.filter(pk=copy.pk).update(crowd_due=None)
    with django_capture_on_commit_callbacks() as callbacks:
        for _ in range(3):
            worker_record_refresh_after_submit(
                campaign=campaign, worker=workers["copy"], evidence=True, hit_finished=False
            )
    assert _crowd_tasks(callbacks) == [{"campaign_id": campaign.pk, "worker_id": workers["copy"].pk}]
    for callback in callbacks:  # the commit: eager Celery runs the task in-process
        callback()
    copy, original = _record(campaign, workers["copy"]), _record(campaign, workers["reader0"])
    assert copy.crowd_due is None and copy.same_as == [workers["reader0"].pk]
    assert original.same_as == [workers["copy"].pk]  # its twin, refreshed by the copy's task
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.HELD, "same_person")
    assert _status(campaign, workers["reader0"]) == (AssignmentStatus.SUBMITTED, "")
    assert all(_record(campaign, workers[f"reader{k}"]).same_as == [] for k in range(1, 4))
    # a late or repeated task finds the record up to date and does nothing
    assert crowd_evidence_refresh(campaign_id=campaign.pk, worker_id=workers["copy"].pk) is False


def test_the_periodic_recompute_catches_up_records_whose_task_was_lost(ring):
    campaign, workers = ring
    waiting = WorkerRecord.objects.filter(campaign=campaign, crowd_due__isnull=False)
    assert waiting.count() == 5
    task_recompute_active_campaigns()  # their tasks may still be queued: under a minute, left alone
    assert waiting.count() == 5 and _status(campaign, workers["copy"]) == (AssignmentStatus.SUBMITTED, "")
    waiting.update(crowd_due=timezone.now() - timedelta(minutes=2))
    task_recompute_active_campaigns()
    assert not waiting.exists()
    assert _record(campaign, workers["copy"]).same_as == [workers["reader0"].pk]
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.HELD, "same_person")
    assert _status(campaign, workers["reader0"]) == (AssignmentStatus.SUBMITTED, "")
