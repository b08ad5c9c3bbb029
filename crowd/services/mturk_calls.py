"""MTurk calls, logged once per token (``PlatformCall``), and the check of an assignment before paying.

Split from crowd/services/mturk.py (size); mturk.py re-exports what it used to define.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from decimal import Decimal
from typing import Any

from botocore import xform_name
from django.core.serializers.json import DjangoJSONEncoder

from crowd.models import Platform, PlatformCall
from crowd.selectors import platform_session
from geceval.errors import GecInputError
from ranking.models import FINISHED_STATUSES, Campaign


def _is_sandbox(client) -> bool:
    return "sandbox" in str(getattr(client.meta, "endpoint_url", ""))


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder, default=str))


class MturkCallFailed(GecInputError):
    """An MTurk call that failed; ``code``: botocore's error code when MTurk answered (``RequestError``:
    the request is invalid, e.g. an assignment MTurk does not have; ``ServiceFault``: try again), ""
    when it never answered (a connection error, bad parameters)."""

    def __init__(self, message: str, code: str = ""):
        super().__init__(message)
        self.code = code


def _call(client, operation: str, params: dict, *, token: str, campaign: Campaign | None) -> dict:
    """Call ``operation`` (MTurk API name) once per token; record parameters and response."""
    done = PlatformCall.objects.filter(platform=Platform.MTURK, request_token=token, ok=True).first()
    if done is not None:
        return done.response
    method = getattr(client, xform_name(operation))
    record = PlatformCall(
        platform=Platform.MTURK,
        operation=operation,
        request_token=token,
        campaign=campaign,
        params=_jsonable(params),
        sandbox=_is_sandbox(client),
    )
    try:
        response = method(**params)
    except Exception as exc:  # botocore ClientError / ParamValidationError / connection errors
        record.error = f"{type(exc).__name__}: {exc}"[:2000]
        record.save()
        code = (getattr(exc, "response", None) or {}).get("Error", {}).get("Code", "")
        raise MturkCallFailed(f"MTurk {operation} failed: {exc}", code=code) from None
    response = {k: v for k, v in response.items() if k != "ResponseMetadata"}
    record.response = _jsonable(response)
    record.ok = True
    record.save()
    return record.response


def _money(amount: Decimal | float | str) -> str:
    value = Decimal(str(amount)).quantize(Decimal("0.01"))
    if value <= 0:
        raise GecInputError("amounts must be positive")
    return str(value)


def _token(*parts: object) -> str:
    raw = "-".join(str(p) for p in parts)
    if len(raw) <= 64:
        return raw
    return raw[:40] + "-" + hashlib.sha1(raw.encode()).hexdigest()[:23]


def _done(token: str) -> bool:
    return PlatformCall.objects.filter(platform=Platform.MTURK, request_token=token, ok=True).exists()


def mturk_assignment_check(
    *, client, campaign: Campaign, assignment_id: str, statuses: tuple[str, ...], worker_id: str | None = None
) -> dict:
    """Before approving or paying: MTurk's GetAssignment agrees with our record of the visit.

    The assignmentId came through this campaign (our session) and finished its HIT here; MTurk
    names the same worker (and ``worker_id`` when given), our HIT and a status in ``statuses``.
    """
    session = platform_session(campaign, Platform.MTURK, assignment_id)
    if session is None:
        raise GecInputError(f"assignment {assignment_id} did not come through this campaign")
    ours = session.worker.external_id
    if worker_id is not None and worker_id != ours:
        raise GecInputError(f"assignment {assignment_id} was worked by {ours!r}, not {worker_id!r}")
    if not session.assignments.filter(status__in=FINISHED_STATUSES).exists():
        raise GecInputError(f"assignment {assignment_id} finished no HIT in this campaign")
    token = _token("get", assignment_id, uuid.uuid4().hex[:12])  # a read: asked every time
    remote = _call(client, "GetAssignment", {"AssignmentId": assignment_id}, token=token, campaign=campaign)
    found = remote.get("Assignment") or {}
    if found.get("WorkerId") != ours:
        raise GecInputError(
            f"MTurk says assignment {assignment_id} is worker {found.get('WorkerId')!r}, not {ours!r}"
        )
    if session.study and found.get("HITId") != session.study:
        raise GecInputError(
            f"MTurk says assignment {assignment_id} is of HIT {found.get('HITId')!r}, not {session.study!r}"
        )
    if found.get("AssignmentStatus") not in statuses:
        raise GecInputError(
            f"MTurk says assignment {assignment_id} is {found.get('AssignmentStatus')!r}, not {' or '.join(statuses)}"
        )
    return found
