"""Issue 17: exclusion by evidence. Each worker's record carries Appraise's test, consistency on repeats
and flat scoring; the researcher chooses which of them (and the pass rate) exclude."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from geceval.human.worker_checks import MANN_WHITNEY_MIN_RANKED_TRAPS, MANN_WHITNEY_MIN_TRAPS
from ranking.models import (
    Assignment,
    Campaign,
    Candidate,
    Control,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.quality.control_judging import controls_judged
from ranking.selectors import campaign_workers
from ranking.services import (
    campaign_create,
    campaign_exclusion_rules_set,
    worker_override_set,
    worker_record_refresh,
    worker_record_refresh_after_submit,
)
from tests import factories

pytestmark = pytest.mark.django_db

SOURCES = [f"Sentence number {i} have a error ." for i in range(30)]
SYSTEMS = {
    "a": [f"Sentence number {i} has an error ." for i in range(30)],
    "b": [f"Sentence number {i} has a error ." for i in range(30)],
    "c": [f"Sentence {i} has an error ." for i in range(30)],
    "d": [f"The sentence number {i} has an error ." for i in range(30)],
}
RULES_OFF = {"pass_rate": False, "mann_whitney": False, "consistency": False, "flat": False}


@pytest.fixture
def world():
    researcher = factories.user("res", "researcher")
    workers = [factories.user(f"w{i}", "annotator") for i in range(3)]
    project = factories.project(researcher, members=workers)
    corpus, systems = factories.corpus_with_systems(project, sources=SOURCES, systems=SYSTEMS)

    def make(protocol="prws", repeat_rate=0.0, **options):
        campaign = campaign_create(
            project=project,
            corpus=corpus,
            name=f"{protocol}-{Campaign.objects.count()}",
            systems=systems,
            created_by=researcher,
            protocol=protocol,
            max_candidates=4,
            screens_per_hit=40,
            judgments_per_item=2,
            **options,
        )
        # the lead's campaign_create takes it; set here, the repeats are made by each test
        campaign.repeat_rate = repeat_rate
        campaign.save(update_fields=["repeat_rate"])
        return campaign

    return researcher, workers, make


def screens_of(campaign) -> list[Screen]:
    return list(Screen.objects.filter(campaign=campaign).order_by("hit__index", "hit_position"))


def judge(worker, screen, answers: list[int], *, field="score", trap=None) -> ScreenJudgment:
    """The worker's answers by display position; ``trap``: (passed, base answer, trap answer)."""
    assignment, _ = Assignment.objects.get_or_create(
        hit=screen.hit,
        worker=worker,
        defaults={
            "slot": Assignment.objects.filter(hit=screen.hit).count(),
            "expires": timezone.now() + timedelta(hours=1),
            "status": "submitted",
            "submitted": timezone.now(),
        },
    )
    passed, base, trapped = trap or (None, None, None)
    judgment = ScreenJudgment.objects.create(
        screen=screen,
        assignment=assignment,
        judge=worker,
        seconds=9.0,
        trap_passed=passed,
        trap_base_answer=base,
        trap_answer=trapped,
    )
    candidates = list(Candidate.objects.filter(screen=screen).order_by("position"))
    Rating.objects.bulk_create(
        [
            Rating(judgment=judgment, candidate=c, **{field: a})
            for c, a in zip(candidates, answers, strict=False)
        ]
    )
    return judgment


def repeat_of(screen: Screen) -> Screen:
    """An exact copy of ``screen`` in the same HIT, recorded as a repeat control."""
    copy = Screen.objects.create(
        campaign=screen.campaign,
        sentence=screen.sentence,
        index=9,
        hit=screen.hit,
        hit_position=100 + Screen.objects.filter(hit=screen.hit).count(),
    )
    for c in Candidate.objects.filter(screen=screen).order_by("position"):
        Candidate.objects.create(screen=copy, position=c.position, text=c.text)
    Control.objects.create(screen=copy, original=screen, kind="repeat")
    return copy


def refreshed_after(campaign, worker, screen) -> WorkerRecord | None:
    """What a submit of ``screen`` does to the worker's record, as ``screen_submit`` decides it."""
    evidence = controls_judged(campaign=campaign, screen_id=screen.pk, worker_id=worker.pk)
    return worker_record_refresh_after_submit(
        campaign=campaign, worker=worker, evidence=evidence, hit_finished=False
    )


def record(campaign, worker) -> WorkerRecord:
    return WorkerRecord.objects.get(campaign=campaign, worker=worker)


# ----------------------------------------------------------------- Appraise's test


def test_mann_whitney_waits_for_fifteen_traps_then_excludes_a_worker_who_does_not_tell_traps_apart(world):
    _, workers, make = world
    campaign = make()
    campaign_exclusion_rules_set(campaign=campaign, **RULES_OFF | {"mann_whitney": True})
    careful, blind = workers[0], workers[1]
    values = [5, 95, 15, 85, 25, 75, 35, 65, 45, 55, 50, 60, 40, 70, 30]  # bases and traps alike
    assert len(values) == MANN_WHITNEY_MIN_TRAPS
    for i, screen in enumerate(screens_of(campaign)[:MANN_WHITNEY_MIN_TRAPS]):
        judge(careful, screen, [70, 60, 50, 40], trap=(True, 60 + i, 20 + i))
        base, trapped = values[i], values[-1 - i]
        judge(blind, screen, [50, 50, 50, 50], trap=(trapped < base, base, trapped))
        for w in (careful, blind):
            worker_record_refresh(campaign=campaign, worker=w)
        if i < MANN_WHITNEY_MIN_TRAPS - 1:  # too few traps: no verdict, whatever the answers
            assert record(campaign, blind).mann_whitney_p is None
            assert not record(campaign, blind).excluded
    kept, out = record(campaign, careful), record(campaign, blind)
    assert kept.mann_whitney_p < 0.001 and not kept.excluded
    assert out.mann_whitney_p >= 0.05 and out.excluded
    assert Assignment.objects.filter(worker=blind).get().status == "excluded"
    (_, row) = sorted(campaign_workers(campaign), key=lambda r: r.username)
    assert row.reasons == ("traps not rated worse than their bases",)


def test_mann_whitney_reads_ranks_as_lower_is_better(world):
    _, workers, make = world
    campaign = make("ranking")
    screens = screens_of(campaign)
    n = MANN_WHITNEY_MIN_RANKED_TRAPS
    assert len(screens) >= n
    for screen in screens[: n - 1]:
        judge(workers[0], screen, [1, 2, 3, 4], field="rank", trap=(True, 1, 3))
    assert worker_record_refresh(campaign=campaign, worker=workers[0]).mann_whitney_p is None
    judge(workers[0], screens[n - 1], [1, 2, 3, 4], field="rank", trap=(True, 1, 3))
    kept = worker_record_refresh(campaign=campaign, worker=workers[0])
    assert kept.mann_whitney_p < 0.001 and not kept.excluded


# ----------------------------------------------------------------- consistency


def test_repeats_far_apart_are_flagged_and_exclude_only_when_the_researcher_chooses(world):
    _, workers, make = world
    campaign = make(repeat_rate=0.1)
    screens = screens_of(campaign)
    first, second = screens[0], screens[1]
    copies = [repeat_of(first), repeat_of(second)]
    judge(workers[0], first, [90, 80, 10, 20])
    judge(workers[0], copies[0], [10, 20, 90, 80])  # 60 to 80 points away
    assert refreshed_after(campaign, workers[0], copies[0]) is not None
    one = record(campaign, workers[0])
    assert (one.repeats_seen, one.repeat_distance, one.inconsistent) == (1, 70.0, False)  # one is not enough
    judge(workers[0], copies[1], [0, 100, 0, 100])  # the repeat before its original: no pair yet
    judge(workers[0], second, [100, 0, 100, 0])
    assert refreshed_after(campaign, workers[0], second) is not None
    two = record(campaign, workers[0])
    assert (two.repeats_seen, two.repeat_distance, two.inconsistent, two.excluded) == (2, 85.0, True, False)
    assert campaign_exclusion_rules_set(campaign=campaign, **RULES_OFF | {"consistency": True}) == 1
    assert record(campaign, workers[0]).excluded
    assert Assignment.objects.get(worker=workers[0]).status == "excluded"
    assert campaign_exclusion_rules_set(campaign=campaign, **RULES_OFF) == 0  # back in
    assert Assignment.objects.get(worker=workers[0]).status == "submitted"


def test_a_submit_without_a_verdict_or_repeat_refreshes_nothing(world, django_assert_num_queries):
    _, workers, make = world
    campaign = make()  # no controls: the judgment brings no evidence
    screen = screens_of(campaign)[0]
    judge(workers[0], screen, [50, 60, 70, 80])
    assert not controls_judged(campaign=campaign, screen_id=screen.pk, worker_id=workers[0].pk)
    with django_assert_num_queries(0):
        assert (
            worker_record_refresh_after_submit(
                campaign=campaign, worker=workers[0], evidence=False, hit_finished=False
            )
            is None
        )
    assert worker_record_refresh_after_submit(
        campaign=campaign, worker=workers[0], evidence=True, hit_finished=False
    )
    assert worker_record_refresh_after_submit(  # the HIT's last screen: flat scoring is judged
        campaign=campaign, worker=workers[0], evidence=False, hit_finished=True
    )
    with_repeats = make(repeat_rate=0.1)
    plain, other = screens_of(with_repeats)[:2]
    copy = repeat_of(other)
    judge(workers[0], plain, [50, 60, 70, 80])
    judge(workers[0], copy, [50, 60, 70, 80])  # a repeat whose original is not judged yet
    assert refreshed_after(with_repeats, workers[0], plain) is None
    assert refreshed_after(with_repeats, workers[0], copy) is None
    judge(workers[0], other, [50, 60, 70, 80])
    assert refreshed_after(with_repeats, workers[0], other) is not None


# ----------------------------------------------------------------- flat scoring


def test_near_constant_and_position_following_answers_are_shown_and_exclude_when_chosen(world):
    _, workers, make = world
    campaign = make()
    for screen in screens_of(campaign)[:5]:
        judge(workers[0], screen, [50, 51, 50, 49])
        judge(workers[1], screen, [90, 70, 50, 30])
    flat = worker_record_refresh(campaign=campaign, worker=workers[0])
    ordered = worker_record_refresh(campaign=campaign, worker=workers[1])
    assert (flat.flat_reason, flat.excluded) == ("constant", False)
    assert flat.score_spread == pytest.approx(0.7071, abs=1e-4)
    assert (ordered.flat_reason, ordered.position_rho) == ("position", pytest.approx(-1.0))
    assert campaign_exclusion_rules_set(campaign=campaign, **RULES_OFF | {"flat": True}) == 2
    rows = {r.username: r for r in campaign_workers(campaign)}
    assert rows["w0"].reasons == ("flat scoring",) and rows["w1"].reasons == ("answers follow position",)
    worker_override_set(campaign=campaign, worker=workers[1], override="include")  # the override wins
    assert not record(campaign, workers[1]).excluded


def test_a_ranking_worker_who_ties_everything_is_flat(world):
    _, workers, make = world
    campaign = make("ranking")
    for screen in screens_of(campaign)[:5]:
        judge(workers[0], screen, [1, 1, 1, 1], field="rank")
    assert worker_record_refresh(campaign=campaign, worker=workers[0]).flat_reason == "constant"


# ----------------------------------------------------------------- the researcher's choice


def test_default_rules_are_pass_rate_and_mann_whitney(world):
    _, _, make = world
    campaign = make()
    chosen = (
        campaign.exclude_by_pass_rate,
        campaign.exclude_by_mann_whitney,
        campaign.exclude_by_consistency,
        campaign.exclude_by_flat,
    )
    assert chosen == (True, True, False, False)


def test_the_workers_page_shows_every_signal_and_the_researcher_changes_the_rules(client, world):
    researcher, workers, make = world
    campaign = make()
    for screen in screens_of(campaign)[:5]:
        judge(workers[0], screen, [50, 50, 50, 50])
    worker_record_refresh(campaign=campaign, worker=workers[0])
    client.force_login(researcher)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    for heading in (
        "No server time",
        "Appraise&#x27;s test",
        "Repeats",
        "Flat scoring",
        "What these columns mean",
    ):
        assert heading in page
    assert "near-constant" in page and "too few traps yet" in page
    url = reverse("campaign-exclusion-rules", args=[campaign.pk])
    assert client.post(url, {"exclude_by_flat": "on"}).status_code == 302  # no marker: not this form
    campaign.refresh_from_db()
    assert (campaign.exclude_by_pass_rate, campaign.exclude_by_flat) == (True, False)
    response = client.post(url, {"rules": "chosen", "exclude_by_flat": "on"}, follow=True)
    assert "1 workers are now excluded" in response.content.decode()
    campaign.refresh_from_db()
    assert (campaign.exclude_by_pass_rate, campaign.exclude_by_mann_whitney, campaign.exclude_by_flat) == (
        False,
        False,
        True,
    )
    assert record(campaign, workers[0]).excluded
    assert (
        "excluded</strong> (flat scoring)"
        in client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    )
    client.force_login(workers[0])
    assert client.post(url, {"rules": "chosen"}).status_code == 403


def test_the_api_and_the_form_create_a_campaign_with_chosen_rules(client, world):
    researcher, _, make = world
    corpus = Campaign.objects.none()
    campaign = make()
    corpus, systems = campaign.corpus, list(campaign.systems.all())
    api = APIClient()
    api.force_authenticate(researcher)
    payload = {
        "name": "api rules",
        "corpus": corpus.pk,
        "systems": [s.pk for s in systems],
        "max_candidates": 4,
        "exclude_by_mann_whitney": False,
        "exclude_by_consistency": True,
    }
    response = api.post("/api/campaigns/", payload, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert [body[f"exclude_by_{r}"] for r in ("pass_rate", "mann_whitney", "consistency", "flat")] == [
        True,
        False,
        True,
        False,
    ]
    client.force_login(researcher)
    form = {
        "name": "form rules",
        "protocol": "prws",
        "corpus": corpus.pk,
        "systems": [s.pk for s in systems],
        "judgments_per_item": 2,
        "max_candidates": 4,
        "screens_per_sentence": 1,
        "screens_per_hit": 10,
        "assignment_minutes": 60,
        "trap_rate": 0,
        "trap_threshold": 0.7,
        "trap_min_seen": 5,
        "reward_per_hit": 0,
        "exclude_by_flat": "on",
    }
    assert client.post(reverse("campaign-new"), form).status_code == 302
    made = Campaign.objects.get(name="form rules")
    assert (made.exclude_by_pass_rate, made.exclude_by_mann_whitney, made.exclude_by_flat) == (
        False,
        False,
        True,
    )
