"""Issue 41: every trap of one kind failed excludes, under the pass-rate rule, a worker whose total
still passes (the "agreement" judge passes every added error and fails every added correction). The
worker's record counts each kind of hidden trap (gold copies aside) and the workers table shows them.
Real PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from geceval.human.worker_checks import KIND_FAILED
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Candidate,
    Control,
    ControlKind,
    Screen,
    ScreenJudgment,
)
from ranking.quality.exclusion import campaign_exclusion_rules_set, worker_record_refresh
from ranking.quality.rules import record_exclusion_reasons
from tests import factories

pytestmark = pytest.mark.django_db

N = 30
SOURCES = [f"Sentence number {i} have a error ." for i in range(N)]
SYSTEMS = {
    "a": [f"Sentence number {i} has an error ." for i in range(N)],
    "b": [f"Sentence number {i} have an error ." for i in range(N)],
}


@pytest.fixture
def campaign_and_worker():
    campaign, workers = factories.prws_crowd(
        ["lone-edits"], SOURCES, SYSTEMS, name="kinds", screens_per_hit=10
    )
    return campaign.created_by, campaign, workers["lone-edits"]


def _judged(campaign, worker, verdicts: list[tuple[str, bool]]) -> None:
    """The worker's judgments of the first screens, in HITs of ten, each screen made a control of
    ``kind`` (a copy of the next screen) with the verdict stored as ``controls_judged`` stores it."""
    screens = list(Screen.objects.filter(campaign=campaign).order_by("hit__index", "hit_position"))
    assert len(screens) > len(verdicts)
    assignments: dict[int, Assignment] = {}
    for i, (kind, passed) in enumerate(verdicts):
        screen = screens[i]
        if kind == ControlKind.GOLD:
            Control.objects.create(screen=screen, original=screens[i + 1], kind=kind)
        else:
            base, trap = Candidate.objects.filter(screen=screen).order_by("position")[:2]
            Control.objects.create(screen=screen, original=screens[i + 1], kind=kind, base=base, trap=trap)
        assignment = assignments.get(screen.hit_id)
        if assignment is None:
            assignment = assignments[screen.hit_id] = Assignment.objects.create(
                hit=screen.hit,
                worker=worker,
                slot=0,
                expires=timezone.now() + timedelta(hours=1),
                status=AssignmentStatus.ACTIVE,
            )
        ScreenJudgment.objects.create(
            screen=screen, assignment=assignment, judge=worker, seconds=20.0, trap_passed=passed
        )
    Assignment.objects.filter(pk__in=[a.pk for a in assignments.values()]).update(
        status=AssignmentStatus.SUBMITTED, submitted=timezone.now()
    )


def test_every_added_correction_failed_excludes_a_worker_whose_pass_rate_passes(campaign_and_worker):
    researcher, campaign, worker = campaign_and_worker
    _judged(
        campaign,
        worker,
        # the failures first, so that the recent traps pass (no drift)
        [(ControlKind.ADDED_CORRECTION, False)] * 4
        + [(ControlKind.GOLD, False)] * 2
        + [(ControlKind.UNDONE_CORRECTION, True), (ControlKind.UNDONE_CORRECTION, False)]
        + [(ControlKind.ADDED_ERROR, True)] * 12,
    )
    record = worker_record_refresh(campaign=campaign, worker=worker)
    assert (record.traps_seen, record.traps_passed) == (20, 13)  # 65%: the total passes
    assert record.drift_from is None
    assert record.trap_kinds == {
        ControlKind.ADDED_ERROR: [12, 12],
        ControlKind.UNDONE_CORRECTION: [2, 1],
        ControlKind.ADDED_CORRECTION: [4, 0],
    }  # the gold copies count in the total, not as a kind
    assert record.excluded
    assert record_exclusion_reasons(campaign, record) == [KIND_FAILED]
    assert (
        not Assignment.objects.filter(hit__campaign=campaign, worker=worker)
        .exclude(status=AssignmentStatus.EXCLUDED)
        .exists()
    )

    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert (
        "added errors 12 of 12 passed, undone corrections 1 of 2 passed, added corrections 0 of 4 passed"
        in page
    )
    assert "every one of the added corrections failed" in page
    assert f"excluded</strong> ({KIND_FAILED})" in page
    assert "every trap of one kind failed (at least 4 of it; 3 added corrections)" in page  # on its switch

    # the rule belongs to the pass-rate rule: with it off, the worker is back
    campaign_exclusion_rules_set(
        campaign=campaign, pass_rate=False, mann_whitney=True, consistency=False, flat=False
    )
    record.refresh_from_db()
    assert not record.excluded


def test_one_added_correction_passed_or_two_failed_is_not_a_kind_failed(campaign_and_worker):
    """A reader fails a kind now and then: one pass among the kind, or fewer than four of it (three
    added corrections), keeps them."""
    _, campaign, worker = campaign_and_worker
    _judged(
        campaign,
        worker,
        [(ControlKind.ADDED_CORRECTION, False)] * 2
        + [(ControlKind.ADDED_ERROR, False)]
        + [(ControlKind.UNDONE_CORRECTION, False)] * 4
        + [(ControlKind.UNDONE_CORRECTION, True)]
        + [(ControlKind.ADDED_ERROR, True)] * 12,
    )
    record = worker_record_refresh(campaign=campaign, worker=worker)
    assert (record.traps_seen, record.traps_passed) == (20, 13)
    assert not record.excluded and record_exclusion_reasons(campaign, record) == []
