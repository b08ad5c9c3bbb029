"""Issue 41, drift over agreement: a worker whose recent screens agree far below the other workers'
while their total does not has the HITs since that stretch began held (or, under the researcher's
agreement rule, excluded and returned to the pool); the earlier HITs keep counting. Real PostgreSQL."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from geceval.human.worker_checks import RECENT_AGREEMENT, RECENT_TRAPS
from ranking.models import (
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignStatus,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.quality.exclusion import (
    REPAIR_LOOKBACK,
    crowd_caught_up,
    drift_holds_reconsidered,
    worker_record_refresh,
)
from ranking.quality.rules import record_exclusion_reasons
from ranking.services import campaign_exclusion_rules_set
from tests import factories

pytestmark = pytest.mark.django_db

HITS, PER_HIT, CAREFUL_HITS = 7, 10, 5
N = HITS * PER_HIT
SOURCES = [f"Sentence number {i} have a error ." for i in range(N)]
SYSTEMS = {
    "a": [f"Sentence number {i} has an error ." for i in range(N)],
    "b": [f"Sentence number {i} has a error ." for i in range(N)],
    "c": [f"Sentence {i} has an error ." for i in range(N)],
    "d": [f"The sentence number {i} has an error ." for i in range(N)],
}
QUALITY = {"a": 90, "b": 55, "c": 35, "d": 70}
NAMES = ["reader0", "reader1", "reader2", "reader3", "reader4", "drifter"]


def _system(text: str) -> str:
    return next(name for name, texts in SYSTEMS.items() if text in texts)


def _judge(campaign, worker, index: int, slot: int, rng: random.Random, *, at_random: bool) -> None:
    """The worker's judgments of every screen of HIT ``index``, careful (scores near each system's
    quality) or at random, then the HIT submitted, as a worker's is."""
    screens = list(Screen.objects.filter(campaign=campaign, hit__index=index).order_by("hit_position"))
    assignment = Assignment.objects.create(
        hit=screens[0].hit, worker=worker, slot=slot, expires=timezone.now() + timedelta(hours=1)
    )
    for screen in screens:
        candidates = list(screen.candidates.all())
        if at_random:
            scores = {c: rng.randint(0, 100) for c in candidates}
        else:
            scores = {
                c: max(0, min(100, round(QUALITY[_system(c.text)] + rng.gauss(0, 12)))) for c in candidates
            }
        judgment = ScreenJudgment.objects.create(
            screen=screen, assignment=assignment, judge=worker, seconds=20.0
        )
        Rating.objects.bulk_create(
            [Rating(judgment=judgment, candidate=c, score=s) for c, s in scores.items()]
        )
    assignment.status, assignment.submitted = AssignmentStatus.SUBMITTED, timezone.now()
    assignment.save(update_fields=["status", "submitted"])


@pytest.fixture
def crowd():
    """Five readers and a drifter (careful for five HITs, then random) judge every HIT of a PRWS
    campaign without traps, HIT after HIT; each HIT is submitted after its screens, as a worker's is."""
    campaign, workers = factories.prws_crowd(
        NAMES, SOURCES, SYSTEMS, name="drift over agreement", screens_per_hit=PER_HIT
    )
    rng = random.Random(11)
    for index in range(HITS):
        for slot, name in enumerate(NAMES):
            _judge(
                campaign,
                workers[name],
                index,
                slot,
                rng,
                at_random=name == "drifter" and index >= CAREFUL_HITS,
            )
        for _ in range(2):
            for worker in workers.values():
                worker_record_refresh(campaign=campaign, worker=worker)
    return campaign.created_by, campaign, workers


def _statuses(campaign, worker) -> list[tuple[str, str]]:
    rows = Assignment.objects.filter(hit__campaign=campaign, worker=worker).order_by("hit__index")
    return list(rows.values_list("status", "hold_reason"))


def test_a_drifter_s_recent_hits_are_held_and_the_earlier_count(crowd, client):
    researcher, campaign, workers = crowd
    record = WorkerRecord.objects.get(campaign=campaign, worker=workers["drifter"])
    assert record.agreement is not None and not record.agreement_low  # the total still passes
    first_random = (
        ScreenJudgment.objects.filter(judge=workers["drifter"], assignment__hit__index__gte=CAREFUL_HITS)
        .order_by("pk")
        .values_list("created", flat=True)
    )
    assert record.agreement_drift_from is not None
    assert first_random[0] <= record.agreement_drift_from <= first_random[4]
    assert _statuses(campaign, workers["drifter"]) == [("submitted", "")] * CAREFUL_HITS + [
        ("held", "disagrees")
    ] * (HITS - CAREFUL_HITS)
    for name in NAMES[:-1]:
        reader = WorkerRecord.objects.get(campaign=campaign, worker=workers[name])
        assert reader.agreement_drift_from is None and not reader.agreement_low
        assert _statuses(campaign, workers[name]) == [("submitted", "")] * HITS
    client.force_login(researcher)
    html = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "the recent screens agree far below the others</strong> since" in html


def test_under_the_agreement_rule_the_recent_hits_are_excluded_and_the_earlier_kept(crowd):
    _, campaign, workers = crowd
    rules = {"pass_rate": True, "mann_whitney": True, "consistency": False, "flat": False}
    assert campaign_exclusion_rules_set(campaign=campaign, **rules, agreement=True) == 1
    record = WorkerRecord.objects.get(campaign=campaign, worker=workers["drifter"])
    assert record.excluded and record_exclusion_reasons(campaign, record) == [RECENT_AGREEMENT]
    assert _statuses(campaign, workers["drifter"]) == [("submitted", "")] * CAREFUL_HITS + [
        ("excluded", "disagrees")
    ] * (HITS - CAREFUL_HITS)


def test_a_drifter_excluded_by_its_traps_loses_the_work_its_agreement_already_held(crowd):
    """The drifter's traps fail from its last HIT, its agreement from the HIT before: excluded by
    the traps' drift alone (agreement is not one of the campaign's rules), it loses both HITs. Held
    for disagreeing, the earlier one must not count again once an exclusion lifts the holds, and it
    did (the benchmark's drifters on ranking, 2026-11-28). The same when the agreement drift is found
    after the exclusion, as the crowd task finds it after a submit's refresh."""
    _, campaign, workers = crowd
    drifter = workers["drifter"]
    mine = ScreenJudgment.objects.filter(judge=drifter)
    mine.update(trap_passed=True)
    mine.filter(assignment__hit__index=HITS - 1).update(trap_passed=False)  # 60 of 70 passed in all
    held_then_excluded = [("submitted", "")] * CAREFUL_HITS + [("excluded", "disagrees")] * (
        HITS - CAREFUL_HITS
    )

    record = worker_record_refresh(campaign=campaign, worker=drifter)
    assert record.excluded and record_exclusion_reasons(campaign, record) == [RECENT_TRAPS]
    assert record.agreement_drift_from < record.drift_from
    assert _statuses(campaign, drifter) == held_then_excluded

    # again, with the agreement drift unknown when the traps exclude the drifter
    WorkerRecord.objects.filter(pk=record.pk).update(excluded=False, agreement_drift_from=None)
    Assignment.objects.filter(worker=drifter).update(status=AssignmentStatus.SUBMITTED, hold_reason="")
    record = worker_record_refresh(campaign=campaign, worker=drifter, crowd=False)  # a submit's refresh
    assert record.excluded and record.agreement_drift_from is None
    assert _statuses(campaign, drifter) == [("submitted", "")] * (HITS - 1) + [("excluded", "")]
    record = worker_record_refresh(campaign=campaign, worker=drifter)  # the crowd task's
    assert record.excluded and record.agreement_drift_from is not None
    assert _statuses(campaign, drifter)[CAREFUL_HITS:] == [("excluded", "")] * (HITS - CAREFUL_HITS)
    assert _statuses(campaign, drifter)[:CAREFUL_HITS] == [("submitted", "")] * CAREFUL_HITS


def test_the_periodic_repair_lifts_a_drift_hold_found_ahead_of_the_crowd_and_keeps_a_real_one():
    """A careful worker ahead of the crowd judged the last two HITs when only three bots not caught
    yet had: against them their recent screens agree far less than their earlier ones, and the
    record, recounted only on the worker's own submits, held them for drift after they stopped
    (the benchmark's ranking run, 2026-11-28). Once the readers have judged those HITs too, the
    periodic repair recounts the holds for drift: the careful worker's lifts, the drifter's stays."""
    names = [*NAMES, "ahead", "bot0", "bot1", "bot2"]
    campaign, workers = factories.prws_crowd(
        names, SOURCES, SYSTEMS, name="ahead of the crowd", screens_per_hit=PER_HIT
    )
    rng = random.Random(5)

    def judge(name: str, index: int) -> None:
        at_random = name.startswith("bot") or (name == "drifter" and index >= CAREFUL_HITS)
        _judge(campaign, workers[name], index, names.index(name), rng, at_random=at_random)

    def refresh_all() -> None:
        for _ in range(2):
            for worker in workers.values():
                worker_record_refresh(campaign=campaign, worker=worker)

    for index in range(HITS):
        for name in (
            [*NAMES, "ahead"] if index < CAREFUL_HITS else ["drifter", "ahead", "bot0", "bot1", "bot2"]
        ):
            judge(name, index)
    refresh_all()
    ahead = WorkerRecord.objects.get(campaign=campaign, worker=workers["ahead"])
    assert ahead.agreement_drift_from is not None  # held against the bots, for no change of theirs
    assert ("held", "disagrees") in _statuses(campaign, workers["ahead"])

    for index in range(CAREFUL_HITS, HITS):  # the readers catch up; "ahead" submits nothing more
        for name in NAMES[:-1]:
            judge(name, index)
    assert drift_holds_reconsidered() == 2
    ahead.refresh_from_db()
    assert ahead.agreement_drift_from is None
    assert _statuses(campaign, workers["ahead"]) == [("submitted", "")] * HITS
    drifter = WorkerRecord.objects.get(campaign=campaign, worker=workers["drifter"])
    assert drifter.agreement_drift_from is not None
    assert _statuses(campaign, workers["drifter"])[CAREFUL_HITS:] == [("held", "disagrees")] * (
        HITS - CAREFUL_HITS
    )


def _drifter_ahead_of_the_crowd():
    """A PRWS campaign where the drifter judged its random HITs before anyone else and stopped, then
    the readers judged those screens: the drifter's record was last counted before they did."""
    campaign, workers = factories.prws_crowd(
        [*NAMES, "late"], SOURCES, SYSTEMS, name="a drifter ahead of the crowd", screens_per_hit=PER_HIT
    )
    rng = random.Random(7)
    drifter = workers["drifter"]
    for index in range(HITS):
        names = NAMES if index < CAREFUL_HITS else ["drifter"]
        for name in names:
            _judge(campaign, workers[name], index, NAMES.index(name), rng, at_random=index >= CAREFUL_HITS)
    for name in NAMES:
        worker_record_refresh(campaign=campaign, worker=workers[name])
    for index in range(CAREFUL_HITS, HITS):  # the readers catch up; the drifter submits nothing more
        for name in NAMES[:-1]:
            _judge(campaign, workers[name], index, NAMES.index(name), rng, at_random=False)
    for name in NAMES[:-1]:  # the readers' own submits recount them
        worker_record_refresh(campaign=campaign, worker=workers[name])
    record = WorkerRecord.objects.get(campaign=campaign, worker=drifter)
    assert record.agreement_drift_from is None and record.crowd_counted is not None
    assert _statuses(campaign, drifter) == [("submitted", "")] * HITS  # its random HITs count
    return campaign, workers, rng


def test_the_periodic_repair_recounts_a_worker_who_stopped_ahead_of_the_crowd(
    django_capture_on_commit_callbacks,
):
    """A drifter ahead of the crowd judged its random HITs before anyone else, and stopped: at its
    last count its recent screens had no other judge, so no drift could be seen, and a record is
    otherwise recounted only on its worker's own submits (3 of 20 PRWS drifters in the benchmark
    run bf1, 2026-11-28, kept their random work counted). Once the readers have judged those screens,
    the periodic repair sends every record whose screens were judged since it was counted: the
    drifter's random HITs are held. A second repair with nothing judged since sends nothing."""
    campaign, workers, rng = _drifter_ahead_of_the_crowd()
    drifter = workers["drifter"]
    record = WorkerRecord.objects.get(campaign=campaign, worker=drifter)
    assert drift_holds_reconsidered() == 0  # nothing was held: the drift repair alone does not look
    assert crowd_caught_up(older_than=timedelta(hours=1)) == 0  # counted within beat's interval
    with django_capture_on_commit_callbacks(execute=True):
        assert crowd_caught_up() == 1  # the readers were counted after the last judgment
    record.refresh_from_db()
    assert record.crowd_due is None and record.agreement_drift_from is not None
    assert _statuses(campaign, drifter) == [("submitted", "")] * CAREFUL_HITS + [("held", "disagrees")] * (
        HITS - CAREFUL_HITS
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert crowd_caught_up() == 0

    # one more judge of a screen the drifter judged: the records of those who judged it are sent
    _judge(campaign, workers["late"], HITS - 1, len(NAMES), rng, at_random=False)
    with django_capture_on_commit_callbacks(execute=True):
        assert crowd_caught_up() == len(NAMES)


@pytest.mark.parametrize("status", [CampaignStatus.CLOSED, CampaignStatus.PAUSED])
def test_the_periodic_repair_recounts_a_campaign_closed_as_its_last_judgments_came_in(
    status, django_capture_on_commit_callbacks
):
    """A researcher closes (or pauses) the campaign as soon as its screens are filled, within beat's
    interval of the last judgments: the drifter ahead of the crowd is still recounted against them,
    or its random work would count in the published results for good. Once no record of the
    campaign was counted for ``REPAIR_LOOKBACK``, the repair no longer looks at it."""
    campaign, workers, _ = _drifter_ahead_of_the_crowd()
    drifter = workers["drifter"]
    Campaign.objects.filter(pk=campaign.pk).update(status=status)
    with django_capture_on_commit_callbacks(execute=True):
        assert crowd_caught_up() == 1
    assert WorkerRecord.objects.get(campaign=campaign, worker=drifter).agreement_drift_from is not None
    assert _statuses(campaign, drifter)[CAREFUL_HITS:] == [("held", "disagrees")] * (HITS - CAREFUL_HITS)
    # recounted once, it is not sent again: nothing was judged since (nor is every hold recounted
    # each interval in a campaign that is not live, or it would be looked at for good)
    assert crowd_caught_up() == 0 and drift_holds_reconsidered() == 0

    long_ago = timezone.now() - REPAIR_LOOKBACK - timedelta(minutes=1)
    WorkerRecord.objects.filter(campaign=campaign).update(crowd_counted=long_ago)
    assert crowd_caught_up() == 0 and drift_holds_reconsidered() == 0
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE)  # live: always looked at
    assert drift_holds_reconsidered() == 1
