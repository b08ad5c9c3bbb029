"""Queries per request of the workers' API (issue 9), pinned exactly so that a regression fails.

A crowd of hundreds of workers asks for HITs and submits screens through ``/api/work/``; every query is
paid for each of their requests. Each count below includes the two reads every logged-in request makes
(the session row, and the user with their roles in one statement: annotate.roles.user_with_roles; with
``CACHE_URL`` set the session comes from Redis instead, config/sessions.py) and a SAVEPOINT / RELEASE pair per atomic block, which Django logs as BEGIN /
COMMIT on a live server: the counts are the round trips a real request makes.
Before issue 9's work the same requests took: claim 18, active HIT 11, read 7, submit 23 (finishing
the HIT too), resubmit 11; a trap screen added the same 8 / 5. Issue 22 took the roles read into the
user's (one less in every count) and the client's time into the judgment's INSERT.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from ranking.models import Assignment, Candidate, ScreenJudgment, WorkerRecord
from ranking.services import assignment_return, campaign_create
from ranking.work.screen_handles import screen_handle, screen_id_from_handle
from tests.factories import TRAPS, trap_world
from tests.judging import do_hit, honest_prws

pytestmark = pytest.mark.django_db

CLAIM = 13  # + campaign, active HIT, expiry, worker record, gold test, HIT ranking, insert, next screen, candidates
ACTIVE = 6  # + campaign, active HIT, next screen with progress, candidates
READ = 5  # + assignment, next screen with progress, candidates
SUBMIT = 14  # + assignment, screen, candidates, lock, judgment, ratings, screens left, lease renewal
# (issue 18's fair leases: one conditional UPDATE), next screen, candidates
TRAP_FIRST = 11  # the worker's trap record: look for it and lock it (issue 22: a plain statement, for
# every later refresh), look again and create it (get_or_create: two savepoints), recount, save,
# + the worker's ratings in the campaign (issue 17: consistency on repeats and flat scoring read them)
# + the verdicts in order (issue 41: drift); the crowd's answers on the worker's screens and the
# other workers' records (issue 41) are read by the task sent on commit (issue 38), not the request
SUBMIT_LAST = 14 + TRAP_FIRST  # as SUBMIT, + status update, - lease renewal, - candidates of a next
# screen, + the worker's record (issue 17: a HIT's last screen refreshes it, so flat scoring is judged
# in campaigns without traps; once per HIT), + whether a platform must confirm the HIT before it counts
# (issue 35: the held state; once per HIT)
TRAP_LATER = 7  # the record exists: lock it, recount, ratings, save (one savepoint), + drift (issue
# 41); the crowd's answers and the other records: the task's (issue 38)
RESUBMIT = 7  # + assignment, screen, candidates, judgment found, next screen, candidates


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def world():
    researcher, workers, project, corpus, by_name = trap_world(4)

    def campaign(name: str, trap_rate: float):
        return campaign_create(
            project=project,
            corpus=corpus,
            name=name,
            systems=[by_name[n] for n in ("src", "a", "b")],
            created_by=researcher,
            trap_system=by_name["trap"],
            trap_rate=trap_rate,
            judgments_per_item=3,
            screens_per_hit=3,
            seed=1,
        )

    return workers, campaign


def session_client(user) -> APIClient:
    api = APIClient()
    api.force_login(user)  # a session cookie, as a crowd worker's browser has
    return api


def counted(method, *args, **kwargs):
    with CaptureQueriesContext(connection) as ctx:
        response = method(*args, **kwargs)
    return response, len(ctx.captured_queries)


def answers_for(screen: dict) -> list[dict]:
    return [
        {"position": c["position"], "score": 10 if c["text"] in TRAPS else 70} for c in screen["candidates"]
    ]


def has_trap(screen_id: int) -> bool:
    return Candidate.objects.filter(screen_id=screen_id, outputs__system__kind="source+error").exists()


@pytest.mark.parametrize("others_done", [0, 2])
def test_a_worker_doing_a_hit_through_the_api_takes_the_pinned_queries_per_request(world, others_done):
    workers, make = world
    campaign = make("no traps", trap_rate=0.0)
    for other in workers[1 : 1 + others_done]:  # the counts do not grow with the work done before
        do_hit(campaign, other, honest_prws)
    api = session_client(workers[0])
    request_url = f"/api/work/campaigns/{campaign.pk}/request/"

    response, queries = counted(api.post, request_url)
    assert (response.status_code, queries) == (201, CLAIM)
    body = response.json()
    assert (body["done"], body["total"], body["status"]) == (0, 3, "active")
    mine = Assignment.objects.get(pk=body["id"])
    assert mine.slot == others_done  # the slot after the live ones

    response, queries = counted(api.post, request_url)
    assert (response.status_code, queries, response.json()["id"]) == (201, ACTIVE, body["id"])

    response, queries = counted(api.get, f"/api/work/assignments/{body['id']}/")
    assert (response.status_code, queries) == (200, READ)
    again = response.json()
    assert again["screen"].pop("ticket") != "" and body["screen"]["ticket"] != ""  # issued anew each read
    assert again == body | {"screen": {k: v for k, v in body["screen"].items() if k != "ticket"}}

    seen = []
    while body["screen"] is not None:
        screen = body["screen"]
        url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
        response, queries = counted(api.post, url, {"answers": answers_for(screen)}, format="json")
        assert response.status_code == 201
        body = response.json()
        seen.append(queries)
    assert seen == [SUBMIT, SUBMIT, SUBMIT_LAST]
    assert (body["done"], body["total"], body["status"], body["screen"]) == (3, 3, "submitted", None)

    response, queries = counted(api.post, url, {"answers": answers_for(screen)}, format="json")
    assert (response.status_code, queries, response.json()["status"]) == (200, RESUBMIT, "submitted")
    assert ScreenJudgment.objects.filter(judge=workers[0]).count() == 3


def test_a_trap_screen_adds_the_trap_record_queries_and_nothing_else(world):
    workers, make = world
    campaign = make("traps", trap_rate=1.0)
    api = session_client(workers[0])
    body = api.post(f"/api/work/campaigns/{campaign.pk}/request/").json()
    expected, seen, traps = [], [], 0
    while body["screen"] is not None:
        screen = body["screen"]
        last = body["done"] == body["total"] - 1
        base = SUBMIT_LAST - TRAP_FIRST if last else SUBMIT  # the record's refresh is added below
        trap = has_trap(screen_id_from_handle(screen["id"], assignment_id=body["id"]))
        if trap or last:  # a trap's verdict or the HIT's last screen refreshes the record, once
            base += TRAP_FIRST if traps == 0 else TRAP_LATER
        traps += trap
        expected.append(base)
        url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
        response, queries = counted(api.post, url, {"answers": answers_for(screen)}, format="json")
        assert response.status_code == 201
        body = response.json()
        seen.append(queries)
    assert seen == expected
    assert traps >= 2  # both the first-trap and the later-trap counts were exercised
    record = WorkerRecord.objects.get(campaign=campaign, worker=workers[0])
    assert (record.traps_seen, record.traps_passed, record.excluded) == (traps, traps, False)


def test_a_slot_given_back_in_the_middle_is_filled_by_the_next_request(world):
    workers, make = world
    campaign = make("gap", trap_rate=0.0)
    clients = [session_client(w) for w in workers]
    url = f"/api/work/campaigns/{campaign.pk}/request/"
    taken = [clients[i].post(url).json()["id"] for i in range(3)]
    assert [Assignment.objects.get(pk=pk).slot for pk in taken] == [0, 1, 2]
    middle = Assignment.objects.get(pk=taken[1])
    assignment_return(assignment=middle, worker=workers[1])

    response = clients[3].post(url)
    assert response.status_code == 201
    filled = Assignment.objects.get(pk=response.json()["id"])
    assert (filled.hit_id, filled.slot) == (middle.hit_id, 1)
    live = Assignment.objects.filter(hit_id=middle.hit_id, status__in=["active", "submitted"])
    assert sorted(live.values_list("slot", flat=True)) == [0, 1, 2]


# ----------------------------------------------------------------------------- the worker's HTML pages

PAGE_CLAIM = 11  # the API's claim without its answer's next screen and progress (the page redirects)
PAGE_SCREEN = 6  # session, user with roles, assignment (with the corpus: how text is shown), next screen
# with progress, candidates, the nav's projects (issue 20's switcher: 6 before it, 7 before that)
PAGE_SUBMIT = 12  # the API's submit less the next screen and its candidates (was 13: candidates twice,
# then 12, then 13 with the lease renewal of issue 18)
PAGE_SUBMIT_LAST = 13 + TRAP_FIRST  # as PAGE_SUBMIT, + the assignment's status update, - the lease
# renewal, + the worker's record, + the platform's confirmation check (as SUBMIT_LAST)


def test_a_worker_doing_a_hit_through_the_pages_takes_the_pinned_queries_per_request(world):
    from django.test import Client
    from django.urls import reverse

    from ranking.work.assignments import assignment_next_screen

    workers, make = world
    campaign = make("pages", trap_rate=0.0)
    browser = Client()
    browser.force_login(workers[0])

    response, queries = counted(browser.get, reverse("campaign-work", args=[campaign.pk]))
    assert (response.status_code, queries) == (302, PAGE_CLAIM)
    mine = Assignment.objects.get(worker=workers[0])
    page = reverse("assignment", args=[mine.pk])
    assert response["Location"] == page

    seen = []
    while (screen := assignment_next_screen(mine)) is not None:
        response, queries = counted(browser.get, page)
        assert response.status_code == 200
        seen.append(queries)
        form = {"screen": screen_handle(assignment_id=mine.pk, screen_id=screen.pk)}
        for c in screen.candidates.all():
            form[f"score-{c.position}"] = "10" if c.text in TRAPS else "70"
        response, queries = counted(browser.post, page, form)
        assert (response.status_code, response["Location"]) == (302, page)
        seen.append(queries)
        mine.refresh_from_db()
    assert seen == [PAGE_SCREEN, PAGE_SUBMIT, PAGE_SCREEN, PAGE_SUBMIT, PAGE_SCREEN, PAGE_SUBMIT_LAST]
    assert mine.status == "submitted"
    assert ScreenJudgment.objects.filter(judge=workers[0]).count() == 3
