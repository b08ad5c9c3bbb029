"""Prolific requester operations against recorded API responses (httpx.MockTransport, no network)."""

from __future__ import annotations

import json
from decimal import Decimal

import httpx
import pytest

from crowd.models import Bonus, CrowdSession, PlatformCall, Review
from crowd.services import prolific
from crowd.services.workers import crowd_worker_get_or_create
from geceval.errors import GecInputError
from ranking.work.judging import CandidateScore
from tests.factories import crowd_campaign
from tests.judging import do_hit

pytestmark = pytest.mark.django_db

# Shapes as Prolific's API v1 answers them (ids shortened).
SUBMISSIONS_PAGE_1 = {
    "results": [
        {
            "id": "sub1",
            "participant_id": "pid1",
            "status": "AWAITING REVIEW",
            "started_at": "2026-11-20T10:00:00.000000Z",
            "completed_at": "2026-11-20T10:09:30.000000Z",
            "study_code": "PROLIFIC-OK",
        }
    ],
    "_links": {"next": {"href": "https://api.prolific.com/api/v1/studies/st1/submissions/?page=2"}},
    "meta": {"count": 2},
}
SUBMISSIONS_PAGE_2 = {
    "results": [{"id": "sub2", "participant_id": "pid2", "status": "APPROVED", "study_code": "PROLIFIC-OK"}],
    "_links": {"next": {"href": None}},
    "meta": {"count": 2},
}


def submission(sid="sub1", participant="pid1", study="st1", status="AWAITING REVIEW", code="PROLIFIC-OK"):
    """GET /api/v1/submissions/{id}/ as Prolific's API reference documents it ("Retrieve a submission")."""
    return {
        "id": sid,
        "started_at": "2026-11-20T10:00:00.000000Z",
        "status": status,
        "study_id": study,
        "completed_at": "2026-11-20T10:09:30.000000Z",
        "entered_code": code,
        "participant": participant,
        "parent_study_id": None,
        "bonus_payments": [],
        "return_requested": None,
    }


def worked(campaign, pid="pid1", sid="sub1", study="st1"):
    """Our side: a Prolific session ``sid`` of ``pid`` in ``study`` that finished a HIT."""
    worker = crowd_worker_get_or_create(platform="prolific", external_id=pid)
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="prolific", external_session=sid, study=study
    )
    ours = do_hit(campaign, worker.user, lambda s, c: CandidateScore(rank=1))
    session.assignments.add(ours)
    return ours


class Recorder:
    """A fake Prolific: answers by (method, path), remembers every request."""

    def __init__(self, answers):
        self.answers = answers
        self.requests = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.requests.append(
            (request.method, request.url.path, request.url.query.decode(), body, request.headers)
        )
        key = (
            request.method,
            request.url.path + (f"?{request.url.query.decode()}" if request.url.query else ""),
        )
        status, payload = self.answers[key]
        return httpx.Response(status, json=payload)


@pytest.fixture
def campaign():
    return crowd_campaign()[2]


def make_client(monkeypatch, answers):
    monkeypatch.setenv("PROLIFIC_API_TOKEN", "secret-token")
    fake = Recorder(answers)
    return prolific.prolific_client(transport=httpx.MockTransport(fake)), fake


def test_list_submissions_follows_pages_and_sends_the_token(monkeypatch, campaign):
    client, fake = make_client(
        monkeypatch,
        {
            ("GET", "/api/v1/studies/st1/submissions/"): (200, SUBMISSIONS_PAGE_1),
            ("GET", "/api/v1/studies/st1/submissions/?page=2"): (200, SUBMISSIONS_PAGE_2),
        },
    )
    subs = prolific.prolific_submissions(client=client, campaign=campaign, study_id="st1")
    assert [s["id"] for s in subs] == ["sub1", "sub2"]
    assert all(r[4]["authorization"] == "Token secret-token" for r in fake.requests)
    assert PlatformCall.objects.filter(platform="prolific", operation="ListSubmissions", ok=True).count() == 2


def test_approve_and_reject_send_the_transition_and_record_our_review(monkeypatch, campaign):
    client, fake = make_client(
        monkeypatch,
        {
            ("GET", "/api/v1/submissions/sub1/"): (200, submission()),
            ("POST", "/api/v1/submissions/sub1/transition/"): (200, {"id": "sub1", "status": "APPROVED"}),
            ("POST", "/api/v1/submissions/sub2/transition/"): (200, {"id": "sub2", "status": "REJECTED"}),
        },
    )
    ours = worked(campaign)
    prolific.prolific_approve(client=client, campaign=campaign, submission_id="sub1")
    prolific.prolific_approve(client=client, campaign=campaign, submission_id="sub1")  # once only
    message = "Every output of every screen received the same rank, so the answers cannot be used. " * 2
    with pytest.raises(GecInputError, match="100 characters"):
        prolific.prolific_reject(
            client=client, campaign=campaign, submission_id="sub2", message="no", category="LOW_EFFORT"
        )
    prolific.prolific_reject(
        client=client, campaign=campaign, submission_id="sub2", message=message, category="LOW_EFFORT"
    )
    assert [(m, p, b) for m, p, _, b, _ in fake.requests] == [
        ("GET", "/api/v1/submissions/sub1/", None),  # checked first, once: the approval is not repeated
        ("POST", "/api/v1/submissions/sub1/transition/", {"action": "APPROVE"}),
        (
            "POST",
            "/api/v1/submissions/sub2/transition/",
            {"action": "REJECT", "message": message.strip(), "rejection_category": "LOW_EFFORT"},
        ),
    ]
    assert Review.objects.get(assignment=ours).approved is True


def test_bonus_is_set_up_then_paid_once(monkeypatch, campaign):
    client, fake = make_client(
        monkeypatch,
        {
            ("GET", "/api/v1/submissions/sub1/"): (200, submission(status="APPROVED")),
            ("POST", "/api/v1/submissions/bulk-bonus-payments/"): (
                201,
                {"id": "bonus9", "study": "st1", "amount": 150, "fees": 50, "total_amount": 200},
            ),
            ("POST", "/api/v1/bulk-bonus-payments/bonus9/pay/"): (202, {}),
        },
    )
    worked(campaign)
    first = prolific.prolific_bonus(
        client=client,
        campaign=campaign,
        study_id="st1",
        participant_id="pid1",
        amount="1.50",
        reason="careful",
    )
    again = prolific.prolific_bonus(
        client=client,
        campaign=campaign,
        study_id="st1",
        participant_id="pid1",
        amount="1.50",
        reason="careful",
    )
    assert first.pk == again.pk and Bonus.objects.get().amount == Decimal("1.50")
    assert [(m, p, b) for m, p, _, b, _ in fake.requests] == [
        ("GET", "/api/v1/submissions/sub1/", None),
        (
            "POST",
            "/api/v1/submissions/bulk-bonus-payments/",
            {"study_id": "st1", "csv_bonuses": "pid1,1.50\n"},
        ),
        ("POST", "/api/v1/bulk-bonus-payments/bonus9/pay/", None),
    ]


def test_an_http_error_is_logged_and_reported(monkeypatch, campaign):
    client, _ = make_client(
        monkeypatch,
        {
            ("GET", "/api/v1/submissions/subX/"): (200, submission("subX")),
            ("POST", "/api/v1/submissions/subX/transition/"): (
                400,
                {"error": {"detail": "Invalid transition"}},
            ),
        },
    )
    worked(campaign, sid="subX")
    with pytest.raises(GecInputError, match="HTTP 400"):
        prolific.prolific_approve(client=client, campaign=campaign, submission_id="subX")
    call = PlatformCall.objects.get(operation="ApproveSubmission")
    assert not call.ok and "Invalid transition" in call.error


def test_the_token_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("PROLIFIC_API_TOKEN", raising=False)
    with pytest.raises(GecInputError, match="PROLIFIC_API_TOKEN"):
        prolific.prolific_client()


# ------------------------------------------------------------------ completion checked before paying (issue 18)


@pytest.mark.parametrize(
    ("remote", "message"),
    [
        (submission(participant="pid-victim"), "participant 'pid-victim', not 'pid1' who did the work"),
        (submission(study="st-other"), "belongs to study 'st-other'"),
        (submission(status="RETURNED"), "is 'RETURNED', not AWAITING REVIEW"),
        (submission(status="ACTIVE"), "is 'ACTIVE', not AWAITING REVIEW"),
        (submission(code="GUESSED"), "entered the code 'GUESSED', not ours"),
    ],
)
def test_approval_is_refused_when_prolific_disagrees_and_nothing_is_approved(
    monkeypatch, campaign, remote, message
):
    client, fake = make_client(monkeypatch, {("GET", "/api/v1/submissions/sub1/"): (200, remote)})
    ours = worked(campaign)
    with pytest.raises(GecInputError, match=message.replace("(", r"\(")):
        prolific.prolific_approve(client=client, campaign=campaign, submission_id="sub1")
    assert [(m, p) for m, p, *_ in fake.requests] == [("GET", "/api/v1/submissions/sub1/")]
    assert not Review.objects.filter(assignment=ours).exists()


def test_a_submission_that_did_no_work_here_is_not_approved_without_asking_prolific(monkeypatch, campaign):
    client, fake = make_client(monkeypatch, {})
    with pytest.raises(GecInputError, match="submission subZ did not come through this campaign"):
        prolific.prolific_approve(client=client, campaign=campaign, submission_id="subZ")
    worker = crowd_worker_get_or_create(platform="prolific", external_id="pid1")
    CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="prolific", external_session="subZ"
    )
    with pytest.raises(GecInputError, match="submission subZ finished no HIT in this campaign"):
        prolific.prolific_approve(client=client, campaign=campaign, submission_id="subZ")
    assert fake.requests == []


def test_a_bonus_needs_a_participant_who_worked_here_in_that_study(monkeypatch, campaign):
    client, fake = make_client(
        monkeypatch, {("GET", "/api/v1/submissions/sub1/"): (200, submission(status="RETURNED"))}
    )
    with pytest.raises(GecInputError, match="participant pid1 finished no HIT of this campaign in study st1"):
        prolific.prolific_bonus(
            client=client, campaign=campaign, study_id="st1", participant_id="pid1", amount="1"
        )
    worked(campaign)
    with pytest.raises(GecInputError, match="is 'RETURNED', not AWAITING REVIEW or APPROVED"):
        prolific.prolific_bonus(
            client=client, campaign=campaign, study_id="st1", participant_id="pid1", amount="1"
        )
    assert not Bonus.objects.exists()
    assert [(m, p) for m, p, *_ in fake.requests] == [("GET", "/api/v1/submissions/sub1/")]
