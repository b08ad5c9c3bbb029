"""Issue 40: pilot defaults that catch the obvious. A worker whose first HIT has near-constant answers,
or a quarter of its screens under their minimum plausible time, is held (issue 35's held state) until
their evidence clears them or the researcher decides; a careful worker is not held. Real PostgreSQL;
the bots' answers and times are bench/bot_strategies.py's."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from bench.bot_strategies import bot_seconds, careful_seconds, constant
from crowd.services.workers import crowd_worker_get_or_create
from ranking.models import Assignment, WorkerRecord
from ranking.quality.holds import assignment_hold_drop, assignment_hold_release
from ranking.selectors import valid_judgments
from ranking.services import CandidateScore, assignment_request, screen_submit
from ranking.services.campaigns import campaign_options
from ranking.work.assignments import assignment_next_screen
from tests.factories import build_world, crowd_campaign
from tests.judging import is_trap

pytestmark = pytest.mark.django_db

QUALITY = {"a": 90.0, "b": 55.0, "src": 20.0}
"""The careful model's true quality of each crowd system (bench's careful: quality plus noise)."""


def _api_screen(screen) -> dict:
    return {
        "source": screen.sentence.text,
        "candidates": [{"position": c.position, "text": c.text} for c in screen.candidates.all()],
    }


def careful_score(screen, candidate, rng) -> float:
    systems = {o.system.name for o in candidate.outputs.all()}
    quality = 5.0 if is_trap(candidate) else max(QUALITY.get(s, 60.0) for s in systems)
    return min(100.0, max(0.0, quality + rng.gauss(0, 15.0)))


def work(campaign, user, *, scores, seconds, rng=None) -> Assignment:
    """The worker does one whole HIT: ``scores(screen, candidate, rng)``, ``seconds(screen dict, rng)``
    (server time, as the speed rule sees it)."""
    rng = rng or random.Random(7)
    assignment = assignment_request(campaign=campaign, worker=user)
    while assignment.status == "active" and (screen := assignment_next_screen(assignment)) is not None:
        answers = {c.pk: CandidateScore(score=round(scores(screen, c, rng))) for c in screen.candidates.all()}
        spent = seconds(_api_screen(screen), rng)
        screen_submit(assignment=assignment, screen=screen, worker=user, answers=answers, seconds=spent)
        assignment.refresh_from_db()
    return assignment


def constant_score(screen, candidate, rng) -> float:
    return constant(_api_screen(screen), None, rng)[candidate.position]


def _user(name: str):
    return crowd_worker_get_or_create(platform="invite", external_id=name).user


def _pilot_campaign(**options):
    researcher, project, campaign = crowd_campaign(protocol="prws", **options)
    campaign.pilot_hold = campaign.speed_rule = True
    campaign.save(update_fields=["pilot_hold", "speed_rule"])
    return researcher, project, campaign


def test_the_pilot_check_is_on_for_campaigns_made_on_the_form_or_the_api():
    assert campaign_options({})["pilot_hold"] is True
    assert campaign_options({"pilot_hold": False})["pilot_hold"] is False


def test_a_constant_bots_first_hit_holds_the_worker_and_a_careful_worker_counts():
    _, _, campaign = _pilot_campaign()
    bot, careful = _user("flat-bot"), _user("careful")
    # the flat bot reads at a careful pace: only its answers give it away
    first = work(campaign, bot, scores=constant_score, seconds=careful_seconds)
    assert (first.status, first.hold_reason) == ("held", "pilot")
    assert WorkerRecord.objects.get(campaign=campaign, worker=bot).pilot_doubt == "constant"
    second = work(campaign, bot, scores=constant_score, seconds=careful_seconds)
    assert second.pk != first.pk
    assert (second.status, second.hold_reason) == ("held", "pilot")  # the worker is held, not one HIT
    assert not valid_judgments(campaign).filter(judge=bot).exists()
    for seed in range(2):
        done = work(campaign, careful, scores=careful_score, seconds=careful_seconds, rng=random.Random(seed))
        assert (done.status, done.hold_reason) == ("submitted", "")
    assert WorkerRecord.objects.get(campaign=campaign, worker=careful).pilot_doubt == ""
    assert valid_judgments(campaign).filter(judge=careful).count() == 4


def test_a_bot_answering_at_a_scripts_speed_is_held_from_its_first_hit():
    _, _, campaign = _pilot_campaign()
    bot = _user("fast-bot")
    # varied answers (the careful model's), but 0.1-1 s a screen, as bench's bots answer
    first = work(campaign, bot, scores=careful_score, seconds=bot_seconds)
    assert (first.status, first.hold_reason) == ("held", "pilot")
    assert WorkerRecord.objects.get(campaign=campaign, worker=bot).pilot_doubt == "fast"


def test_with_the_pilot_check_off_a_constant_first_hit_counts():
    _, _, campaign = crowd_campaign(protocol="prws")
    assert campaign.pilot_hold is False
    done = work(campaign, _user("flat-bot"), scores=constant_score, seconds=careful_seconds)
    assert (done.status, done.hold_reason) == ("submitted", "")


def test_releasing_one_pilot_held_hit_vouches_for_the_worker_and_counts_all_their_hits():
    _, _, campaign = _pilot_campaign()
    bot = _user("flat-bot")
    first = work(campaign, bot, scores=constant_score, seconds=careful_seconds)
    second = work(campaign, bot, scores=constant_score, seconds=careful_seconds)
    assignment_hold_release(assignment=second, by_researcher=True)
    first.refresh_from_db()
    second.refresh_from_db()
    assert [(a.status, a.hold_reason) for a in (first, second)] == [("submitted", ""), ("submitted", "")]
    assert WorkerRecord.objects.get(campaign=campaign, worker=bot).pilot_doubt == ""
    assert valid_judgments(campaign).filter(judge=bot).count() == 4


def test_dropping_a_pilot_held_hit_drops_that_hit_and_keeps_the_worker_held():
    _, _, campaign = _pilot_campaign()
    bot = _user("flat-bot")
    first = work(campaign, bot, scores=constant_score, seconds=careful_seconds)
    assignment_hold_drop(assignment=first)
    first.refresh_from_db()
    assert (first.status, first.hold_reason) == ("dropped", "pilot")
    second = work(campaign, bot, scores=constant_score, seconds=careful_seconds)
    assert (second.status, second.hold_reason) == ("held", "pilot")


def honest(screen, candidate, rng) -> float:
    return 10.0 if is_trap(candidate) else QUALITY.get(candidate.outputs.first().system.name, 60.0)


def test_a_held_worker_whose_traps_then_clear_them_counts_from_then_on():
    world = build_world(protocol="prws", judgments_per_item=1, screens_per_hit=3)
    campaign = world.campaign
    campaign.pilot_hold = campaign.speed_rule = True
    campaign.trap_min_seen = 5
    campaign.save(update_fields=["pilot_hold", "speed_rule", "trap_min_seen"])
    worker = world.workers[0]
    spent = iter([0.1, 60.0, 60.0, 60.0, 60.0, 60.0])  # one screen in three under its minimum, then careful
    first = work(campaign, worker, scores=honest, seconds=lambda screen, rng: next(spent))
    assert (first.status, first.hold_reason) == ("held", "pilot")
    record = WorkerRecord.objects.get(campaign=campaign, worker=worker)
    # the fast screen is one failed trap (a trap passed taken back, or one more seen): under 5 seen yet
    assert (record.pilot_doubt, record.traps_passed, record.too_fast) == ("fast", record.traps_seen - 1, 1)
    assert record.traps_seen < 5
    second = work(campaign, worker, scores=honest, seconds=lambda screen, rng: next(spent))
    record.refresh_from_db()
    # five traps (six with the fast screen's when it had none), all but the fast one passed: cleared
    assert record.traps_seen in (5, 6)
    assert (record.pilot_doubt, record.traps_passed, record.excluded) == ("", record.traps_seen - 1, False)
    first.refresh_from_db()
    second.refresh_from_db()
    assert [(a.status, a.hold_reason) for a in (first, second)] == [("submitted", ""), ("submitted", "")]
    assert valid_judgments(campaign).filter(judge=worker).count() == 6


def test_the_campaign_page_says_in_words_what_the_pilot_check_holds(client):
    researcher, _, campaign = _pilot_campaign()
    work(campaign, _user("flat-bot"), scores=constant_score, seconds=careful_seconds)
    client.force_login(researcher)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "Pilot check on" in page
    assert "a worker whose first HIT has near-constant answers, or a quarter of its screens" in page
    assert 'Held by it now: <span id="pilot-held">1</span> worker.' in page
    assert "this campaign has no traps, so only you can clear them" in page
    assert "pilot check: near-constant answers in the first HIT" in page


def test_the_analysis_page_says_how_many_judged_screens_the_exports_leave_out(client):
    researcher, _, campaign = _pilot_campaign()
    work(campaign, _user("flat-bot"), scores=constant_score, seconds=careful_seconds)  # held: 2 screens
    careful = _user("careful")
    assignment = assignment_request(campaign=campaign, worker=careful)  # one screen judged, HIT unfinished
    screen = assignment_next_screen(assignment)
    answers = {c.pk: CandidateScore(score=10 * (c.position + 1)) for c in screen.candidates.all()}
    screen_submit(assignment=assignment, screen=screen, worker=careful, answers=answers, seconds=30.0)
    client.force_login(researcher)
    page = client.get(reverse("campaign-analysis", args=[campaign.pk])).content.decode()
    assert (
        "Left out now: <strong>1</strong> judged screen of HITs not finished yet, 2 of held HITs, "
        "0 of excluded workers and 0 of HITs given back, expired or dropped." in page
    )
