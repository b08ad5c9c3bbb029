"""MTurk requester operations against botocore's Stubber: exact parameters, idempotency, audit log."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import boto3
import pytest
from botocore.stub import Stubber

from crowd.models import Bonus, CrowdSession, CrowdSettings, MturkAssignment, MturkHit, PlatformCall, Review
from crowd.services import mturk
from crowd.services.workers import crowd_worker_get_or_create
from geceval.errors import GecInputError
from ranking.models import WorkerRecord
from ranking.work.judging import CandidateScore
from tests.factories import crowd_campaign
from tests.judging import do_hit

pytestmark = pytest.mark.django_db

URL = "https://arena.example.org/crowd/mturk/1:abc/"


@pytest.fixture
def campaign():
    return crowd_campaign()[2]


@pytest.fixture
def client():
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


def test_create_hit_type_sends_reward_durations_and_every_qualification_requirement(client, campaign):
    requirements = mturk.Requirements(
        min_approval_percent=98,
        locales=["US", "GB", "CA-ON"],
        min_hits_approved=500,
        screening_qualification_id="3QUALSCREENED",
    )
    client.stub.add_response(
        "create_hit_type",
        {"HITTypeId": "3HITTYPE"},
        {
            "AutoApprovalDelayInSeconds": 259200,
            "AssignmentDurationInSeconds": 1800,
            "Reward": "0.50",
            "Title": "Rank corrections of English sentences",
            "Keywords": "grammar, ranking",
            "Description": "Rank 3 corrections of each of 2 sentences.",
            "QualificationRequirements": [
                {
                    "QualificationTypeId": "000000000000000000L0",
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [98],
                    "ActionsGuarded": "Accept",
                },
                {
                    "QualificationTypeId": "00000000000000000071",
                    "Comparator": "In",
                    "LocaleValues": [
                        {"Country": "US"},
                        {"Country": "GB"},
                        {"Country": "CA", "Subdivision": "ON"},
                    ],
                    "ActionsGuarded": "Accept",
                },
                {
                    "QualificationTypeId": "00000000000000000040",
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [500],
                    "ActionsGuarded": "Accept",
                },
                {"QualificationTypeId": "3QUALSCREENED", "Comparator": "Exists", "ActionsGuarded": "Accept"},
            ],
        },
    )
    kwargs = {
        "client": client,
        "campaign": campaign,
        "title": "Rank corrections of English sentences",
        "description": "Rank 3 corrections of each of 2 sentences.",
        "keywords": "grammar, ranking",
        "assignment_duration_seconds": 1800,
        "requirements": requirements,
    }
    assert mturk.mturk_hit_type_create(**kwargs) == "3HITTYPE"
    # Same parameters again: answered from the audit log, MTurk is not called a second time.
    assert mturk.mturk_hit_type_create(**kwargs) == "3HITTYPE"
    call = PlatformCall.objects.get(operation="CreateHITType")
    assert call.ok and call.sandbox and call.response == {"HITTypeId": "3HITTYPE"}
    assert call.params["Reward"] == "0.50"


def test_create_hits_with_external_question_and_unique_request_tokens(client, campaign):
    question = (
        '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
        f'2006-07-14/ExternalQuestion.xsd"><ExternalURL>{URL}</ExternalURL>'
        "<FrameHeight>800</FrameHeight></ExternalQuestion>"
    )
    for i in range(2):
        client.stub.add_response(
            "create_hit_with_hit_type",
            {"HIT": {"HITId": f"HIT{i}", "HITTypeId": "3HITTYPE"}},
            {
                "HITTypeId": "3HITTYPE",
                "MaxAssignments": 2,
                "LifetimeInSeconds": 86400,
                "Question": question,
                "RequesterAnnotation": f"gec-arena campaign {campaign.pk}",
                "UniqueRequestToken": f"hit-{campaign.pk}-1-{i}",
            },
        )
    hits = mturk.mturk_hits_create(
        client=client,
        campaign=campaign,
        hit_type_id="3HITTYPE",
        external_url=URL,
        count=2,
        max_assignments=2,
        lifetime_seconds=86400,
    )
    assert [h.hit_id for h in hits] == ["HIT0", "HIT1"]
    assert all(h.sandbox and h.reward == Decimal("0.50") for h in hits)
    # A retry of the whole batch creates nothing new (tokens already done).
    again = mturk.mturk_hits_create(
        client=client,
        campaign=campaign,
        hit_type_id="3HITTYPE",
        external_url=URL,
        count=2,
        max_assignments=2,
        lifetime_seconds=86400,
    )
    assert [h.pk for h in again] == [h.pk for h in hits]
    assert PlatformCall.objects.filter(operation="CreateHITWithHITType", ok=True).count() == 2


def test_external_question_escapes_the_url():
    assert "<ExternalURL>https://x/?a=1&amp;b=2</ExternalURL>" in mturk.external_question(
        "https://x/?a=1&b=2"
    )


def _mturk_session(campaign, worker_id="AW1", assignment_id="ASG1"):
    worker = crowd_worker_get_or_create(platform="mturk", external_id=worker_id)
    session = CrowdSession.objects.create(
        campaign=campaign, worker=worker, platform="mturk", external_session=assignment_id, study="HIT0"
    )
    ours = do_hit(campaign, worker.user, lambda s, c: CandidateScore(rank=1))
    session.assignments.add(ours)
    return session, ours


def test_list_assignments_pages_through_and_stores_their_state(client, campaign):
    MturkHit.objects.create(campaign=campaign, hit_id="HIT0", hit_type_id="T", max_assignments=2, reward=1)
    when = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    page1 = {
        "NextToken": "n2",
        "NumResults": 1,
        "Assignments": [
            {
                "AssignmentId": "ASG1",
                "WorkerId": "AW1",
                "HITId": "HIT0",
                "AssignmentStatus": "Submitted",
                "SubmitTime": when,
            }
        ],
    }
    page2 = {
        "NumResults": 1,
        "Assignments": [
            {"AssignmentId": "ASG2", "WorkerId": "AW2", "HITId": "HIT0", "AssignmentStatus": "Approved"}
        ],
    }
    base = {"HITId": "HIT0", "MaxResults": 100, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"]}
    client.stub.add_response("list_assignments_for_hit", page1, base)
    client.stub.add_response("list_assignments_for_hit", page2, {**base, "NextToken": "n2"})
    assert mturk.mturk_assignments_sync(client=client, campaign=campaign) == 2
    assert dict(MturkAssignment.objects.values_list("assignment_id", "status")) == {
        "ASG1": "Submitted",
        "ASG2": "Approved",
    }
    assert MturkAssignment.objects.get(assignment_id="ASG1").submitted == when
    assert PlatformCall.objects.filter(operation="ListAssignmentsForHIT").count() == 2


def get_assignment(assignment_id="ASG1", worker_id="AW1", hit_id="HIT0", status="Submitted"):
    """GetAssignment's answer, in the shape of MTurk's API reference (botocore checks it)."""
    when = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    return {
        "Assignment": {
            "AssignmentId": assignment_id,
            "WorkerId": worker_id,
            "HITId": hit_id,
            "AssignmentStatus": status,
            "AutoApprovalTime": datetime(2026, 11, 4, 12, 0, tzinfo=UTC),
            "AcceptTime": when,
            "SubmitTime": when,
            "Answer": "<QuestionFormAnswers/>",
        },
        "HIT": {"HITId": hit_id, "HITTypeId": "3HITTYPE", "MaxAssignments": 2},
    }


def expect_get(client, assignment_id="ASG1", **answer):
    client.stub.add_response(
        "get_assignment", get_assignment(assignment_id, **answer), {"AssignmentId": assignment_id}
    )


def test_approve_and_reject_with_feedback_record_our_review_once(client, campaign):
    _, ours = _mturk_session(campaign, "AW1", "ASG1")
    _, theirs = _mturk_session(campaign, "AW2", "ASG2")
    expect_get(client)
    client.stub.add_response(
        "approve_assignment", {}, {"AssignmentId": "ASG1", "RequesterFeedback": "Thanks!"}
    )
    client.stub.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": "ASG2", "RequesterFeedback": "Every output got the same rank."},
    )
    mturk.mturk_approve(client=client, campaign=campaign, assignment_id="ASG1", feedback="Thanks!")
    mturk.mturk_approve(
        client=client, campaign=campaign, assignment_id="ASG1", feedback="Thanks!"
    )  # no second call
    mturk.mturk_reject(
        client=client, campaign=campaign, assignment_id="ASG2", feedback="Every output got the same rank."
    )
    assert Review.objects.get(assignment=ours).approved is True
    assert Review.objects.get(assignment=theirs).approved is False
    with pytest.raises(GecInputError, match="say why"):
        mturk.mturk_reject(client=client, campaign=campaign, assignment_id="ASG2", feedback=" ")


def test_bonus_is_paid_once_per_token(client, campaign):
    _mturk_session(campaign, "AW1", "ASG1")
    expect_get(client, status="Approved")
    client.stub.add_response(
        "send_bonus",
        {},
        {
            "WorkerId": "AW1",
            "BonusAmount": "1.25",
            "AssignmentId": "ASG1",
            "Reason": "Careful work",
            "UniqueRequestToken": "bonus-ASG1",
        },
    )
    first = mturk.mturk_bonus(
        client=client,
        campaign=campaign,
        worker_id="AW1",
        assignment_id="ASG1",
        amount="1.25",
        reason="Careful work",
    )
    again = mturk.mturk_bonus(
        client=client,
        campaign=campaign,
        worker_id="AW1",
        assignment_id="ASG1",
        amount="1.25",
        reason="Careful work",
    )
    assert first.pk == again.pk and Bonus.objects.get().amount == Decimal("1.25")


def test_a_failed_call_is_logged_and_can_be_retried(client, campaign):
    _mturk_session(campaign, "AW1", "ASG9")
    expect_get(client, "ASG9")
    client.stub.add_client_error(
        "approve_assignment", "RequestError", "This operation can be called with a status of: Submitted"
    )
    with pytest.raises(GecInputError, match="ApproveAssignment failed"):
        mturk.mturk_approve(client=client, campaign=campaign, assignment_id="ASG9")
    failed = PlatformCall.objects.get(operation="ApproveAssignment")
    assert not failed.ok and "RequestError" in failed.error
    expect_get(client, "ASG9")
    client.stub.add_response("approve_assignment", {}, {"AssignmentId": "ASG9"})
    mturk.mturk_approve(client=client, campaign=campaign, assignment_id="ASG9")
    assert PlatformCall.objects.filter(ok=True, operation="ApproveAssignment").count() == 1


# ------------------------------------------------------- assignments verified before paying (issue 18)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"worker_id": "AVICTIM"}, "MTurk says assignment ASG1 is worker 'AVICTIM', not 'AW1'"),
        ({"hit_id": "HITX"}, "MTurk says assignment ASG1 is of HIT 'HITX', not 'HIT0'"),
        ({"status": "Rejected"}, "MTurk says assignment ASG1 is 'Rejected', not Submitted"),
    ],
)
def test_approval_is_refused_when_get_assignment_disagrees(client, campaign, answer, message):
    _, ours = _mturk_session(campaign, "AW1", "ASG1")
    expect_get(client, **answer)
    with pytest.raises(GecInputError, match=message):
        mturk.mturk_approve(client=client, campaign=campaign, assignment_id="ASG1")
    assert not Review.objects.filter(assignment=ours).exists()
    assert not PlatformCall.objects.filter(operation="ApproveAssignment").exists()


def test_a_forged_assignment_id_is_neither_approved_nor_paid(client, campaign):
    with pytest.raises(GecInputError, match="assignment ASGX did not come through this campaign"):
        mturk.mturk_approve(client=client, campaign=campaign, assignment_id="ASGX")
    worker = crowd_worker_get_or_create(platform="mturk", external_id="AW1")
    CrowdSession.objects.create(campaign=campaign, worker=worker, platform="mturk", external_session="ASGX")
    with pytest.raises(GecInputError, match="assignment ASGX finished no HIT in this campaign"):
        mturk.mturk_approve(client=client, campaign=campaign, assignment_id="ASGX")
    _mturk_session(campaign, "AW2", "ASG2")
    with pytest.raises(GecInputError, match="assignment ASG2 was worked by 'AW2', not 'AW1'"):
        mturk.mturk_bonus(
            client=client, campaign=campaign, worker_id="AW1", assignment_id="ASG2", amount="1", reason="x"
        )
    expect_get(client, "ASG2", worker_id="AW2", status="Rejected")
    with pytest.raises(GecInputError, match="is 'Rejected', not Submitted or Approved"):
        mturk.mturk_bonus(
            client=client, campaign=campaign, worker_id="AW2", assignment_id="ASG2", amount="1", reason="x"
        )
    assert not Bonus.objects.exists()
    assert not PlatformCall.objects.filter(operation__in=["ApproveAssignment", "SendBonus"]).exists()


def test_block_excluded_workers_and_expire_hits(client, campaign):
    bad = crowd_worker_get_or_create(platform="mturk", external_id="ABAD")
    crowd_worker_get_or_create(platform="mturk", external_id="AGOOD")
    WorkerRecord.objects.create(
        campaign=campaign, worker=bad.user, traps_seen=5, traps_passed=1, excluded=True
    )
    MturkHit.objects.create(campaign=campaign, hit_id="HIT0", hit_type_id="T", max_assignments=2, reward=1)
    client.stub.add_response(
        "create_worker_block", {}, {"WorkerId": "ABAD", "Reason": "Failed quality checks."}
    )
    client.stub.add_response(
        "update_expiration_for_hit", {}, {"HITId": "HIT0", "ExpireAt": datetime(2015, 1, 1, tzinfo=UTC)}
    )
    assert mturk.mturk_block_excluded(client=client, campaign=campaign, reason="Failed quality checks.") == [
        "ABAD"
    ]
    assert mturk.mturk_hits_expire(client=client, campaign=campaign) == 1
    assert MturkHit.objects.get().expired
    assert mturk.mturk_hits_expire(client=client, campaign=campaign) == 0


def test_screening_qualification_type_and_grant_to_workers_who_passed(client, campaign):
    client.stub.add_response(
        "create_qualification_type",
        {"QualificationType": {"QualificationTypeId": "3SCREEN"}},
        {
            "Name": "GEC screening passed",
            "Description": "Passed our rewrite screening.",
            "QualificationTypeStatus": "Active",
        },
    )
    client.stub.add_response(
        "associate_qualification_with_worker",
        {},
        {"QualificationTypeId": "3SCREEN", "WorkerId": "AW1", "IntegerValue": 1, "SendNotification": False},
    )
    type_id = mturk.mturk_screening_qualification_create(
        client=client,
        campaign=campaign,
        name="GEC screening passed",
        description="Passed our rewrite screening.",
    )
    assert type_id == "3SCREEN" == CrowdSettings.objects.get(campaign=campaign).mturk_qualification_type_id
    assert mturk.mturk_qualification_grant(client=client, campaign=campaign, worker_ids=["AW1"]) == 1


def test_client_needs_credentials_from_the_environment(monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    with pytest.raises(GecInputError, match="AWS_ACCESS_KEY_ID"):
        mturk.mturk_client()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    assert mturk.mturk_client(sandbox=False).meta.endpoint_url == mturk.PRODUCTION_ENDPOINT
    assert mturk.mturk_client(sandbox=True).meta.endpoint_url == mturk.SANDBOX_ENDPOINT
