"""Arrivals through invite links, Prolific and MTurk; the signed session token; consent; the end.

A worker's session is carried by a signed token in the URL (``session_token``),
never by a cookie: MTurk shows the task in a third-party iframe, where
browsers block or partition cookies, so the flow must not need one. The same
token serves the invite and Prolific flows, which keeps one code path. The
token is unguessable and bound to one session, which is why the worker views
are csrf_exempt: a forged cross-site POST cannot name a session it does not
know, and the token is exactly what a CSRF cookie would have protected.
"""

from __future__ import annotations

import hashlib
import secrets
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from annotate.http import address_group
from annotate.rewrites.selectors import qualification_granted
from crowd.models import CrowdSession, CrowdSettings, InviteLink, Platform
from crowd.services.workers import crowd_worker_get_or_create
from geceval.errors import GecInputError
from ranking.models import FINISHED_STATUSES, Assignment, AssignmentStatus, Campaign, HoldReason, WorkerRecord
from ranking.services import NoWork, assignment_request

_SESSION_SALT = "crowd.session"
_CAMPAIGN_SALT = "crowd.campaign"
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"


class Outcome:
    COMPLETED = "completed"
    SCREENED_OUT = "screened-out"
    NO_WORK = "no-work"
    SUPERSEDED = "superseded"  # a newer MTurk assignment of the same worker took its HIT over


SUPERSEDED = (
    "This HIT continues in a newer MTurk assignment you accepted (in another tab or window). Nothing "
    "from this page is saved any more: continue there, and return this assignment on MTurk."
)
FOREIGN = (
    "Your HIT of this study is open in another session (another tab, window or browser). Nothing from "
    "this page is saved: continue there."
)


def token_max_age() -> int:
    return settings.CROWD_TOKEN_MAX_AGE_DAYS * 86400


def session_token(session: CrowdSession) -> str:
    return signing.dumps(session.pk, salt=_SESSION_SALT, compress=False)


def session_from_token(token: str) -> CrowdSession | None:
    try:
        pk = signing.loads(token, salt=_SESSION_SALT, max_age=token_max_age())
    except signing.BadSignature:
        return None
    return CrowdSession.objects.filter(pk=pk).select_related("campaign", "worker__user").first()


def campaign_key(campaign: Campaign) -> str:
    """The campaign's public key in Prolific and MTurk URLs: signed, so ids cannot be guessed."""
    return signing.Signer(salt=_CAMPAIGN_SALT).sign(str(campaign.pk))


def campaign_from_key(key: str) -> Campaign | None:
    try:
        pk = signing.Signer(salt=_CAMPAIGN_SALT).unsign(key)
    except signing.BadSignature:
        return None
    return Campaign.objects.filter(pk=pk).first()


def crowd_settings_for(campaign: Campaign) -> CrowdSettings:
    found = CrowdSettings.objects.filter(campaign=campaign).first()
    return found or CrowdSettings(campaign=campaign)


def visit_hit_limit(crowd: CrowdSettings, platform: str) -> int:
    """HITs a visit takes before its end page (0: until no work is left). MTurk: one (an MTurk
    assignment is one of our HITs); otherwise the campaign's setting, or when unset the platform's
    default (issue 40): an invite visit goes on until no work is left (a lab or a class session, where
    ending after one HIT stopped every student), a Prolific one takes one HIT."""
    if platform == Platform.MTURK:
        return 1
    if crowd.hits_per_visit is not None:
        return crowd.hits_per_visit
    return 0 if platform == Platform.INVITE else 1


def address_limits(crowd: CrowdSettings) -> tuple[int, int]:
    """The per-address limits in force (issue 40): (live HITs one address holds at once, new people a
    reusable link admits from one address a day); the campaign's, else the server's defaults
    (``LIVE_ASSIGNMENTS_PER_ADDRESS``, ``INVITE_IDENTITIES_PER_ADDRESS_PER_DAY``); 0 is no limit, and
    both are off on a shared network (where the link's seats bound it instead)."""
    if crowd.shared_network:
        return 0, 0
    live = settings.LIVE_ASSIGNMENTS_PER_ADDRESS if crowd.live_per_address is None else crowd.live_per_address
    day = crowd.identities_per_address_day
    return live, settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY if day is None else day


def mturk_submit_allowed(url: str) -> bool:
    """turkSubmitTo must be one of MTurk's hosts (settings CROWD_MTURK_SUBMIT_ORIGINS)."""
    parts = urlsplit(url or "")
    origin = f"{parts.scheme}://{parts.netloc}"
    allowed = settings.CROWD_MTURK_SUBMIT_ORIGINS
    return bool(parts.scheme in {"http", "https"} and parts.netloc) and origin in allowed


def mturk_submit_url(session: CrowdSession) -> str:
    return session.submit_to.rstrip("/") + "/mturk/externalSubmit"


# --------------------------------------------------------------------------- arrivals


def invite_links_create(
    *, campaign: Campaign, count: int, reusable: bool = False, label: str = ""
) -> list[InviteLink]:
    if not 1 <= count <= 1000:
        raise GecInputError("make 1 to 1000 links at a time")
    links = [
        InviteLink(campaign=campaign, code=secrets.token_urlsafe(18), reusable=reusable, label=label[:200])
        for _ in range(count)
    ]
    return InviteLink.objects.bulk_create(links)


@transaction.atomic
def invite_open(*, invite: InviteLink, resume: CrowdSession | None = None) -> CrowdSession:
    """A visit through an invite link: the link's one identity (single-use), or the visitor's
    identity remembered from an earlier visit (``resume``), or a new one (reusable)."""
    invite = InviteLink.objects.select_for_update().get(pk=invite.pk)
    if resume is not None and resume.campaign_id == invite.campaign_id and resume.platform == Platform.INVITE:
        if not invite.reusable and invite.worker_id not in (None, resume.worker_id):
            resume = None
        else:
            return resume
    if not invite.reusable and invite.worker_id:
        worker = invite.worker
        existing = (
            CrowdSession.objects.filter(campaign=invite.campaign, worker=worker).order_by("-created").first()
        )
        if existing is not None:
            return existing
    else:
        worker = crowd_worker_get_or_create(
            platform=Platform.INVITE, external_id=f"{invite.pk}-{secrets.token_hex(8)}"
        )
        if not invite.reusable:
            invite.worker = worker
    invite.uses += 1
    invite.save(update_fields=["worker", "uses"])
    return CrowdSession.objects.create(
        campaign=invite.campaign, worker=worker, platform=Platform.INVITE, external_session=invite.code
    )


def _platform_open(
    *, campaign: Campaign, platform: str, worker_id: str, session_id: str, study: str, submit_to: str = ""
) -> CrowdSession:
    worker = crowd_worker_get_or_create(platform=platform, external_id=worker_id)
    session_id = (session_id or "").strip()[:200]
    if session_id:
        found = CrowdSession.objects.filter(
            campaign=campaign, platform=platform, external_session=session_id
        ).first()
        if found is not None:
            if found.worker_id != worker.pk:
                raise GecInputError("this session belongs to another worker")
            return found
    try:
        with transaction.atomic():
            return CrowdSession.objects.create(
                campaign=campaign,
                worker=worker,
                platform=platform,
                external_session=session_id,
                study=(study or "")[:200],
                submit_to=submit_to,
            )
    except IntegrityError:  # the same session opened twice at once
        return CrowdSession.objects.get(campaign=campaign, platform=platform, external_session=session_id)


def prolific_open(*, campaign: Campaign, pid: str, study_id: str, session_id: str) -> CrowdSession:
    """Prolific's study URL: the worker is PROLIFIC_PID; SESSION_ID names this visit."""
    return _platform_open(
        campaign=campaign, platform=Platform.PROLIFIC, worker_id=pid, session_id=session_id, study=study_id
    )


def mturk_open(
    *, campaign: Campaign, worker_id: str, assignment_id: str, hit_id: str, submit_to: str
) -> CrowdSession:
    """An accepted MTurk assignment (never the preview): one session per assignmentId."""
    if not assignment_id or assignment_id == MTURK_PREVIEW:
        raise GecInputError("accept the HIT first")
    if not mturk_submit_allowed(submit_to):
        raise GecInputError("turkSubmitTo is not an MTurk address")
    return _platform_open(
        campaign=campaign,
        platform=Platform.MTURK,
        worker_id=worker_id,
        session_id=assignment_id,
        study=hit_id,
        submit_to=submit_to,
    )


# --------------------------------------------------------------------------- the visit


def session_consent(*, session: CrowdSession) -> CrowdSession:
    if session.consented is None:
        session.consented = timezone.now()
        session.save(update_fields=["consented"])
    return session


def session_finish(*, session: CrowdSession, outcome: str) -> CrowdSession:
    if session.finished is None:
        session.finished = timezone.now()
        session.outcome = outcome
        session.save(update_fields=["finished", "outcome"])
    return session


def _no_work_outcome(session: CrowdSession) -> str:
    campaign, user = session.campaign, session.worker.user
    if session_hits_done(session):
        return Outcome.COMPLETED
    if WorkerRecord.objects.filter(campaign=campaign, worker=user, excluded=True).exists():
        return Outcome.SCREENED_OUT
    if campaign.qualification_id and not qualification_granted(user, campaign.qualification):
        return Outcome.SCREENED_OUT
    return Outcome.NO_WORK


def session_hits_done(session: CrowdSession) -> int:
    return session.assignments.filter(status__in=FINISHED_STATUSES).count()


def _address_lock(session: CrowdSession) -> None:
    """Serialise claims from one address in one campaign (PostgreSQL; SQLite serialises writes)."""
    if connection.vendor != "postgresql":
        return
    group = address_group(session.client_address)
    digest = hashlib.sha256(f"{session.campaign_id}\x1f{group}".encode()).digest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)])


def _address_full(session: CrowdSession) -> bool:
    """This address holds the campaign's limit of live HITs (``address_limits``) already.

    Live: active and not overdue. Twelve cookie-less visits to one reusable link held all nine
    slots of a campaign before this (issue 18); now the third visit waits for one of the first two.
    Also live: finished and held until the platform confirms the submission (issue 35's review: made-up
    MTurk identities finished HITs in seconds and each held its slot until MTurk was asked).
    """
    limit = address_limits(crowd_settings_for(session.campaign))[0]
    if limit <= 0 or not session.client_address:
        return False
    group = address_group(session.client_address)
    live = Assignment.objects.filter(
        Q(status=AssignmentStatus.ACTIVE, expires__gte=timezone.now())
        | Q(status=AssignmentStatus.HELD, hold_reason=HoldReason.UNCONFIRMED),
        hit__campaign_id=session.campaign_id,
        crowd_sessions__campaign_id=session.campaign_id,
    )
    if group == session.client_address:  # IPv4: the address itself (indexed)
        return live.filter(crowd_sessions__client_address=group).distinct().count() >= limit
    # IPv6: every address of its /64 counts as one (the stored address stays the full one)
    held = live.filter(crowd_sessions__client_address__contains=":").values_list(
        "pk", "crowd_sessions__client_address"
    )
    return len({pk for pk, address in held if address_group(address) == group}) >= limit


def _session_takes(session: CrowdSession, assignment: Assignment) -> bool:
    """Link the assignment to the session unless it is another session's: the worker's live HIT
    (which assignment_request hands back) held by another of their sessions. The unique index on the
    assignment (migration 0006) decides a race; the M2M manager's add would ignore the conflict."""
    through = CrowdSession.assignments.through
    link = through(crowdsession_id=session.pk, assignment_id=assignment.pk)
    through.objects.bulk_create([link], ignore_conflicts=True)
    return (
        not through.objects.filter(assignment_id=assignment.pk).exclude(crowdsession_id=session.pk).exists()
    )


class AddressFull(NoWork):
    """Too many live HITs from this address: the visit stays open and may try again later."""


ADDRESS_FULL = (
    "Other HITs of this study are open from your network already. Finish or give back one of them, "
    "then reload this page."
)


def session_assignment(*, session: CrowdSession, address: str = "") -> Assignment | None:
    """The assignment to work on now, or None after finishing the session (outcome set), or None
    with ``session.foreign`` set when the worker's live HIT belongs to another of their sessions.

    MTurk sessions end after one HIT (one MTurk assignment = one of ours);
    others after ``visit_hit_limit`` HITs (0 = until no work is left). ``address``: the client's,
    for the limit of live HITs per address (``LIVE_ASSIGNMENTS_PER_ADDRESS``).
    """
    if session.finished:
        return None
    current = session.assignments.filter(status=AssignmentStatus.ACTIVE).select_related("hit").first()
    if current is not None:
        return current
    limit = visit_hit_limit(crowd_settings_for(session.campaign), session.platform)
    if limit and session_hits_done(session) >= limit:
        session_finish(session=session, outcome=Outcome.COMPLETED)
        return None
    if address and session.client_address != address:
        session.client_address = address[:64]
        session.save(update_fields=["client_address"])
    try:
        with transaction.atomic():
            _address_lock(session)
            if _address_full(session):
                raise AddressFull(ADDRESS_FULL)
            assignment = assignment_request(campaign=session.campaign, worker=session.worker.user)
            if not _session_takes(session, assignment):
                session.no_work_reason = FOREIGN
                session.foreign = True
                return None
    except NoWork as reason:
        outcome = Outcome.NO_WORK if isinstance(reason, AddressFull) else _no_work_outcome(session)
        if outcome == Outcome.NO_WORK:  # maybe later (paused, all slots taken): the visit stays open
            session.outcome = outcome
        else:
            session_finish(session=session, outcome=outcome)
        session.no_work_reason = str(reason)
        return None
    return assignment
