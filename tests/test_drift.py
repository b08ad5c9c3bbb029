"""Issue 41, drift: a worker whose recent traps fail while their total still passes is excluded from
that point: the HITs with work since the failures began leave the live set (their slots return to the
pool) and the earlier HITs keep counting. Real PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from geceval.human.worker_checks import RECENT_TRAPS
from ranking.models import Assignment, AssignmentStatus, Screen, ScreenJudgment
from ranking.quality.exclusion import worker_record_refresh
from ranking.quality.rules import record_exclusion_reasons
from ranking.selectors import valid_judgments
from ranking.services import campaign_create
from tests import factories

pytestmark = pytest.mark.django_db

N = 30
SOURCES = [f"Sentence number {i} have a error ." for i in range(N)]
SYSTEMS = {"a": [f"Sentence number {i} has an error ." for i in range(N)]}


@pytest.fixture
def campaign_and_worker():
    researcher = factories.user("res", "researcher")
    worker = factories.user("drifter", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(project, sources=SOURCES, systems=SYSTEMS)
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="drift",
        systems=systems,
        created_by=researcher,
        protocol="prws",
        max_candidates=2,
        screens_per_hit=10,
        judgments_per_item=1,
        trap_rate=0.0,
        repeat_rate=0.0,
    )
    return researcher, campaign, worker


def _hit(campaign, worker, index: int, verdicts: list[bool], *, finished: bool = True) -> Assignment:
    """The worker's judgments of the HIT's screens, each with a trap verdict (as ``controls_judged``
    stores it), then the HIT finished."""
    screens = list(Screen.objects.filter(campaign=campaign, hit__index=index).order_by("hit_position"))
    assignment = Assignment.objects.create(
        hit=screens[0].hit,
        worker=worker,
        slot=0,
        expires=timezone.now() + timedelta(hours=1),
        status=AssignmentStatus.ACTIVE,
    )
    for screen, passed in zip(screens, verdicts, strict=False):
        ScreenJudgment.objects.create(
            screen=screen, assignment=assignment, judge=worker, seconds=20.0, trap_passed=passed
        )
    if finished:
        assignment.status, assignment.submitted = AssignmentStatus.SUBMITTED, timezone.now()
        assignment.save(update_fields=["status", "submitted"])
    return assignment


def test_recent_failures_exclude_the_work_since_they_began_and_keep_the_earlier(campaign_and_worker):
    researcher, campaign, worker = campaign_and_worker
    first = _hit(campaign, worker, 0, [True] * 10)
    second = _hit(campaign, worker, 1, [True, True, *[False] * 8])
    third = _hit(campaign, worker, 2, [], finished=False)
    record = worker_record_refresh(campaign=campaign, worker=worker)
    assert (record.traps_seen, record.traps_passed) == (20, 12)  # 60%: the total still passes
    failing_from = ScreenJudgment.objects.filter(assignment=second).order_by("pk")[2].created
    assert record.drift_from == failing_from
    assert record.excluded and record_exclusion_reasons(campaign, record) == [RECENT_TRAPS]
    statuses = dict(Assignment.objects.filter(worker=worker).values_list("pk", "status"))
    assert statuses == {
        first.pk: AssignmentStatus.SUBMITTED,
        second.pk: AssignmentStatus.EXCLUDED,
        third.pk: AssignmentStatus.EXCLUDED,
    }
    # the earlier HIT counts, the later ones are back in the pool for other workers
    assert valid_judgments(campaign).filter(judge=worker).count() == 10
    client = Client()
    client.force_login(researcher)
    html = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "the last traps fail</strong> since" in html and "(recent trap pass rate)" in html


def test_a_steady_worker_with_as_many_failures_does_not_drift(campaign_and_worker):
    _, campaign, worker = campaign_and_worker
    _hit(campaign, worker, 0, [True, True, True, False] * 2 + [True, True])
    _hit(campaign, worker, 1, [True, True, False, True, True, False, True, True, False, True])
    record = worker_record_refresh(campaign=campaign, worker=worker)
    assert (record.traps_seen, record.traps_passed, record.drift_from, record.excluded) == (
        20,
        15,
        None,
        False,
    )
    assert Assignment.objects.filter(worker=worker, status=AssignmentStatus.SUBMITTED).count() == 2
