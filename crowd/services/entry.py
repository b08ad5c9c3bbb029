"""Verified entry (issue 18): who may start a visit, checked before any session is made.

* A Prolific PID is bound to the first browser that uses it (a random id in a signed first-party
  cookie, ``CrowdSession.browser``) and to the Prolific study it came from. The same browser
  resumes its visit (a reload, a crash); another browser is refused while the visit is live, so a
  stolen PID cannot submit into its owner's HIT.
* A reusable invite link admits at most ``INVITE_IDENTITIES_PER_ADDRESS_PER_DAY`` new identities
  per client address in 24 hours: dropping its cookie no longer mints identities without end.
* An excluded worker is not admitted again: the same platform identity or single-use link leads
  back to the excluded identity (screened out); the same browser cannot take a new identity.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from crowd.models import CrowdSession, CrowdWorker, InviteLink, Platform
from crowd.services.sessions import invite_open, prolific_open
from geceval.errors import GecInputError
from ranking.models import AssignmentStatus, Campaign, WorkerRecord


class EntryRefused(GecInputError):
    """A visit that may not start; ``status`` is the HTTP status of the page that says why."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


EXCLUDED = "You cannot take part in this study again: an earlier visit from this browser was screened out."
OTHER_BROWSER = (
    "This Prolific ID is taking part in this study in another browser right now. Continue there; "
    "if that browser is gone, wait {minutes} minutes and open the study link again."
)
OTHER_STUDY = "This Prolific ID took part in this study through another Prolific study already."
ALREADY_USED = (
    "This link was already used. Each of these invite links is for one person: if you were invited, "
    "ask the researcher for a new link."
)
TOO_MANY = (
    "This link has admitted {limit} people from your network today. If you have an invitation of your "
    "own, use your own link, or try again tomorrow."
)


def browser_id_new() -> str:
    return secrets.token_hex(16)


def browser_excluded(campaign: Campaign, browser: str, *, except_worker: CrowdWorker | None = None) -> bool:
    """A worker excluded from this campaign opened a visit from this browser."""
    if not browser:
        return False
    users = CrowdSession.objects.filter(campaign=campaign, browser=browser)
    if except_worker is not None:
        users = users.exclude(worker=except_worker)
    return WorkerRecord.objects.filter(
        campaign=campaign, excluded=True, worker__in=users.values("worker__user")
    ).exists()


def session_live(session: CrowdSession) -> bool:
    """Not finished and holding a HIT (or opened within a lease and about to claim one)."""
    if session.finished is not None:
        return False
    now = timezone.now()
    if session.assignments.filter(status=AssignmentStatus.ACTIVE, expires__gte=now).exists():
        return True
    return session.created >= now - timedelta(minutes=max(1, settings.ASSIGNMENT_LEASE_MINUTES))


def prolific_enter(
    *, campaign: Campaign, pid: str, study_id: str, session_id: str, browser: str
) -> CrowdSession:
    """prolific_open behind the browser and study binding; EntryRefused when the visit may not start."""
    pid = (pid or "").strip()
    study_id = (study_id or "").strip()[:200]
    with transaction.atomic():
        worker = (
            CrowdWorker.objects.select_for_update()
            .filter(platform=Platform.PROLIFIC, external_id=pid)
            .first()
        )
        if browser_excluded(campaign, browser, except_worker=worker):
            raise EntryRefused(EXCLUDED, 403)
        mine = (
            list(CrowdSession.objects.filter(campaign=campaign, worker=worker).order_by("created"))
            if worker is not None
            else []
        )
        first_study = next((s.study for s in mine if s.study), "")
        if first_study and study_id and study_id != first_study:
            raise EntryRefused(OTHER_STUDY, 409)
        for session in reversed(mine):
            if not session_live(session):
                continue
            if session.browser and session.browser != browser:
                minutes = max(1, settings.ASSIGNMENT_LEASE_MINUTES)
                raise EntryRefused(OTHER_BROWSER.format(minutes=minutes), 409)
            if session.browser == browser or not session.browser:
                return _bind(session, browser)
        session = prolific_open(campaign=campaign, pid=pid, study_id=study_id, session_id=session_id)
        if session.browser and session.browser != browser:
            raise EntryRefused(OTHER_BROWSER.format(minutes=max(1, settings.ASSIGNMENT_LEASE_MINUTES)), 409)
        return _bind(session, browser)


def _bind(session: CrowdSession, browser: str) -> CrowdSession:
    if browser and not session.browser:
        session.browser = browser
        session.save(update_fields=["browser"])
    return session


def invite_enter(
    *, invite: InviteLink, resume: CrowdSession | None, browser: str, address: str
) -> CrowdSession:
    """invite_open behind the per-address limit of new identities and the excluded-browser rule."""
    campaign = invite.campaign
    resuming = (
        resume is not None and resume.campaign_id == invite.campaign_id and resume.platform == Platform.INVITE
    )
    new_identity = (invite.reusable and not resuming) or (not invite.reusable and invite.worker_id is None)
    own = resuming and resume.worker_id == invite.worker_id
    if not invite.reusable and invite.worker_id is not None and not own and _used_up(invite):
        raise EntryRefused(ALREADY_USED, 410)
    if new_identity:
        if browser_excluded(campaign, browser):
            raise EntryRefused(EXCLUDED, 403)
        limit = settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY
        if invite.reusable and limit > 0 and address:
            with transaction.atomic():
                InviteLink.objects.select_for_update().filter(pk=invite.pk).first()  # one count at a time
                today = CrowdSession.objects.filter(
                    campaign=campaign,
                    platform=Platform.INVITE,
                    external_session=invite.code,
                    client_address=address,
                    created__gte=timezone.now() - timedelta(days=1),
                ).count()
                if today >= limit:
                    raise EntryRefused(TOO_MANY.format(limit=limit), 429)
                return _address(_bind(invite_open(invite=invite, resume=resume), browser), address)
    return _address(_bind(invite_open(invite=invite, resume=resume), browser), address)


def _used_up(invite: InviteLink) -> bool:
    """A single-use link whose one visit ended (done, screened out or finished): a new browser
    is told the link was used, not shown the earlier visitor's end page."""
    return CrowdSession.objects.filter(
        campaign_id=invite.campaign_id,
        worker_id=invite.worker_id,
        platform=Platform.INVITE,
        finished__isnull=False,
    ).exists()


def _address(session: CrowdSession, address: str) -> CrowdSession:
    if address and not session.client_address:
        session.client_address = address[:64]
        session.save(update_fields=["client_address"])
    return session
