"""Verified entry (issue 18): who may start a visit, checked before any session is made.

* A Prolific PID is bound to the first browser that uses it (a random id in a signed first-party
  cookie, ``CrowdSession.browser``) and to the Prolific study it came from. The same browser
  resumes its visit (a reload, a crash); another browser is refused while the visit is live, so a
  stolen PID cannot submit into its owner's HIT.
* A reusable invite link admits at most ``INVITE_IDENTITIES_PER_ADDRESS_PER_DAY`` new identities
  per client address in 24 hours: dropping its cookie no longer mints identities without end. Issue 40:
  the limit is the campaign's (``CrowdSettings.identities_per_address_day``, the setting its default);
  on a shared network (a lab, a classroom: ``CrowdSettings.shared_network``) the address limits are
  off and the link admits at most ``CrowdSettings.seats`` identities in all, one per browser (a browser
  that dropped the link's cookie gets its identity back, not a new one).
* An excluded worker is not admitted again: the same platform identity or single-use link leads
  back to the excluded identity (screened out); the same browser cannot take a new identity.

Issue 35 binds the other identities the same way:

* An MTurk assignment belongs to the first browser that presents it (``mturk_enter``); a workerId
  alone never resumes another browser's HIT. In MTurk's third-party iframe the browser cookie may
  never come back (Safari, Brave and strict modes block it), so until a browser has sent its cookie
  back once (``CrowdSession.browser_proven``) its client address stands in for it.
* The same worker's new assignment in the same browser takes over the live HIT; the older session is
  superseded and its submits are refused with a page that says why.
* A Prolific PID whose visit ended opens no second session; a single-use link in use in one browser
  opens nothing in another.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotate.http import address_group
from crowd.models import CrowdSession, CrowdWorker, InviteLink, MturkHit, Platform
from crowd.services.sessions import (
    MTURK_PREVIEW,
    Outcome,
    address_limits,
    crowd_settings_for,
    invite_open,
    mturk_open,
    mturk_submit_allowed,
    prolific_open,
    session_finish,
)
from crowd.services.workers import check_external_id
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
SEATS_TAKEN = (
    "All {seats} places of this study's link are taken. If you were told to take part, ask the "
    "researcher for a place."
)
TOO_MANY = (
    "This link has admitted {limit} people from your network today. If you have an invitation of your "
    "own, use your own link, or try again tomorrow."
)


PROLIFIC_ENDED = (
    "This Prolific ID has finished its visit to this study. Each participant takes part once: if this is "
    "your ID and you did not finish, contact the researcher through Prolific."
)
IN_USE = (
    "This link is in use in another browser right now. Continue there; if that browser is gone, wait "
    "{minutes} minutes and open the link again."
)
MTURK_OTHER_BROWSER = (
    "This MTurk assignment is open in another browser. Continue there; if that browser is gone, return "
    "this HIT on MTurk and accept a new one."
)
MTURK_OTHER_WORKER = "This MTurk assignment belongs to another worker."
MTURK_NOT_OUR_HIT = "This link was not opened from one of this study's HITs on MTurk."
MTURK_HIT_ELSEWHERE = (
    "Your HIT of this study is open in another browser right now. Continue there; if that browser is "
    "gone, return this HIT on MTurk and try again in {minutes} minutes."
)


def browser_id_new() -> str:
    return secrets.token_hex(16)


@dataclass(frozen=True)
class Browser:
    """Who presents an identity, as the server sees it: the id in our signed cookie (``returned``:
    the request carried it; otherwise a new id) and the client address."""

    id: str
    returned: bool
    address: str


def same_browser(session: CrowdSession, browser: Browser) -> bool:
    """``browser`` is the one the session is bound to: its cookie when it sent one back, else (a
    browser that never did, as in MTurk's iframe with third-party cookies blocked) its address."""
    if browser.returned and session.browser:
        return browser.id == session.browser
    if session.browser_proven:
        return False
    return bool(browser.address) and browser.address[:64] == session.client_address


def _lease_minutes() -> int:
    return max(1, settings.ASSIGNMENT_LEASE_MINUTES)


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
    """Not finished, and holding a HIT or active within a lease (``last_active``: its last page view,
    heartbeat or submit, else its creation). Measured from the last activity, not the creation: a
    worker between two HITs, or an hour into a visit, is still in it (issue 35's review)."""
    if session.finished is not None:
        return False
    now = timezone.now()
    last = max(session.created, session.last_active or session.created)
    if last >= now - timedelta(minutes=_lease_minutes()):
        return True
    return session.assignments.filter(status=AssignmentStatus.ACTIVE, expires__gte=now).exists()


def session_touch(session: CrowdSession) -> None:
    """The session was active now (server time): a page view, a heartbeat or a submit. One UPDATE."""
    session.last_active = timezone.now()
    CrowdSession.objects.filter(pk=session.pk).update(last_active=session.last_active)


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
        ended = [s for s in mine if s.finished is not None]
        if ended:  # Prolific takes a participant once: their end page again, in their browser only
            own = next((s for s in reversed(ended) if s.browser and s.browser == browser), None)
            if own is None:
                raise EntryRefused(PROLIFIC_ENDED, 410)
            return own
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
    single = not invite.reusable and invite.worker_id is not None and not own
    if single and _used_up(invite):
        raise EntryRefused(ALREADY_USED, 410)
    if single:
        _single_use_take(invite, browser)
    if new_identity:
        if browser_excluded(campaign, browser):
            raise EntryRefused(EXCLUDED, 403)
        crowd = crowd_settings_for(campaign)
        if invite.reusable and crowd.shared_network:
            return _seat_take(invite, resume, browser, address, crowd.seats or 0)
        limit = address_limits(crowd)[1]
        if invite.reusable and limit > 0 and address:
            with transaction.atomic():
                InviteLink.objects.select_for_update().filter(pk=invite.pk).first()  # one count at a time
                sessions = CrowdSession.objects.filter(
                    campaign=campaign,
                    platform=Platform.INVITE,
                    external_session=invite.code,
                    created__gte=timezone.now() - timedelta(days=1),
                )
                group = address_group(address)
                if group == address:  # IPv4: the address itself
                    today = sessions.filter(client_address=address).count()
                else:  # IPv6: every address of its /64 counts as one
                    held = sessions.filter(client_address__contains=":").values_list(
                        "client_address", flat=True
                    )
                    today = sum(1 for a in held if address_group(a) == group)
                if today >= limit:
                    raise EntryRefused(TOO_MANY.format(limit=limit), 429)
                return _address(_bind(invite_open(invite=invite, resume=resume), browser), address)
    with transaction.atomic():  # the link's row stays locked (invite_open) until the browser is bound
        session = invite_open(invite=invite, resume=resume)
        if not invite.reusable and not own and session.browser and session.browser != browser:
            raise EntryRefused(IN_USE.format(minutes=_lease_minutes()), 409)  # opened at once elsewhere
        return _address(_bind(session, browser), address)


def _seat_take(
    invite: InviteLink, resume: CrowdSession | None, browser: str, address: str, seats: int
) -> CrowdSession:
    """A reusable link on a shared network: the browser's identity on this link if it has one, else a
    new one while the link has seats left (counted under the link's lock, so two at once cannot both
    take the last seat)."""
    with transaction.atomic():
        InviteLink.objects.select_for_update().filter(pk=invite.pk).first()
        taken = CrowdSession.objects.filter(
            campaign_id=invite.campaign_id, platform=Platform.INVITE, external_session=invite.code
        )
        own = taken.filter(browser=browser).order_by("-created").first() if browser else None
        if own is not None:
            return _address(own, address)
        if taken.values("worker_id").distinct().count() >= seats:
            raise EntryRefused(SEATS_TAKEN.format(seats=seats), 403)
        return _address(_bind(invite_open(invite=invite, resume=resume), browser), address)


def _single_use_take(invite: InviteLink, browser: str) -> None:
    """A single-use link opened without its owner's cookie: refused while the visit is live in another
    browser; a visit whose browser is gone (no live HIT) is this browser's from now on."""
    with transaction.atomic():
        current = (
            CrowdSession.objects.select_for_update()
            .filter(campaign_id=invite.campaign_id, worker_id=invite.worker_id, platform=Platform.INVITE)
            .order_by("-created")
            .first()
        )
        if current is None or not current.browser or current.browser == browser:
            return
        if session_live(current):
            raise EntryRefused(IN_USE.format(minutes=_lease_minutes()), 409)
        current.browser = browser
        current.save(update_fields=["browser"])


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


# --------------------------------------------------------------------------- MTurk


def mturk_enter(
    *, campaign: Campaign, worker_id: str, assignment_id: str, hit_id: str, submit_to: str, browser: Browser
) -> CrowdSession:
    """mturk_open behind the browser binding; EntryRefused when the visit may not start.

    The first browser to present an assignmentId owns its session; the same browser resumes it (a
    reload, the tab opened again from MTurk's queue), any other is refused. A new assignmentId of a
    worker whose HIT is live in another session: refused from another browser (a workerId is no
    secret); from the same browser it takes that HIT over and the older session is superseded.
    """
    assignment_id = (assignment_id or "").strip()[:200]
    if not assignment_id or assignment_id == MTURK_PREVIEW:
        raise GecInputError("accept the HIT first")
    worker_id = check_external_id(Platform.MTURK, worker_id)
    if not mturk_submit_allowed(submit_to):
        raise GecInputError("turkSubmitTo is not an MTurk address")
    hit_id = (hit_id or "").strip()[:64]
    if not mturk_hit_ours(campaign, hit_id):
        raise EntryRefused(MTURK_NOT_OUR_HIT, 403)
    with transaction.atomic():
        found = _mturk_session(campaign, assignment_id)
        if found is None:
            worker = (
                CrowdWorker.objects.select_for_update()
                .filter(platform=Platform.MTURK, external_id=worker_id)
                .first()
            )
            held = _live_sessions(campaign, worker) if worker is not None else []
            if any(not same_browser(s, browser) for s in held):
                raise EntryRefused(MTURK_HIT_ELSEWHERE.format(minutes=_lease_minutes()), 409)
            found = mturk_open(
                campaign=campaign,
                worker_id=worker_id,
                assignment_id=assignment_id,
                hit_id=hit_id,
                submit_to=submit_to,
            )
            if not found.browser:  # new (a concurrent request may have made and bound it)
                found.browser, found.browser_proven = browser.id, browser.returned
                found.client_address = browser.address[:64]
                found.save(update_fields=["browser", "browser_proven", "client_address"])
                for older in held:
                    _take_over(older, found)
                return found
        if found.worker.external_id != worker_id:
            raise EntryRefused(MTURK_OTHER_WORKER, 409)
        if not same_browser(found, browser):
            raise EntryRefused(MTURK_OTHER_BROWSER, 409)
        if browser.returned and not found.browser_proven:
            found.browser_proven = True
            found.save(update_fields=["browser_proven"])
        return found


def mturk_hit_ours(campaign: Campaign, hit_id: str) -> bool:
    """``hit_id`` is one of the MTurk HITs this campaign published (``MturkHit``). A campaign that
    published none here (its HITs made by hand on MTurk, the sandbox, tests) takes any non-empty
    hitId; confirmation then compares MTurk's answer with that one (crowd/services/confirmation.py)."""
    if not hit_id:
        return False
    published = MturkHit.objects.filter(campaign=campaign)
    return not published.exists() or published.filter(hit_id=hit_id).exists()


def _mturk_session(campaign: Campaign, assignment_id: str) -> CrowdSession | None:
    return (
        CrowdSession.objects.select_for_update(of=("self",))
        .filter(campaign=campaign, platform=Platform.MTURK, external_session=assignment_id)
        .select_related("worker")
        .first()
    )


def _live_sessions(campaign: Campaign, worker: CrowdWorker) -> list[CrowdSession]:
    """The worker's MTurk sessions in the campaign that are live (``session_live``: holding a live
    HIT, or opened less than a lease ago and about to claim one, e.g. at the consent page)."""
    unfinished = CrowdSession.objects.filter(
        campaign=campaign, worker=worker, platform=Platform.MTURK, finished__isnull=True
    )
    return [s for s in unfinished if session_live(s)]


def _take_over(older: CrowdSession, newer: CrowdSession) -> None:
    """The newer session continues the older one's live HIT; the older one is superseded."""
    live = list(older.assignments.filter(status=AssignmentStatus.ACTIVE))
    older.assignments.remove(*live)
    newer.assignments.add(*live)
    session_finish(session=older, outcome=Outcome.SUPERSEDED)
