"""The researcher publishes a campaign to MTurk (stubbed client) and reviews work from the crowd page."""

from __future__ import annotations

import boto3
import httpx
import pytest
from botocore.stub import ANY, Stubber
from django.urls import reverse

from crowd.models import MturkHit, PlatformCall
from crowd.services import mturk, prolific
from crowd.services.sessions import campaign_key
from tests.crowd.test_prolific_requester import submission, worked
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def stubbed(monkeypatch):
    client = boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=mturk.SANDBOX_ENDPOINT,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    stub = Stubber(client)
    stub.activate()
    monkeypatch.setattr(mturk, "mturk_client", lambda sandbox=None: client)
    yield stub
    stub.assert_no_pending_responses()
    stub.deactivate()


@pytest.fixture
def logged_in(client):
    _, _, campaign = crowd_campaign()
    client.login(username="res", password="res-pass-123")
    return client, campaign


def test_publish_to_mturk_creates_the_hit_type_and_one_external_question_hit_per_our_hit(stubbed, logged_in):
    client, campaign = logged_in
    stubbed.add_response(
        "create_hit_type",
        {"HITTypeId": "3T"},
        {
            "AutoApprovalDelayInSeconds": 72 * 3600,
            "AssignmentDurationInSeconds": 3600,
            "Reward": "0.50",
            "Title": "Rank corrections",
            "Keywords": "grammar",
            "Description": "Rank corrections of English sentences.",
            "QualificationRequirements": [
                {
                    "QualificationTypeId": "000000000000000000L0",
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [98],
                    "ActionsGuarded": "Accept",
                },
                {
                    "QualificationTypeId": "00000000000000000071",
                    "Comparator": "EqualTo",
                    "LocaleValues": [{"Country": "US"}],
                    "ActionsGuarded": "Accept",
                },
            ],
        },
    )
    url = "http://testserver" + reverse("crowd-mturk", args=[campaign_key(campaign)])
    for i in range(2):
        stubbed.add_response(
            "create_hit_with_hit_type",
            {"HIT": {"HITId": f"H{i}", "HITTypeId": "3T"}},
            {
                "HITTypeId": "3T",
                "MaxAssignments": 2,
                "LifetimeInSeconds": 168 * 3600,
                "Question": mturk.external_question(url),
                "RequesterAnnotation": ANY,
                "UniqueRequestToken": f"hit-{campaign.pk}-0-{i}",
            },
        )
    response = client.post(
        reverse("crowd-platform-action", args=[campaign.pk, "mturk", "publish"]),
        {
            "title": "Rank corrections",
            "description": "Rank corrections of English sentences.",
            "keywords": "grammar",
            "hits": "2",
            "max_assignments": "2",
            "lifetime_hours": "168",
            "duration_minutes": "60",
            "auto_approve_hours": "72",
            "min_approval_percent": "98",
            "locales": "us",
            "sandbox": "on",
        },
        follow=True,
    )
    assert b"2 MTurk HITs published (HIT type 3T)." in response.content
    assert list(MturkHit.objects.values_list("hit_id", flat=True).order_by("hit_id")) == ["H0", "H1"]
    assert PlatformCall.objects.filter(campaign=campaign, ok=True).count() == 3


def test_reject_without_feedback_is_refused_on_the_page_and_nothing_is_called(stubbed, logged_in):
    client, campaign = logged_in
    response = client.post(
        reverse("crowd-platform-action", args=[campaign.pk, "mturk", "review"]),
        {"assignment_id": "A1", "decision": "reject", "feedback": ""},
        follow=True,
    )
    assert b"say why the work is rejected" in response.content
    assert not PlatformCall.objects.exists()


def test_prolific_approve_from_the_page(monkeypatch, logged_in):
    client, campaign = logged_in
    seen = []

    def answer(request):
        seen.append((request.method, request.url.path))
        if request.method == "GET":  # the check before approving (issue 18)
            return httpx.Response(200, json=submission())
        return httpx.Response(200, json={"id": "sub1", "status": "APPROVED"})

    worked(campaign)

    monkeypatch.setenv("PROLIFIC_API_TOKEN", "t")
    real = prolific.prolific_client
    monkeypatch.setattr(prolific, "prolific_client", lambda: real(transport=httpx.MockTransport(answer)))
    response = client.post(
        reverse("crowd-platform-action", args=[campaign.pk, "prolific", "review"]),
        {"submission_id": "sub1", "decision": "approve"},
        follow=True,
    )
    assert b"Submission sub1 approved." in response.content
    assert seen == [("GET", "/api/v1/submissions/sub1/"), ("POST", "/api/v1/submissions/sub1/transition/")]


def test_an_unknown_operation_is_not_found(logged_in):
    client, campaign = logged_in
    assert (
        client.post(reverse("crowd-platform-action", args=[campaign.pk, "mturk", "nuke"])).status_code == 404
    )


def test_sync_task_lists_the_assignments_of_open_hits(stubbed, logged_in):
    from crowd.models import MturkAssignment
    from crowd.tasks import task_mturk_sync, task_mturk_sync_open

    _, campaign = logged_in
    assert task_mturk_sync(campaign_id=campaign.pk) == 0  # no HITs: nothing to ask
    MturkHit.objects.create(campaign=campaign, hit_id="H0", hit_type_id="T", max_assignments=1, reward=1)
    stubbed.add_response(
        "list_assignments_for_hit",
        {
            "Assignments": [
                {"AssignmentId": "A1", "WorkerId": "W1", "HITId": "H0", "AssignmentStatus": "Submitted"}
            ]
        },
        {"HITId": "H0", "MaxResults": 100, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"]},
    )
    assert task_mturk_sync_open.delay().get() == 1
    assert MturkAssignment.objects.get().status == "Submitted"
