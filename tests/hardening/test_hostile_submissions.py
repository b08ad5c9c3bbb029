"""Hostile submissions (issue 9): forged, out-of-range, replayed and concurrent submits are refused or
idempotent, and never stored wrong."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from annotate.models import Rewrite, RewriteDraft
from annotate.rewrites import services as rw
from geceval.errors import GecInputError
from ranking.models import Assignment, Rating, Screen, ScreenJudgment
from ranking.services import CandidateScore, assignment_request, screen_submit
from ranking.work.assignments import assignment_next_screen
from ranking.work.screen_handles import screen_handle, screen_id_from_handle
from tests.factories import build_world

pytestmark = pytest.mark.django_db


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def take_hit(world, worker):
    api = api_for(worker)
    body = api.post(f"/api/work/campaigns/{world.campaign.pk}/request/").json()
    return api, body


def url_of(body, screen_id=None) -> str:
    screen_id = body["screen"]["id"] if screen_id is None else screen_id
    return f"/api/work/assignments/{body['id']}/screens/{screen_id}/"


def answers_all(body, **value) -> list[dict]:
    return [{"position": c["position"], **value} for c in body["screen"]["candidates"]]


@pytest.fixture
def world():
    return build_world()


# ------------------------------------------------------------------ values out of range or of the wrong type


@pytest.mark.parametrize(
    "answer",
    [
        {"score": -1},
        {"score": 101},
        {"score": 10**12},
        {"score": "50.5"},
        {"score": "fifty"},
        {"score": None},
        {"score": 50, "rank": 1},  # a rank on a PRWS screen
        {"score": 50, "meaning_changed": "maybe"},
        {"score": [50]},
    ],
)
def test_out_of_range_or_mistyped_slider_values_are_refused_and_nothing_is_stored(world, answer):
    api, body = take_hit(world, world.workers[0])
    response = api.post(url_of(body), {"answers": answers_all(body, **answer)}, format="json")
    assert response.status_code == 400, response.content
    assert not ScreenJudgment.objects.exists() and not Rating.objects.exists()


@pytest.mark.parametrize(
    "mutate",
    [
        lambda answers: answers[:-1],  # one output unanswered
        lambda answers: [*answers, {"position": 4, "score": 10}],  # a position not shown
        lambda answers: [*answers, {"position": 99, "score": 10}],
        lambda answers: [*answers, {"position": -1, "score": 10}],
        lambda answers: [answers[0], answers[0]],  # the same position twice
        lambda answers: [],
        lambda answers: "not a list",
        lambda answers: [{"score": 50}],  # no position
    ],
)
def test_missing_extra_or_repeated_positions_are_refused(world, mutate):
    api, body = take_hit(world, world.workers[0])
    good = answers_all(body, score=60)
    assert len(good) >= 2  # every mutation below then changes what a valid answer would be
    response = api.post(url_of(body), {"answers": mutate(good)}, format="json")
    assert response.status_code == 400, response.content
    assert not ScreenJudgment.objects.exists()


def test_a_malformed_body_is_a_400_not_a_500(world):
    api, body = take_hit(world, world.workers[0])
    for raw, ctype in [
        (b"{not json", "application/json"),
        (b"\xff\xfe\x00", "application/json"),
        (b'{"answers": {"position": 0}}', "application/json"),
        (b"answers=1", "application/x-www-form-urlencoded"),
    ]:
        response = api.post(url_of(body), raw, content_type=ctype)
        assert response.status_code == 400, (raw, response.status_code)
    assert not ScreenJudgment.objects.exists()


def test_html_form_refuses_out_of_range_and_non_numeric_scores(client, world):
    worker = world.workers[0]
    assignment = assignment_request(campaign=world.campaign, worker=worker)
    screen = assignment_next_screen(assignment)
    client.force_login(worker)
    for bad in ("101", "-5", "1e3", "0x10", "", "50;DROP"):
        handle = screen_handle(assignment_id=assignment.pk, screen_id=screen.pk)
        data = {"screen": handle} | {f"score-{c.position}": bad for c in screen.candidates.all()}
        response = client.post(f"/assignments/{assignment.pk}/", data)
        assert response.status_code == 400, bad
    assert not ScreenJudgment.objects.exists()


def test_ranks_out_of_range_are_refused_on_a_ranking_campaign(db):
    world = build_world(protocol="ranking", name="rank")
    api, body = take_hit(world, world.workers[0])
    n = len(body["screen"]["candidates"])
    for rank in (0, n + 1, 6, -1):
        response = api.post(url_of(body), {"answers": answers_all(body, rank=rank)}, format="json")
        assert response.status_code == 400, rank
    response = api.post(url_of(body), {"answers": answers_all(body, score=50)}, format="json")
    assert response.status_code == 400  # a score on a ranking screen
    assert not ScreenJudgment.objects.exists()


# ------------------------------------------------------------------ forged ids and other workers' work


def test_forged_screen_ids_of_another_hit_or_campaign_are_refused(world):
    api, mine = take_hit(world, world.workers[0])
    my_hit = Assignment.objects.get(pk=mine["id"]).hit_id
    foreign = Screen.objects.filter(campaign=world.campaign).exclude(hit_id=my_hit).first()
    other_campaign = build_world_second_campaign(world)
    elsewhere = Screen.objects.filter(campaign=other_campaign).first()
    answers = answers_all(mine, score=50)
    # Raw ids are no handles; and a well-formed handle (as the server would make it for this assignment)
    # of a screen outside the HIT is refused by the HIT check behind it.
    handles = [screen_handle(assignment_id=mine["id"], screen_id=s.pk) for s in (foreign, elsewhere)]
    for screen_id in (foreign.pk, elsewhere.pk, 0, 2**62, *handles):
        response = api.post(url_of(mine, screen_id), {"answers": answers}, format="json")
        assert response.status_code == 404, screen_id
    # The service refuses it too, whatever a view does.
    assignment = Assignment.objects.get(pk=mine["id"])
    with pytest.raises(GecInputError, match="not part of your HIT"):
        screen_submit(
            assignment=assignment,
            screen=foreign,
            worker=world.workers[0],
            answers={c.pk: CandidateScore(score=1) for c in foreign.candidates.all()},
        )
    assert not ScreenJudgment.objects.exists()


def build_world_second_campaign(world):
    from ranking.services import campaign_create

    return campaign_create(
        project=world.project,
        corpus=world.corpus,
        name="second",
        systems=[world.systems["a"], world.systems["c"]],
        created_by=world.researcher,
        judgments_per_item=1,
    )


def test_another_workers_assignment_can_be_neither_read_nor_submitted_nor_returned(client, world):
    _, mine = take_hit(world, world.workers[0])
    thief = world.workers[1]
    api = api_for(thief)
    assert api.get(f"/api/work/assignments/{mine['id']}/").status_code == 404
    response = api.post(url_of(mine), {"answers": answers_all(mine, score=5)}, format="json")
    assert response.status_code == 404
    client.force_login(thief)
    screen_id = mine["screen"]["id"]
    data = {"screen": screen_id} | {f"score-{c['position']}": "5" for c in mine["screen"]["candidates"]}
    assert client.post(f"/assignments/{mine['id']}/", data).status_code == 404
    assert client.post(f"/assignments/{mine['id']}/return/").status_code == 404
    assert Assignment.objects.get(pk=mine["id"]).status == "active"
    # The service refuses the thief even when handed the real objects.
    assignment = Assignment.objects.get(pk=mine["id"])
    screen = Screen.objects.get(pk=screen_id_from_handle(screen_id, assignment_id=assignment.pk))
    with pytest.raises(GecInputError, match="not your assignment"):
        screen_submit(
            assignment=assignment,
            screen=screen,
            worker=thief,
            answers={c.pk: CandidateScore(score=5) for c in screen.candidates.all()},
        )
    assert not ScreenJudgment.objects.exists()


def test_a_worker_outside_the_project_gets_no_hit(world):
    from tests import factories

    stranger = factories.user("stranger", "annotator")
    response = api_for(stranger).post(f"/api/work/campaigns/{world.campaign.pk}/request/")
    assert response.status_code == 404
    assert not Assignment.objects.filter(worker=stranger).exists()


# ------------------------------------------------------------------ replays


def test_a_replayed_submit_with_other_scores_keeps_the_first_answer(world):
    api, body = take_hit(world, world.workers[0])
    url = url_of(body)
    first = api.post(url, {"answers": answers_all(body, score=30)}, format="json")
    assert first.status_code == 201
    replay = api.post(url, {"answers": answers_all(body, score=99)}, format="json")
    assert replay.status_code in (200, 400)
    assert ScreenJudgment.objects.count() == 1
    assert set(Rating.objects.values_list("score", flat=True)) == {30}
    assert Rating.objects.count() == len(body["screen"]["candidates"])


def test_a_replay_after_the_hit_was_finished_or_expired_changes_nothing(world):
    worker = world.workers[0]
    api, body = take_hit(world, worker)
    urls = []
    while body["screen"] is not None:
        urls.append((url_of(body), answers_all(body, score=40)))
        body = api.post(urls[-1][0], {"answers": urls[-1][1]}, format="json").json()
    assert body["status"] == "submitted"
    before = sorted(Rating.objects.values_list("judgment_id", "candidate_id", "score"))
    for url, answers in urls:
        replay = api.post(url, {"answers": [dict(a, score=1) for a in answers]}, format="json")
        assert replay.status_code in (200, 400)
    assert sorted(Rating.objects.values_list("judgment_id", "candidate_id", "score")) == before
    # A second HIT that expires: late screens are refused and leave nothing behind.
    api2, second = take_hit(world, worker)
    if second.get("screen") is None:
        return
    Assignment.objects.filter(pk=second["id"]).update(expires=timezone.now() - timedelta(seconds=1))
    late = api2.post(url_of(second), {"answers": answers_all(second, score=50)}, format="json")
    assert late.status_code == 400
    assert Assignment.objects.get(pk=second["id"]).status == "expired"
    assert ScreenJudgment.objects.filter(assignment_id=second["id"]).count() == 0


# ------------------------------------------------------------------ concurrent duplicates (PostgreSQL)


def _run_at_once(n: int, fn) -> list:
    barrier = threading.Barrier(n)
    results: list = []

    def run(i):
        try:
            barrier.wait()
            results.append(fn(i))
        except Exception as exc:  # collected and asserted on
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_api_submits_store_one_judgment(real_postgres):
    world = build_world(name="race")
    _, body = take_hit(world, world.workers[0])
    url = url_of(body)

    def submit(i):
        client = api_for(world.workers[0])
        return client.post(url, {"answers": answers_all(body, score=10 + i)}, format="json").status_code

    codes = _run_at_once(8, submit)
    assert codes.count(201) == 1 and set(codes) <= {200, 201}, codes
    judgment = ScreenJudgment.objects.get()
    scores = set(Rating.objects.filter(judgment=judgment).values_list("score", flat=True))
    assert len(scores) == 1 and Rating.objects.count() == len(body["screen"]["candidates"])


@pytest.mark.django_db(transaction=True)
def test_concurrent_submits_of_the_last_screens_finish_the_hit_exactly_once(real_postgres):
    world = build_world(name="race-last", screens_per_hit=4)
    worker = world.workers[0]
    assignment = assignment_request(campaign=world.campaign, worker=worker)
    screens = list(Screen.objects.filter(hit_id=assignment.hit_id).order_by("hit_position"))

    def submit(i):
        screen = screens[i % len(screens)]
        return screen_submit(
            assignment=Assignment.objects.get(pk=assignment.pk),
            screen=screen,
            worker=worker,
            answers={c.pk: CandidateScore(score=50) for c in screen.candidates.all()},
        )[1]

    results = _run_at_once(2 * len(screens), submit)
    # A duplicate is a no-op, or refused once the other copy finished the HIT; nothing else.
    assert all(isinstance(r, bool) or "no longer open" in str(r) for r in results), results
    assert results.count(True) == len(screens)
    assert ScreenJudgment.objects.filter(assignment=assignment).count() == len(screens)
    finished = Assignment.objects.get(pk=assignment.pk)
    assert finished.status == "submitted" and finished.submitted is not None


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_rewrite_submits_store_one_rewrite(real_postgres):
    world = build_world(name="race-rw")
    worker = world.workers[0]
    slot = rw.slot_claim(campaign=world.rewrite_campaign, user=worker)

    def submit(i):
        return rw.rewrite_submit(
            campaign=world.rewrite_campaign,
            user=worker,
            sentence=slot.sentence,
            text=f"{slot.sentence.text} {i}",
        )[1]

    results = _run_at_once(8, submit)
    assert results.count(True) == 1 and all(isinstance(r, bool) for r in results), results
    rewrite = Rewrite.objects.get()
    assert world.rewrite_campaign.slots.filter(rewrite=rewrite).count() == 1


# ------------------------------------------------------------------ rewrites: long, control characters, forged


@pytest.mark.parametrize(
    "text,message",
    [
        ("x" * 5000, "too long"),
        ("He do n't\x00 like cats .", "control"),
        ("He do n't like\x07 cats .", "control"),
        ("He do n't like cats \u202e.", "invisible"),
        ("He do n't\u200b like cats .", "invisible"),
        ("He do n't like cats .\nSecond line", "one line"),
        ("He do n't like cats .\r", "one line"),
        ("   ", "empty"),
    ],
)
def test_over_long_or_control_character_rewrites_are_refused(world, text, message):
    worker = world.workers[0]
    slot = rw.slot_claim(campaign=world.rewrite_campaign, user=worker)
    with pytest.raises(rw.RewriteError, match=message):
        rw.rewrite_submit(campaign=world.rewrite_campaign, user=worker, sentence=slot.sentence, text=text)
    assert not Rewrite.objects.exists()


def test_rewrite_form_refuses_control_characters_and_foreign_sentences(client, world):
    worker = world.workers[0]
    client.force_login(worker)
    page = client.get(f"/rewrites/{world.rewrite_campaign.pk}/work/")
    assert page.status_code == 200
    slot = world.rewrite_campaign.slots.get(claimed_by=worker)
    url = f"/rewrites/{world.rewrite_campaign.pk}/work/"
    bad = client.post(url, {"sentence": slot.sentence_id, "text": "He\x1b[31m do n't like cats ."})
    assert bad.status_code == 400
    foreign = world.corpus.sentences.first()  # a sentence of another corpus
    assert client.post(url, {"sentence": foreign.pk, "text": "Hi ."}).status_code == 404
    other = world.rewrite_campaign.slots.exclude(sentence=slot.sentence).first()
    forged = client.post(url, {"sentence": other.sentence_id, "text": "He does n't like cats ."})
    assert forged.status_code == 400  # not given to this worker
    assert not Rewrite.objects.exists()


def test_replayed_rewrite_submit_keeps_the_first_text(world):
    worker = world.workers[0]
    slot = rw.slot_claim(campaign=world.rewrite_campaign, user=worker)
    first, created = rw.rewrite_submit(
        campaign=world.rewrite_campaign,
        user=worker,
        sentence=slot.sentence,
        text="He does n't like cats , she said .",
    )
    again, created_again = rw.rewrite_submit(
        campaign=world.rewrite_campaign, user=worker, sentence=slot.sentence, text="Something else entirely ."
    )
    assert created and not created_again and again.pk == first.pk
    assert Rewrite.objects.get().text == "He does n't like cats , she said ."


def test_drafts_refuse_huge_bodies_and_drop_nul_characters(client, world):
    worker = world.workers[0]
    client.force_login(worker)
    client.get(f"/rewrites/{world.rewrite_campaign.pk}/work/")
    slot = world.rewrite_campaign.slots.get(claimed_by=worker)
    url = f"/rewrites/{world.rewrite_campaign.pk}/draft/"
    huge = client.post(
        url, {"sentence": slot.sentence_id, "text": "x" * 9000}, content_type="application/json"
    )
    assert huge.status_code == 400
    for body in (b"{bad", b'{"sentence": "x"}', b'{"sentence": null}', b'{"sentence": 1, "text": 5}'):
        assert client.post(url, body, content_type="application/json").status_code == 400, body
    ok = client.post(url, {"sentence": slot.sentence_id, "text": "a\x00b"}, content_type="application/json")
    assert ok.status_code == 200
    assert RewriteDraft.objects.get().text == "ab"


@pytest.mark.parametrize("field", ["work", "skip"])
def test_a_non_numeric_sentence_id_in_a_rewrite_form_is_a_404_not_a_500(client, world, field):
    client.raise_request_exception = False
    client.force_login(world.workers[0])
    client.get(f"/rewrites/{world.rewrite_campaign.pk}/work/")
    url = f"/rewrites/{world.rewrite_campaign.pk}/{field}/"
    assert client.post(url, {"sentence": "1 OR 1=1", "text": "Hi ."}).status_code in (400, 404)


def test_a_non_numeric_screen_id_in_the_hit_form_is_a_400_not_a_500(client, world):
    client.raise_request_exception = False
    assignment = assignment_request(campaign=world.campaign, worker=world.workers[0])
    client.force_login(world.workers[0])
    response = client.post(f"/assignments/{assignment.pk}/", {"screen": "1 OR 1=1", "score-0": "5"})
    assert response.status_code in (400, 404)


@pytest.mark.parametrize("body", [b"[1, 2]", b"42", b'"text"'])
def test_a_draft_body_that_is_not_a_json_object_is_a_400(client, world, body):
    client.raise_request_exception = False
    client.force_login(world.workers[0])
    client.get(f"/rewrites/{world.rewrite_campaign.pk}/work/")
    url = f"/rewrites/{world.rewrite_campaign.pk}/draft/"
    assert client.post(url, body, content_type="application/json").status_code == 400
