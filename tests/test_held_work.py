"""Issue 35: held work, the platform's confirmation, and speed as evidence.

A held HIT keeps its slot but counts in no result, analysis, export or payment until it is released
(the platform confirms, the researcher decides) or dropped (its slot returns to the pool). MTurk's
remote API is mocked with botocore's Stubber, Prolific's with httpx.MockTransport: nothing else is.
"""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import boto3
import httpx
import pytest
from botocore.stub import Stubber
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from crowd.models import CrowdSession, CrowdSettings
from crowd.selectors import campaign_costs
from crowd.services import mturk, prolific
from crowd.services.confirmation import CONFIRMED_PLATFORMS, held_sessions_confirm, platform_hold_needed
from crowd.services.workers import crowd_worker_get_or_create
from ranking.analysis import services as analysis
from ranking.analysis.models import RunStatus
from ranking.models import Assignment, WorkerRecord
from ranking.protocols.files import iter_wmt_csv, pseudonym
from ranking.quality.holds import screen_min_seconds
from ranking.selectors import campaign_progress, valid_judgments
from ranking.services import CandidateScore, assignment_request, screen_submit
from ranking.services.results import campaign_scores_recompute
from ranking.work.api import _assignment_body
from ranking.work.assignments import NoWork, assignment_next_screen
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db


def _rank(screen, candidate) -> CandidateScore:
    return CandidateScore(rank=1 + candidate.position)


def _work(campaign, user, seconds, session=None) -> Assignment:
    """The worker does one whole HIT, every screen in ``seconds`` of server time (None: no stamp)."""
    assignment = assignment_request(campaign=campaign, worker=user)
    if session is not None:
        session.assignments.add(assignment)
    while assignment.status == "active" and (screen := assignment_next_screen(assignment)) is not None:
        answers = {c.pk: _rank(screen, c) for c in screen.candidates.all()}
        screen_submit(assignment=assignment, screen=screen, worker=user, answers=answers, seconds=seconds)
        assignment.refresh_from_db()
    return assignment


def _user(name: str):
    return crowd_worker_get_or_create(platform="invite", external_id=name).user


def _speed_campaign():
    """Four sentences, two screens a HIT, one judgment per item: two HITs, one slot each."""
    researcher, project, campaign = crowd_campaign(judgments_per_item=1)
    campaign.speed_rule = True
    campaign.save(update_fields=["speed_rule"])
    return researcher, project, campaign


# --------------------------------------------------------------------------- the speed rule


def test_a_prws_screen_of_a_source_and_five_20_word_candidates_needs_8_seconds():
    campaign = SimpleNamespace(speed_rule=True, speed_base_seconds=2.0, speed_seconds_per_word=0.05)
    words = " ".join(["word"] * 20)
    assert screen_min_seconds(campaign, words, [words] * 5) == pytest.approx(8.0)
    assert screen_min_seconds(SimpleNamespace(speed_rule=False), words, [words] * 5) is None


def test_a_hit_finished_in_under_half_its_minimum_is_held_too_fast_and_counts_nowhere():
    _, _, campaign = _speed_campaign()
    fast = _work(campaign, _user("fast"), seconds=0.2)
    assert (fast.status, fast.hold_reason) == ("held", "too_fast")
    assert not valid_judgments(campaign).filter(assignment=fast).exists()
    # the worker is told "submitted": whether and why it waits is no signal to tune a bot's speed by
    assert _assignment_body(fast)["status"] == "submitted"
    careful = _work(campaign, _user("careful"), seconds=30.0)
    assert (careful.status, careful.hold_reason) == ("submitted", "")
    assert valid_judgments(campaign).filter(assignment=careful).count() == 2


def test_the_worker_s_page_says_what_the_api_says_and_names_no_rule(client):
    """A held HIT's page reads "HIT complete", as the workers' API says "submitted"; no closed HIT's page
    says held, excluded, traps or speed, so a bot learns nothing to tune itself by."""
    _, _, campaign = _speed_campaign()
    held = _work(campaign, _user("fast"), seconds=0.2)
    assert held.status == "held"
    client.force_login(held.worker)
    page = client.get(reverse("assignment", args=[held.pk])).content.decode()
    assert "HIT complete: thank you!" in page
    Assignment.objects.filter(pk=held.pk).update(status="excluded")
    page = client.get(reverse("assignment", args=[held.pk])).content.decode()
    assert "This HIT is closed" in page
    for word in ("held", "excluded", "trap", "fast", "minimum"):
        assert word not in page.split("<h1>", 1)[1].lower(), word


def test_every_screen_under_its_minimum_counts_as_a_failed_trap_and_no_stamp_is_too_fast():
    _, _, campaign = _speed_campaign()
    fast, careful, unstamped = _user("fast"), _user("careful"), _user("unstamped")
    _work(campaign, fast, seconds=0.5)
    record = WorkerRecord.objects.get(campaign=campaign, worker=fast)
    assert (record.traps_seen, record.traps_passed, record.too_fast) == (2, 0, 2)
    _work(campaign, careful, seconds=30.0)
    record = WorkerRecord.objects.get(campaign=campaign, worker=careful)
    assert (record.traps_seen, record.traps_passed, record.too_fast) == (0, 0, 0)
    campaign.judgments_per_item = 3
    campaign.save(update_fields=["judgments_per_item"])
    _work(campaign, unstamped, seconds=None)
    record = WorkerRecord.objects.get(campaign=campaign, worker=unstamped)
    assert (record.traps_seen, record.too_fast) == (2, 2)


def test_with_the_speed_rule_off_fast_screens_count_against_no_one():
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    assert campaign.speed_rule is False
    fast = _work(campaign, _user("fast"), seconds=0.2)
    assert fast.status == "submitted"
    record = WorkerRecord.objects.get(campaign=campaign, worker=fast.worker)
    assert (record.traps_seen, record.too_fast) == (0, 0)


def test_enough_too_fast_screens_exclude_the_worker_like_failed_traps():
    _, _, campaign = _speed_campaign()
    campaign.trap_min_seen = 2
    campaign.save(update_fields=["trap_min_seen"])
    fast = _work(campaign, _user("fast"), seconds=0.5)
    assert WorkerRecord.objects.get(campaign=campaign, worker=fast.worker).excluded
    fast.refresh_from_db()
    assert (fast.status, fast.hold_reason) == ("excluded", "too_fast")


# --------------------------------------------------------------------------- the held state


def test_held_work_counts_in_no_result_analysis_export_or_payment_but_keeps_its_slot(client):
    researcher, _, campaign = _speed_campaign()
    held = _work(campaign, _user("fast"), seconds=0.2)
    counted = _work(campaign, _user("careful"), seconds=30.0)
    assert (held.status, counted.status) == ("held", "submitted")
    assert held.hit_id != counted.hit_id
    # slots: every HIT has its one live assignment, so a third worker gets none
    with pytest.raises(NoWork):
        assignment_request(campaign=campaign, worker=_user("third"))
    progress = campaign_progress(campaign)
    assert (progress["held_assignments"], progress["judgments"], progress["screens_done"]) == (1, 2, 2)
    # results: only the counted HIT's two screens
    assert valid_judgments(campaign).count() == 2
    scores = campaign_scores_recompute(campaign_id=campaign.pk)
    assert {s.items for s in scores} == {2}  # the counted HIT's two sentences, not the held HIT's
    # analysis
    run = analysis.analysis_run_create(campaign=campaign, kind="trueskill", parameters={}, seed=1)
    analysis.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert (run.status, run.judgments_used) == (RunStatus.DONE, 2)
    # exports: no row of the held HIT's judgments
    exported = "".join(iter_wmt_csv(campaign))
    assert (pseudonym(held.worker_id) in exported, pseudonym(counted.worker_id) in exported) == (False, True)
    # payments
    costs = campaign_costs(campaign)
    assert (costs.hits_submitted, [w.identity for w in costs.workers]) == (1, ["careful"])
    # the campaign page lists it as held, with why
    client.force_login(researcher)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "finished in under half its screens&#x27; minimum time" in page or "minimum time" in page
    assert 'id="held"' in page
    payments = client.get(reverse("crowd-payments-csv", args=[campaign.pk])).content.decode()
    assert ("invite,careful," in payments, ",fast," in payments) == (True, False)


def test_the_researcher_releases_a_held_hit_and_it_counts(client):
    researcher, _, campaign = _speed_campaign()
    held = _work(campaign, _user("fast"), seconds=0.2)
    client.force_login(researcher)
    client.post(reverse("campaign-hold", args=[campaign.pk, held.pk]), {"action": "release"})
    held.refresh_from_db()
    assert (held.status, held.hold_reason) == ("submitted", "")
    assert valid_judgments(campaign).filter(assignment=held).count() == 2
    assert campaign_costs(campaign).hits_submitted == 1


def test_a_dropped_hit_never_counts_and_its_slot_returns_to_the_pool(client):
    researcher, _, campaign = _speed_campaign()
    first = _work(campaign, _user("fast"), seconds=0.2)
    _work(campaign, _user("careful"), seconds=30.0)
    client.force_login(researcher)
    client.post(reverse("campaign-hold", args=[campaign.pk, first.pk]), {"action": "drop"})
    first.refresh_from_db()
    assert (first.status, first.hold_reason) == ("dropped", "too_fast")
    again = assignment_request(campaign=campaign, worker=_user("third"))
    assert again.hit_id == first.hit_id
    assert not valid_judgments(campaign).filter(assignment=first).exists()


def test_the_hold_reason_and_state_are_database_constraints():
    _, _, campaign = _speed_campaign()
    held = _work(campaign, _user("fast"), seconds=0.2)
    for status, reason in (
        ("held", ""),
        ("held", "bored"),
        ("submitted", "too_fast"),
        ("active", "unconfirmed"),
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            Assignment.objects.filter(pk=held.pk).update(status=status, hold_reason=reason)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.filter(pk=held.pk).update(status="limbo")


# --------------------------------------------------------------------------- platform confirmation


@pytest.fixture
def mturk_client():
    c = boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=mturk.SANDBOX_ENDPOINT,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    with Stubber(c) as stub:
        c.stub = stub
        yield c
        stub.assert_no_pending_responses()


def _mturk_visit(campaign, worker_id: str, assignment_id: str, hit_id: str = "HIT0"):
    worker = crowd_worker_get_or_create(platform="mturk", external_id=worker_id)
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="mturk", external_session=assignment_id, study=hit_id
    )
    return session, _work(campaign, worker.user, seconds=30.0, session=session)


def _get(client, assignment_id, *, worker_id, status="Submitted", hit_id="HIT0"):
    client.stub.add_response(
        "get_assignment",
        {
            "Assignment": {
                "AssignmentId": assignment_id,
                "WorkerId": worker_id,
                "HITId": hit_id,
                "AssignmentStatus": status,
            },
            "HIT": {"HITId": hit_id},
        },
        {"AssignmentId": assignment_id},
    )


def test_mturk_work_is_held_until_get_assignment_reports_it_submitted_by_that_worker(mturk_client):
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    session, ours = _mturk_visit(campaign, "AW1", "ASG1")
    assert (ours.status, ours.hold_reason) == ("held", "unconfirmed")
    assert valid_judgments(campaign).count() == 0
    assert campaign_costs(campaign).hits_submitted == 0
    mturk_client.stub.add_client_error("get_assignment", "RequestError", "not submitted yet")
    assert held_sessions_confirm(mturk_client=mturk_client) == {"confirmed": 0, "dropped": 0, "waiting": 1}
    _get(mturk_client, "ASG1", worker_id="AW1")
    assert held_sessions_confirm(mturk_client=mturk_client)["confirmed"] == 1
    ours.refresh_from_db()
    session.refresh_from_db()
    assert (ours.status, session.confirmed is not None) == ("submitted", True)
    assert valid_judgments(campaign).count() == 2
    assert held_sessions_confirm(mturk_client=mturk_client) == {"confirmed": 0, "dropped": 0, "waiting": 0}


def test_mturk_naming_another_worker_drops_the_made_up_identitys_work(mturk_client):
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    _, made_up = _mturk_visit(campaign, "AVICTIM", "MADEUP1")
    _get(mturk_client, "MADEUP1", worker_id="AREAL")
    assert held_sessions_confirm(mturk_client=mturk_client)["dropped"] == 1
    made_up.refresh_from_db()
    assert (made_up.status, made_up.hold_reason) == ("dropped", "other_worker")
    assert assignment_request(campaign=campaign, worker=_user("next")).hit_id == made_up.hit_id


def test_mturk_work_never_submitted_is_dropped_after_the_wait(mturk_client, settings):
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    _, ours = _mturk_visit(campaign, "AW1", "ASG9")
    later = timezone.now() + timedelta(hours=settings.CROWD_CONFIRM_WAIT_HOURS + 1)
    mturk_client.stub.add_client_error("get_assignment", "RequestError", "no such assignment")
    assert held_sessions_confirm(mturk_client=mturk_client, now=later)["dropped"] == 1
    ours.refresh_from_db()
    assert (ours.status, ours.hold_reason) == ("dropped", "never_submitted")


def test_a_confirmed_mturk_hit_finished_too_fast_stays_held_for_the_speed_rule(mturk_client):
    _, _, campaign = _speed_campaign()
    worker = crowd_worker_get_or_create(platform="mturk", external_id="AFAST")
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="mturk", external_session="ASGF", study="HIT0"
    )
    ours = _work(campaign, worker.user, seconds=0.1, session=session)
    assert ours.hold_reason == "unconfirmed"
    _get(mturk_client, "ASGF", worker_id="AFAST")
    held_sessions_confirm(mturk_client=mturk_client)
    ours.refresh_from_db()
    assert (ours.status, ours.hold_reason) == ("held", "too_fast")


def _prolific(monkeypatch, body):
    monkeypatch.setenv("PROLIFIC_API_TOKEN", "tok")
    return prolific.prolific_client(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=body))
    )


def test_prolific_work_is_held_until_the_submission_is_confirmed(monkeypatch):
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    CrowdSettings.objects.update_or_create(campaign=campaign, defaults={"prolific_study_id": "st1"})
    worker = crowd_worker_get_or_create(platform="prolific", external_id="pid1")
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="prolific", external_session="sub1", study="st1"
    )
    ours = _work(campaign, worker.user, seconds=30.0, session=session)
    assert (ours.status, ours.hold_reason) == ("held", "unconfirmed")
    body = {"id": "sub1", "participant": "pid1", "study_id": "st1", "status": "ACTIVE"}
    assert held_sessions_confirm(prolific_client=_prolific(monkeypatch, body))["waiting"] == 1
    body |= {"status": "AWAITING REVIEW", "entered_code": "PROLIFIC-OK"}
    assert held_sessions_confirm(prolific_client=_prolific(monkeypatch, body))["confirmed"] == 1
    ours.refresh_from_db()
    assert ours.status == "submitted"


def test_the_hold_check_is_the_orm_s():
    """``platform_hold_needed`` in plain SQL against the ORM query it replaced, for each platform,
    confirmed or not, and an assignment of no session."""
    _, _, campaign = crowd_campaign(judgments_per_item=5)
    seen = set()
    for i, (platform, confirmed) in enumerate(
        [("mturk", None), ("prolific", None), ("invite", None), ("mturk", timezone.now()), (None, None)]
    ):
        worker = crowd_worker_get_or_create(platform=platform or "invite", external_id=f"twin{i}")
        ours = assignment_request(campaign=campaign, worker=worker.user)
        if platform is not None:
            session = CrowdSession.objects.create(
                campaign=campaign,
                worker=worker,
                platform=platform,
                external_session=f"s{i}",
                confirmed=confirmed,
            )
            session.assignments.add(ours)
        orm = CrowdSession.objects.filter(
            assignments=ours.pk, platform__in=CONFIRMED_PLATFORMS, confirmed__isnull=True
        ).exists()
        assert platform_hold_needed(ours) == orm
        seen.add(orm)
    assert seen == {True, False}


def test_invite_links_count_at_once():
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    worker = crowd_worker_get_or_create(platform="invite", external_id="inv1")
    session = CrowdSession.objects.create(campaign=campaign, worker=worker, platform="invite")
    ours = _work(campaign, worker.user, seconds=30.0, session=session)
    assert ours.status == "submitted"


def test_the_benchmarks_back_dated_ticket_reads_as_that_much_server_time():
    """bench/bots.py --speed-rule on: the harness re-signs the served ticket as issued earlier (it has
    the server's key; a worker has not); the server then measures that time."""
    from ranking.work.screen_time import screen_seconds, screen_stamp, stamp_backdated

    stamp = screen_stamp(screen_id=7, assignment_id=3, now=1000.0)
    back = stamp_backdated(stamp, 12.5)
    assert screen_seconds(back, screen_id=7, assignment_id=3, now=1001.0) == pytest.approx(13.5)
    assert screen_seconds(back, screen_id=8, assignment_id=3, now=1001.0) is None


def test_through_the_workers_api_the_server_clock_decides_and_a_claimed_time_is_ignored():
    """The speed rule reads the server's time on the screen (the ticket it served), never the
    client's "seconds": a worker answering at once while claiming 60 s has a too-fast screen."""
    from rest_framework.test import APIClient

    from annotate.models import ProjectRole, Role
    from ranking.models import ScreenJudgment
    from tests import factories

    _, project, campaign = _speed_campaign()
    worker = factories.user("claims", "annotator")
    project.members.add(worker)
    ProjectRole.objects.create(project=project, user=worker, role=Role.ANNOTATOR)
    api = APIClient()
    api.force_authenticate(worker)
    body = api.post(f"/api/work/campaigns/{campaign.pk}/request/").json()
    screen = body["screen"]
    answers = [{"position": c["position"], "rank": 1 + c["position"]} for c in screen["candidates"]]
    url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
    sent = {"answers": answers, "ticket": screen["ticket"], "seconds": 60.0}
    assert api.post(url, sent, format="json").status_code == 201
    judgment = ScreenJudgment.objects.get()
    assert judgment.seconds < judgment.min_seconds and judgment.client_seconds == 60.0
    record = WorkerRecord.objects.get(campaign=campaign, worker=judgment.judge)
    assert (record.too_fast, record.traps_seen, record.traps_passed) == (1, 1, 0)


def test_a_held_hit_excluded_then_included_is_held_again_not_counted():
    from ranking.services import worker_override_set

    _, _, campaign = _speed_campaign()
    campaign.trap_min_seen = 2
    campaign.save(update_fields=["trap_min_seen"])
    fast = _work(campaign, _user("fast"), seconds=0.5)
    fast.refresh_from_db()
    assert (fast.status, fast.hold_reason) == ("excluded", "too_fast")
    worker_override_set(campaign=campaign, worker=fast.worker, override="include")
    fast.refresh_from_db()
    assert (fast.status, fast.hold_reason) == ("held", "too_fast")
    assert not valid_judgments(campaign).exists()


def test_the_beat_task_skips_a_platform_without_credentials(monkeypatch):
    from crowd.tasks import task_confirm_held

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "PROLIFIC_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    _, _, campaign = crowd_campaign(judgments_per_item=1)
    _, ours = _mturk_visit(campaign, "AW1", "ASG1")
    assert task_confirm_held() == {"confirmed": 0, "dropped": 0, "waiting": 0}
    ours.refresh_from_db()
    assert ours.status == "held"


def test_finding_made_up_mturk_identities_no_longer_count_at_once_nor_get_paid(mturk_client, settings):
    """Issue 35's finding, through the MTurk entry page: made-up workerId/assignmentId pairs from one
    address finished whole HITs in a moment, counted as valid at once, took the campaign's slots and
    were listed as paid. Now their HITs are held (slots kept, nothing counted or paid) until MTurk
    confirms; MTurk knows no such assignments, so after the wait they are dropped and the slots freed."""
    from django.test import Client

    from crowd.services.sessions import campaign_key
    from tests.factories import rank_form

    researcher, _, campaign = crowd_campaign(judgments_per_item=2)
    url = reverse("crowd-mturk", args=[campaign_key(campaign)])
    for k in range(3):
        client = Client()
        params = {
            "assignmentId": f"MADEUP{k}",
            "hitId": "HIT0",
            "workerId": f"AFAKE{k}",
            "turkSubmitTo": "https://workersandbox.mturk.com",
        }
        response = client.get(url, params)
        while response.status_code == 302 and "/crowd/s/" not in response["Location"]:
            response = client.get(response["Location"])
        session_url = response["Location"] if response.status_code == 302 else response.request["PATH_INFO"]
        client.post(session_url, {"consent": "yes"})
        if k == 2:  # two HITs held from this address already: the third waits for one of them
            assert (
                "Other HITs of this study are open from your network"
                in client.get(session_url).content.decode()
            )
            continue
        for _ in range(2):
            client.post(session_url, rank_form(client.get(session_url)))
    finished = Assignment.objects.filter(hit__campaign=campaign).exclude(status="active")
    # a held HIT counts in its address's live limit (LIVE_ASSIGNMENTS_PER_ADDRESS, 2): the third waits
    assert sorted(finished.values_list("status", "hold_reason")) == [("held", "unconfirmed")] * 2
    assert Assignment.objects.filter(hit__campaign=campaign).count() == 2
    assert valid_judgments(campaign).count() == 0
    assert campaign_progress(campaign)["held_assignments"] == 2
    web = Client()
    web.force_login(researcher)
    payments = web.get(reverse("crowd-payments-csv", args=[campaign.pk])).content.decode()
    assert "AFAKE" not in payments
    later = timezone.now() + timedelta(hours=settings.CROWD_CONFIRM_WAIT_HOURS + 1)
    for _ in range(2):
        mturk_client.stub.add_client_error("get_assignment", "RequestError", "no such assignment")
    assert held_sessions_confirm(mturk_client=mturk_client, now=later)["dropped"] == 2
    assert set(finished.values_list("status", flat=True)) == {"dropped"}
    assert campaign_progress(campaign)["held_assignments"] == 0
