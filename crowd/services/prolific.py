"""Prolific requester operations through its REST API (v1), logged like MTurk's.

The token comes from the environment only: PROLIFIC_API_TOKEN (sent as
``Authorization: Token <token>``). Functions take an ``httpx.Client`` so
tests pass one over ``httpx.MockTransport`` with recorded responses; no
network. Operations: list a study's submissions, approve, reject (message and
category, as Prolific requires), and bonus (set up a bulk bonus, then pay it).
"""

from __future__ import annotations

import os
import uuid
from decimal import Decimal
from typing import Any

import httpx

from crowd.models import Bonus, CrowdSession, CrowdSettings, Platform, PlatformCall, Review
from crowd.selectors import platform_session
from crowd.services.workers import crowd_worker_get_or_create
from geceval.errors import GecInputError
from ranking.models import FINISHED_STATUSES, Campaign

API = "https://api.prolific.com/api/v1/"
REJECTION_CATEGORIES = (
    "TOO_QUICKLY",
    "TOO_SLOWLY",
    "FAILED_INSTRUCTIONS",
    "INCOMP_LONGITUDINAL",
    "FAILED_CHECK",
    "LOW_EFFORT",
    "MALINGERING",
    "NO_CODE",
    "BAD_CODE",
    "NO_DATA",
    "UNSUPP_DEVICE",
    "OTHER",
)


def prolific_client(*, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    token = os.environ.get("PROLIFIC_API_TOKEN", "")
    if not token:
        raise GecInputError("set PROLIFIC_API_TOKEN in the environment for Prolific")
    return httpx.Client(
        base_url=API, headers={"Authorization": f"Token {token}"}, timeout=30.0, transport=transport
    )


def _request(
    client: httpx.Client,
    method: str,
    path: str,
    *,
    operation: str,
    token: str,
    campaign: Campaign | None,
    json: dict | None = None,
    params: dict | None = None,
    once: bool = True,
) -> Any:
    if not once:  # reads are logged each time, never answered from the log
        token = f"{token[:40]}-{uuid.uuid4().hex[:20]}"
    if once:
        done = PlatformCall.objects.filter(platform=Platform.PROLIFIC, request_token=token, ok=True).first()
        if done is not None:
            return done.response.get("body")
    record = PlatformCall(
        platform=Platform.PROLIFIC,
        operation=operation,
        request_token=token[:64],
        campaign=campaign,
        params={"method": method, "path": path, "json": json, "params": params},
    )
    try:
        response = client.request(method, path, json=json, params=params)
    except httpx.HTTPError as exc:
        record.error = f"{type(exc).__name__}: {exc}"[:2000]
        record.save()
        raise GecInputError(f"Prolific {operation} failed: {exc}") from None
    body: Any = None
    if response.content:
        try:
            body = response.json()
        except ValueError:
            body = response.text[:2000]
    if response.status_code >= 400:
        record.error = f"HTTP {response.status_code}: {str(body)[:1900]}"
        record.response = {"status": response.status_code, "body": body}
        record.save()
        raise GecInputError(f"Prolific {operation} failed: HTTP {response.status_code} {body}")
    record.ok = True
    record.response = {"status": response.status_code, "body": body}
    record.save()
    return body


def prolific_submissions(*, client: httpx.Client, campaign: Campaign, study_id: str) -> list[dict]:
    """Every submission of the study (follows the ``_links.next`` pages)."""
    out: list[dict] = []
    path: str | None = f"studies/{study_id}/submissions/"
    while path:
        body = _request(
            client,
            "GET",
            path,
            operation="ListSubmissions",
            token=f"list-{study_id}",
            campaign=campaign,
            once=False,
        )
        out.extend(body.get("results", []))
        nxt = ((body.get("_links") or {}).get("next") or {}).get("href")
        path = nxt if nxt and nxt != path else None
    return out


def _review(campaign: Campaign, submission_id: str, approved: bool, feedback: str) -> None:
    session = CrowdSession.objects.filter(
        campaign=campaign, platform=Platform.PROLIFIC, external_session=submission_id
    ).first()
    for ours in session.assignments.all() if session else []:
        Review.objects.update_or_create(
            assignment=ours, defaults={"approved": approved, "feedback": feedback}
        )


def _done(token: str) -> bool:
    return PlatformCall.objects.filter(platform=Platform.PROLIFIC, request_token=token, ok=True).exists()


def prolific_submission_check(
    *, client: httpx.Client, campaign: Campaign, submission_id: str, statuses: tuple[str, ...]
) -> dict:
    """Before approving or paying: Prolific's record of the submission agrees with ours.

    The submission came through this campaign (our session, by SESSION_ID) and finished at least one
    HIT here; Prolific names the same participant and study, a status in ``statuses`` and, when the
    campaign has a completion code, that code. GecInputError says which check failed.
    """
    session = platform_session(campaign, Platform.PROLIFIC, submission_id)
    if session is None:
        raise GecInputError(f"submission {submission_id} did not come through this campaign")
    if not session.assignments.filter(status__in=FINISHED_STATUSES).exists():
        raise GecInputError(f"submission {submission_id} finished no HIT in this campaign")
    body = _request(
        client,
        "GET",
        f"submissions/{submission_id}/",
        operation="GetSubmission",
        token=f"get-{submission_id}",
        campaign=campaign,
        once=False,
    )
    if not isinstance(body, dict):
        raise GecInputError(f"Prolific answered no submission {submission_id}")
    participant = body.get("participant") or body.get("participant_id")
    if participant != session.worker.external_id:
        raise GecInputError(
            f"Prolific says submission {submission_id} is participant {participant!r}, "
            f"not {session.worker.external_id!r} who did the work"
        )
    if session.study and body.get("study_id") != session.study:
        raise GecInputError(
            f"Prolific says submission {submission_id} belongs to study {body.get('study_id')!r}"
        )
    if body.get("status") not in statuses:
        raise GecInputError(
            f"Prolific says submission {submission_id} is {body.get('status')!r}, not {' or '.join(statuses)}"
        )
    code = (
        CrowdSettings.objects.filter(campaign=campaign)
        .values_list("prolific_completed_code", flat=True)
        .first()
    )
    if code and body.get("entered_code") not in (None, code):
        raise GecInputError(
            f"submission {submission_id} entered the code {body.get('entered_code')!r}, not ours"
        )
    return body


def prolific_approve(*, client: httpx.Client, campaign: Campaign, submission_id: str) -> dict:
    if not _done(f"approve-{submission_id}"):
        prolific_submission_check(
            client=client, campaign=campaign, submission_id=submission_id, statuses=("AWAITING REVIEW",)
        )
    body = _request(
        client,
        "POST",
        f"submissions/{submission_id}/transition/",
        operation="ApproveSubmission",
        token=f"approve-{submission_id}",
        campaign=campaign,
        json={"action": "APPROVE"},
    )
    _review(campaign, submission_id, True, "")
    return body


def prolific_reject(
    *, client: httpx.Client, campaign: Campaign, submission_id: str, message: str, category: str
) -> dict:
    message = (message or "").strip()
    if len(message) < 100:
        raise GecInputError("Prolific asks for a rejection message of at least 100 characters")
    if category not in REJECTION_CATEGORIES:
        raise GecInputError(f"rejection category is one of {', '.join(REJECTION_CATEGORIES)}")
    body = _request(
        client,
        "POST",
        f"submissions/{submission_id}/transition/",
        operation="RejectSubmission",
        token=f"reject-{submission_id}",
        campaign=campaign,
        json={"action": "REJECT", "message": message, "rejection_category": category},
    )
    _review(campaign, submission_id, False, message)
    return body


def prolific_bonus(
    *,
    client: httpx.Client,
    campaign: Campaign,
    study_id: str,
    participant_id: str,
    amount: Decimal | str,
    reason: str = "",
    token: str = "",
) -> Bonus:
    """Set up and pay one bonus (two API calls), once per token (default: one per participant and study)."""
    value = Decimal(str(amount)).quantize(Decimal("0.01"))
    if value <= 0:
        raise GecInputError("amounts must be positive")
    token = token or f"bonus-{study_id}-{participant_id}"[:64]
    existing = Bonus.objects.filter(request_token=token).first()
    if existing is not None:
        return existing
    if not _done(f"{token}-setup"[:64]):
        _bonus_check(client, campaign, study_id, participant_id)
    setup = _request(
        client,
        "POST",
        "submissions/bulk-bonus-payments/",
        operation="SetUpBonus",
        token=f"{token}-setup"[:64],
        campaign=campaign,
        json={"study_id": study_id, "csv_bonuses": f"{participant_id},{value}\n"},
    )
    _request(
        client,
        "POST",
        f"bulk-bonus-payments/{setup['id']}/pay/",
        operation="PayBonus",
        token=f"{token}-pay"[:64],
        campaign=campaign,
    )
    worker = crowd_worker_get_or_create(platform=Platform.PROLIFIC, external_id=participant_id)
    return Bonus.objects.create(
        campaign=campaign, worker=worker, amount=value, reason=reason, request_token=token
    )


def _bonus_check(client: httpx.Client, campaign: Campaign, study_id: str, participant_id: str) -> None:
    """A bonus goes to a participant who finished work here in that study, as Prolific confirms."""
    sessions = CrowdSession.objects.filter(
        campaign=campaign,
        platform=Platform.PROLIFIC,
        worker__external_id=participant_id,
        study=study_id,
        assignments__status__in=FINISHED_STATUSES,
    ).exclude(external_session="")
    session_id = sessions.values_list("external_session", flat=True).first()
    if session_id is None:
        raise GecInputError(
            f"participant {participant_id} finished no HIT of this campaign in study {study_id}"
        )
    prolific_submission_check(
        client=client, campaign=campaign, submission_id=session_id, statuses=("AWAITING REVIEW", "APPROVED")
    )
