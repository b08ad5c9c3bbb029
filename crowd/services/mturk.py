"""MTurk requester operations through boto3, each idempotent and recorded in the audit log.

Credentials come from the environment only (AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, read explicitly so no ~/.aws file is consulted);
settings CROWD_MTURK_SANDBOX (default true) picks the sandbox or the
production endpoint. Every function takes the boto3 client as a parameter,
so tests pass a client wrapped in botocore's Stubber.

Idempotency: every operation has a request token naming it (e.g.
``approve-<assignment id>``). MTurk's own ``UniqueRequestToken`` is sent
where the API has one (CreateHITWithHITType, SendBonus), so a retry after a
lost response does not create a second HIT or pay twice; for every call a
successful PlatformCall with the same token means "already done": the
recorded response is returned and MTurk is not called again.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from xml.sax.saxutils import escape

from django.conf import settings
from django.db import transaction

from annotate.models import QualificationAttempt, QualificationStatus
from crowd.models import (
    Bonus,
    CrowdSession,
    CrowdSettings,
    CrowdWorker,
    MturkAssignment,
    MturkHit,
    Platform,
    Review,
)
from crowd.services.mturk_calls import _call, _done, _is_sandbox, _money, _token, mturk_assignment_check
from crowd.services.workers import crowd_worker_get_or_create
from geceval.errors import GecInputError
from ranking.models import Campaign, WorkerRecord

SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
PRODUCTION_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"

# System qualification types (the same ids in the sandbox and in production).
PERCENT_APPROVED = "000000000000000000L0"
NUMBER_APPROVED = "00000000000000000040"
LOCALE = "00000000000000000071"

EXTERNAL_QUESTION = (
    '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2006-07-14/ExternalQuestion.xsd"><ExternalURL>{url}</ExternalURL>'
    "<FrameHeight>{height}</FrameHeight></ExternalQuestion>"
)


def sandbox_default() -> bool:
    return settings.CROWD_MTURK_SANDBOX


def mturk_client(*, sandbox: bool | None = None):
    """A boto3 MTurk client with credentials from the environment only."""
    import boto3

    key, secret = os.environ.get("AWS_ACCESS_KEY_ID", ""), os.environ.get("AWS_SECRET_ACCESS_KEY", "")
    if not key or not secret:
        raise GecInputError("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment for MTurk")
    sandbox = sandbox_default() if sandbox is None else sandbox
    return boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=SANDBOX_ENDPOINT if sandbox else PRODUCTION_ENDPOINT,
        aws_access_key_id=key,
        aws_secret_access_key=secret,
    )


@dataclass(frozen=True)
class Requirements:
    """Who may take the HITs: approval rate >= N %, locales, HITs approved >= N, our screening."""

    min_approval_percent: int | None = None
    locales: Sequence[str] = ()
    min_hits_approved: int | None = None
    screening_qualification_id: str = ""
    guard: str = "Accept"

    def to_mturk(self) -> list[dict]:
        out: list[dict] = []
        if self.min_approval_percent is not None:
            out.append(
                {
                    "QualificationTypeId": PERCENT_APPROVED,
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [int(self.min_approval_percent)],
                    "ActionsGuarded": self.guard,
                }
            )
        if self.locales:
            values = []
            for locale in self.locales:
                country, _, subdivision = locale.partition("-")
                values.append(
                    {"Country": country, "Subdivision": subdivision} if subdivision else {"Country": country}
                )
            out.append(
                {
                    "QualificationTypeId": LOCALE,
                    "Comparator": "In" if len(values) > 1 else "EqualTo",
                    "LocaleValues": values,
                    "ActionsGuarded": self.guard,
                }
            )
        if self.min_hits_approved is not None:
            out.append(
                {
                    "QualificationTypeId": NUMBER_APPROVED,
                    "Comparator": "GreaterThanOrEqualTo",
                    "IntegerValues": [int(self.min_hits_approved)],
                    "ActionsGuarded": self.guard,
                }
            )
        if self.screening_qualification_id:
            out.append(
                {
                    "QualificationTypeId": self.screening_qualification_id,
                    "Comparator": "Exists",
                    "ActionsGuarded": self.guard,
                }
            )
        return out


def external_question(url: str, frame_height: int = 800) -> str:
    return EXTERNAL_QUESTION.format(url=escape(url), height=int(frame_height))


# --------------------------------------------------------------------------- qualifications


def mturk_screening_qualification_create(*, client, campaign: Campaign, name: str, description: str) -> str:
    """A custom qualification type for workers who passed our screening; stored in the crowd settings."""
    response = _call(
        client,
        "CreateQualificationType",
        {"Name": name, "Description": description, "QualificationTypeStatus": "Active"},
        token=_token("qualtype", campaign.pk),
        campaign=campaign,
    )
    type_id = response["QualificationType"]["QualificationTypeId"]
    CrowdSettings.objects.update_or_create(
        campaign=campaign, defaults={"mturk_qualification_type_id": type_id}
    )
    return type_id


def mturk_screened_workers(campaign: Campaign) -> list[str]:
    """MTurk WorkerIds of workers whose screening (the campaign's qualification) an expert accepted."""

    if not campaign.qualification_id:
        return []
    users = QualificationAttempt.objects.filter(
        qualification_id=campaign.qualification_id, status=QualificationStatus.ACCEPTED
    ).values_list("worker_id", flat=True)
    return sorted(
        CrowdWorker.objects.filter(platform=Platform.MTURK, user_id__in=users).values_list(
            "external_id", flat=True
        )
    )


def mturk_qualification_grant(*, client, campaign: Campaign, worker_ids: Sequence[str] | None = None) -> int:
    """Grant the screening qualification (value 1) to the workers who passed; returns how many calls."""
    crowd = CrowdSettings.objects.filter(campaign=campaign).first()
    if crowd is None or not crowd.mturk_qualification_type_id:
        raise GecInputError("create the screening qualification type first")
    ids = mturk_screened_workers(campaign) if worker_ids is None else list(worker_ids)
    for worker_id in ids:
        _call(
            client,
            "AssociateQualificationWithWorker",
            {
                "QualificationTypeId": crowd.mturk_qualification_type_id,
                "WorkerId": worker_id,
                "IntegerValue": 1,
                "SendNotification": False,
            },
            token=_token("grant", crowd.mturk_qualification_type_id, worker_id),
            campaign=campaign,
        )
    return len(ids)


# --------------------------------------------------------------------------- HITs


def mturk_hit_type_create(
    *,
    client,
    campaign: Campaign,
    title: str,
    description: str,
    keywords: str = "",
    reward: Decimal | str | None = None,
    assignment_duration_seconds: int = 3600,
    auto_approval_delay_seconds: int = 3 * 86400,
    requirements: Requirements = Requirements(),
) -> str:
    params = {
        "AutoApprovalDelayInSeconds": int(auto_approval_delay_seconds),
        "AssignmentDurationInSeconds": int(assignment_duration_seconds),
        "Reward": _money(campaign.reward_per_hit if reward is None else reward),
        "Title": title,
        "Keywords": keywords,
        "Description": description,
        "QualificationRequirements": requirements.to_mturk(),
    }
    digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]
    response = _call(
        client, "CreateHITType", params, token=_token("hittype", campaign.pk, digest), campaign=campaign
    )
    return response["HITTypeId"]


def mturk_hits_create(
    *,
    client,
    campaign: Campaign,
    hit_type_id: str,
    external_url: str,
    count: int,
    max_assignments: int,
    lifetime_seconds: int = 7 * 86400,
    frame_height: int = 800,
    batch: str = "1",
) -> list[MturkHit]:
    """``count`` HITs of one HIT type; each MTurk assignment is one of our HITs (server-picked)."""
    if not 1 <= count <= 1000 or not 1 <= max_assignments <= 1000:
        raise GecInputError("count and max_assignments are 1 to 1000")
    question = external_question(external_url, frame_height)
    made = []
    for i in range(count):
        token = _token("hit", campaign.pk, batch, i)
        params = {
            "HITTypeId": hit_type_id,
            "MaxAssignments": int(max_assignments),
            "LifetimeInSeconds": int(lifetime_seconds),
            "Question": question,
            "RequesterAnnotation": f"gec-arena campaign {campaign.pk}",
            "UniqueRequestToken": token,
        }
        response = _call(client, "CreateHITWithHITType", params, token=token, campaign=campaign)
        hit = response["HIT"]
        made.append(
            MturkHit.objects.get_or_create(
                hit_id=hit["HITId"],
                defaults={
                    "campaign": campaign,
                    "hit_type_id": hit.get("HITTypeId", hit_type_id),
                    "sandbox": _is_sandbox(client),
                    "max_assignments": max_assignments,
                    "reward": campaign.reward_per_hit,
                },
            )[0]
        )
    return made


def mturk_hits_expire(*, client, campaign: Campaign) -> int:
    """Expire every HIT of the campaign now (ExpireAt in the past), so no one can accept more."""
    past = datetime(2015, 1, 1, tzinfo=UTC)
    hits = list(MturkHit.objects.filter(campaign=campaign, expired=False))
    for hit in hits:
        _call(
            client,
            "UpdateExpirationForHIT",
            {"HITId": hit.hit_id, "ExpireAt": past},
            token=_token("expire", hit.hit_id),
            campaign=campaign,
        )
        hit.expired = True
        hit.save(update_fields=["expired"])
    return len(hits)


# --------------------------------------------------------------------------- assignments


def mturk_assignments_sync(*, client, campaign: Campaign) -> int:
    """List every HIT's submitted/approved/rejected assignments and store their state."""
    count = 0
    for hit in MturkHit.objects.filter(campaign=campaign):
        next_token = None
        while True:
            params: dict[str, Any] = {
                "HITId": hit.hit_id,
                "MaxResults": 100,
                "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
            }
            if next_token:
                params["NextToken"] = next_token
            response = _call(
                client,
                "ListAssignmentsForHIT",
                params,
                token=_token("list", uuid.uuid4().hex),
                campaign=campaign,
            )
            for a in response.get("Assignments", []):
                MturkAssignment.objects.update_or_create(
                    assignment_id=a["AssignmentId"],
                    defaults={
                        "hit": hit,
                        "worker_id": a["WorkerId"],
                        "status": a["AssignmentStatus"],
                        "submitted": a.get("SubmitTime"),
                    },
                )
                count += 1
            next_token = response.get("NextToken")
            if not next_token:
                break
    return count


def _our_assignments(campaign: Campaign | None, assignment_id: str):
    session = CrowdSession.objects.filter(platform=Platform.MTURK, external_session=assignment_id)
    if campaign is not None:
        session = session.filter(campaign=campaign)
    found = session.first()
    return list(found.assignments.all()) if found else []


@transaction.atomic
def _review(campaign, assignment_id: str, approved: bool, feedback: str) -> None:
    for ours in _our_assignments(campaign, assignment_id):
        Review.objects.update_or_create(
            assignment=ours, defaults={"approved": approved, "feedback": feedback}
        )
    MturkAssignment.objects.filter(assignment_id=assignment_id).update(
        status="Approved" if approved else "Rejected"
    )


def mturk_approve(*, client, campaign: Campaign, assignment_id: str, feedback: str = "") -> None:
    if not _done(_token("approve", assignment_id)):
        mturk_assignment_check(
            client=client, campaign=campaign, assignment_id=assignment_id, statuses=("Submitted",)
        )
    params: dict[str, Any] = {"AssignmentId": assignment_id}
    if feedback:
        params["RequesterFeedback"] = feedback[:1024]
    _call(client, "ApproveAssignment", params, token=_token("approve", assignment_id), campaign=campaign)
    _review(campaign, assignment_id, True, feedback)


def mturk_reject(*, client, campaign: Campaign, assignment_id: str, feedback: str) -> None:
    feedback = (feedback or "").strip()
    if not feedback:
        raise GecInputError("say why the work is rejected: the worker sees the feedback")
    params = {"AssignmentId": assignment_id, "RequesterFeedback": feedback[:1024]}
    _call(client, "RejectAssignment", params, token=_token("reject", assignment_id), campaign=campaign)
    _review(campaign, assignment_id, False, feedback)


def mturk_bonus(
    *,
    client,
    campaign: Campaign,
    worker_id: str,
    assignment_id: str,
    amount: Decimal | str,
    reason: str,
    token: str = "",
) -> Bonus:
    """Pay a bonus once per token (default: one bonus per assignment)."""
    if not reason.strip():
        raise GecInputError("a bonus needs a reason: the worker sees it")
    token = token or _token("bonus", assignment_id)
    existing = Bonus.objects.filter(request_token=token).first()
    if existing is not None:
        return existing
    if not _done(token):
        mturk_assignment_check(
            client=client,
            campaign=campaign,
            assignment_id=assignment_id,
            statuses=("Submitted", "Approved"),
            worker_id=worker_id,
        )
    params = {
        "WorkerId": worker_id,
        "BonusAmount": _money(amount),
        "AssignmentId": assignment_id,
        "Reason": reason,
        "UniqueRequestToken": token,
    }
    _call(client, "SendBonus", params, token=token, campaign=campaign)
    worker = crowd_worker_get_or_create(platform=Platform.MTURK, external_id=worker_id)
    return Bonus.objects.create(
        campaign=campaign,
        worker=worker,
        amount=Decimal(params["BonusAmount"]),
        reason=reason,
        request_token=token,
    )


def mturk_block_excluded(*, client, campaign: Campaign, reason: str) -> list[str]:
    """Block the MTurk workers our trap checks excluded from this campaign."""

    users = WorkerRecord.objects.filter(campaign=campaign, excluded=True).values_list("worker_id", flat=True)
    ids = sorted(
        CrowdWorker.objects.filter(platform=Platform.MTURK, user_id__in=users).values_list(
            "external_id", flat=True
        )
    )
    for worker_id in ids:
        _call(
            client,
            "CreateWorkerBlock",
            {"WorkerId": worker_id, "Reason": reason},
            token=_token("block", worker_id),
            campaign=campaign,
        )
    return ids
