"""Workers' pages for crowd platforms: invite links, Prolific, MTurk ExternalQuestion.

No login and no cookie carries the visit: the signed session token is in the
URL (see crowd.services.sessions for why these views are csrf_exempt). The
MTurk views may be framed, only by MTurk's worker sites (CSP frame-ancestors,
settings CROWD_MTURK_FRAME_ANCESTORS); every other page keeps X-Frame-Options
DENY.
"""

from __future__ import annotations

from urllib.parse import urlencode

from csp.constants import NONE
from django.conf import settings
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from annotate.http import client_address
from crowd.models import CrowdSession, InviteLink, Platform
from crowd.services.entry import (
    Browser,
    EntryRefused,
    browser_id_new,
    invite_enter,
    mturk_enter,
    prolific_enter,
    session_touch,
)
from crowd.services.sessions import (
    MTURK_PREVIEW,
    SUPERSEDED,
    Outcome,
    campaign_from_key,
    crowd_settings_for,
    mturk_submit_url,
    session_assignment,
    session_consent,
    session_finish,
    session_from_token,
    session_hits_done,
    session_token,
    visit_hit_limit,
)
from geceval.errors import GecInputError
from ranking.models import FINISHED_STATUSES, LIVE_CAMPAIGN_STATUSES, AssignmentStatus
from ranking.preview import campaign_preview
from ranking.views.work import (
    heartbeat_context,
    heartbeat_response,
    screen_context,
    screen_form_submit,
    work_template,
)
from ranking.work.assignments import assignment_screen_and_progress

INVITE_COOKIE = "crowd_invite_{campaign}"


def _frame_headers(response: HttpResponse, mturk: bool) -> HttpResponse:
    if mturk:
        ancestors = settings.CROWD_MTURK_FRAME_ANCESTORS
        response.xframe_options_exempt = True
    else:
        ancestors = [NONE]
    # What django-csp's @csp_replace sets; here the platform is known only inside the view.
    response._csp_replace = {"frame-ancestors": list(ancestors)}
    response["Referrer-Policy"] = "no-referrer"  # the URL carries the session token
    return response


def _session_url(session: CrowdSession) -> str:
    return reverse("crowd-session", args=[session_token(session)])


# --------------------------------------------------------------------------- arrivals


BROWSER_COOKIE = "crowd_browser"


def _browser(request: HttpRequest) -> str:
    """This browser's random id (signed first-party cookie), or a new one."""
    found = request.get_signed_cookie(BROWSER_COOKIE, default="", salt=BROWSER_COOKIE)
    return found if len(found) == 32 else browser_id_new()


def _remember_browser(request: HttpRequest, response: HttpResponse, browser: str) -> HttpResponse:
    response.set_signed_cookie(
        BROWSER_COOKIE,
        browser,
        salt=BROWSER_COOKIE,
        max_age=365 * 86400,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return response


MTURK_BROWSER_COOKIE = "crowd_browser_mturk"
_YEAR = 365 * 86400


def _mturk_browser(request: HttpRequest) -> Browser:
    """The browser in MTurk's iframe: the id in its cookie if it sent one back, and its address."""
    found = _mturk_cookie(request)
    return Browser(id=found or browser_id_new(), returned=bool(found), address=client_address(request))


def _mturk_cookie(request: HttpRequest) -> str:
    found = request.get_signed_cookie(MTURK_BROWSER_COOKIE, default="", salt=MTURK_BROWSER_COOKIE)
    return found if len(found) == 32 else ""


def _remember_mturk_browser(request: HttpRequest, response: HttpResponse, browser: Browser) -> HttpResponse:
    """The browser cookie for a page framed by worker.mturk.com, a third-party context.

    SameSite=Lax or Strict cookies are never sent in a cross-site iframe, so over HTTPS the cookie is
    SameSite=None; Secure and Partitioned (CHIPS: kept per top-level site, which browsers that block
    third-party cookies still allow; Python 3.11's http.cookies cannot write the attribute, hence
    the header by hand). Browsers that send none back are told apart by their address
    (``crowd.services.entry.same_browser``). Plain HTTP (development) gets a Lax cookie."""
    if not request.is_secure():
        response.set_signed_cookie(
            MTURK_BROWSER_COOKIE,
            browser.id,
            salt=MTURK_BROWSER_COOKIE,
            max_age=_YEAR,
            httponly=True,
            samesite="Lax",
        )
        return response
    value = signing.get_cookie_signer(salt=MTURK_BROWSER_COOKIE * 2).sign(browser.id)
    response["Set-Cookie"] = (
        f"{MTURK_BROWSER_COOKIE}={value}; Max-Age={_YEAR}; Path=/; HttpOnly; Secure; SameSite=None; Partitioned"
    )
    return response


def _refused(request: HttpRequest, campaign, exc: GecInputError, *, mturk: bool = False) -> HttpResponse:
    status = getattr(exc, "status", 400)
    page = render(request, "crowd/problem.html", {"campaign": campaign, "problem": str(exc)}, status=status)
    return _frame_headers(page, mturk)


@never_cache
def invite_entry(request: HttpRequest, code: str) -> HttpResponse:
    invite = get_object_or_404(InviteLink.objects.select_related("campaign", "worker"), code=code)
    cookie = INVITE_COOKIE.format(campaign=invite.campaign_id)
    remembered = request.get_signed_cookie(cookie, default=None, salt=cookie)
    resume = session_from_token(remembered) if remembered else None
    browser = _browser(request)
    try:
        session = invite_enter(invite=invite, resume=resume, browser=browser, address=client_address(request))
    except EntryRefused as exc:
        return _remember_browser(request, _refused(request, invite.campaign, exc), browser)
    response = redirect(_session_url(session))
    # First-party cookie (not framed): a reusable link resumes the visitor's identity.
    response.set_signed_cookie(
        cookie,
        session_token(session),
        salt=cookie,
        max_age=30 * 86400,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )
    return _remember_browser(request, _frame_headers(response, mturk=False), browser)


@never_cache
def prolific_entry(request: HttpRequest, key: str) -> HttpResponse:
    campaign = campaign_from_key(key)
    if campaign is None:
        raise Http404("no such study")
    browser = _browser(request)
    try:
        session = prolific_enter(
            campaign=campaign,
            pid=request.GET.get("PROLIFIC_PID", ""),
            study_id=request.GET.get("STUDY_ID", ""),
            session_id=request.GET.get("SESSION_ID", ""),
            browser=browser,
        )
    except GecInputError as exc:
        return _remember_browser(request, _refused(request, campaign, exc), browser)
    return _remember_browser(request, _frame_headers(redirect(_session_url(session)), mturk=False), browser)


@csrf_exempt
@never_cache
def mturk_entry(request: HttpRequest, key: str) -> HttpResponse:
    """The ExternalQuestion URL. Preview (ASSIGNMENT_ID_NOT_AVAILABLE): an example screen
    (``ranking.preview``), no work."""
    campaign = campaign_from_key(key)
    if campaign is None:
        raise Http404("no such task")
    assignment_id = request.GET.get("assignmentId", "")
    if not assignment_id or assignment_id == MTURK_PREVIEW:
        # Never a screen of the pool (its first was often a trap): the researcher's example or ours.
        context = {
            "campaign": campaign,
            "settings_": crowd_settings_for(campaign),
            "example": campaign_preview(campaign),
        }
        return _frame_headers(render(request, "crowd/mturk_preview.html", context), mturk=True)
    browser = _mturk_browser(request)
    try:
        session = mturk_enter(
            campaign=campaign,
            worker_id=request.GET.get("workerId", ""),
            assignment_id=assignment_id,
            hit_id=request.GET.get("hitId", ""),
            submit_to=request.GET.get("turkSubmitTo", ""),
            browser=browser,
        )
    except GecInputError as exc:
        return _remember_mturk_browser(request, _refused(request, campaign, exc, mturk=True), browser)
    return _remember_mturk_browser(
        request, _frame_headers(redirect(_session_url(session)), mturk=True), browser
    )


# --------------------------------------------------------------------------- the visit


def _end(request: HttpRequest, session: CrowdSession) -> HttpResponse:
    crowd = crowd_settings_for(session.campaign)
    mturk = session.platform == Platform.MTURK
    if session.platform == Platform.PROLIFIC and session.outcome in (Outcome.COMPLETED, Outcome.SCREENED_OUT):
        code = (
            crowd.prolific_completed_code
            if session.outcome == Outcome.COMPLETED
            else crowd.prolific_screened_out_code
        )
        if code:
            base = settings.CROWD_PROLIFIC_COMPLETION_URL
            return _frame_headers(HttpResponseRedirect(f"{base}?{urlencode({'cc': code})}"), mturk=False)
    context = {
        "campaign": session.campaign,
        "session": session,
        "outcome": session.outcome,
        "code": crowd.completion_code if session.outcome == Outcome.COMPLETED else "",
        "hits_done": session_hits_done(session),
        "reason": getattr(session, "no_work_reason", ""),
        "submit_url": mturk_submit_url(session) if mturk else "",
        "mturk": mturk,
    }
    return _frame_headers(render(request, "crowd/end.html", context), mturk=mturk)


@csrf_exempt
@never_cache
def session_view(request: HttpRequest, token: str) -> HttpResponse:
    session = session_from_token(token)
    if session is None:
        raise Http404("this link is not valid (or has expired)")
    campaign = session.campaign
    mturk = session.platform == Platform.MTURK
    crowd = crowd_settings_for(campaign)
    if session.outcome == Outcome.SUPERSEDED:
        return _not_saved(request, session, SUPERSEDED)
    if session.finished is None:
        session_touch(session)  # a page view or a submit: the visit is live (entry.session_live)
    if mturk and not session.browser_proven and session.browser and _mturk_cookie(request) == session.browser:
        # The browser keeps our cookie in MTurk's frame: from now on the cookie alone tells it apart.
        CrowdSession.objects.filter(pk=session.pk).update(browser_proven=True)

    if session.consented is None:
        if request.method == "POST" and request.POST.get("consent") == "yes":
            session_consent(session=session)
            return _frame_headers(redirect(request.path), mturk)
        error = "Tick the box to agree before you start." if request.method == "POST" else None
        context = {"campaign": campaign, "crowd": crowd, "error": error, "mturk": mturk}
        return _frame_headers(
            render(request, "crowd/consent.html", context, status=400 if error else 200), mturk
        )

    if request.method == "POST" and request.POST.get("action") == "finish" and not mturk:
        session_finish(
            session=session, outcome=Outcome.COMPLETED if session_hits_done(session) else Outcome.NO_WORK
        )
    if session.finished is None and request.GET.get("done") and not mturk:
        limit = visit_hit_limit(crowd, session.platform)
        done = session_hits_done(session)
        if campaign.status in LIVE_CAMPAIGN_STATUSES and (not limit or done < limit):
            context = {"campaign": campaign, "hits_done": done, "limit": limit}
            return _frame_headers(render(request, "crowd/hit_done.html", context), mturk)

    assignment = session_assignment(session=session, address=client_address(request))
    if assignment is None and getattr(session, "foreign", False):
        return _not_saved(request, session, session.no_work_reason)
    if assignment is None:
        return _end(request, session)

    error = None
    if request.method == "POST" and request.POST.get("screen"):
        error, saved = screen_form_submit(request, assignment=assignment, worker=session.worker.user)
        if saved:
            if assignment.status in FINISHED_STATUSES:
                return _frame_headers(redirect(request.path + ("" if mturk else "?done=1")), mturk)
            return _frame_headers(redirect(request.path), mturk)
        assignment.refresh_from_db()
        if assignment.status != AssignmentStatus.ACTIVE:
            return _frame_headers(redirect(request.path), mturk)
    screen, done, total = assignment_screen_and_progress(assignment)
    if screen is None:  # every screen judged: the assignment is submitted
        return _frame_headers(redirect(request.path), mturk)
    # No "assignment" in the context: the give-back form of ranking's page needs a login.
    context = screen_context(campaign, screen, assignment) | {
        "done": done,
        "total": total,
        "error": error,
        "crowd_page": True,
    }
    context |= heartbeat_context(reverse("crowd-heartbeat", args=[token]))
    return _frame_headers(
        render(request, work_template(campaign), context, status=400 if error else 200), mturk
    )


def _not_saved(request: HttpRequest, session: CrowdSession, why: str) -> HttpResponse:
    """A session that may no longer work on its HIT: why, and (409) that a posted answer was refused."""
    status = 409 if request.method == "POST" else 200
    context = {"campaign": session.campaign, "problem": why}
    page = render(request, "crowd/problem.html", context, status=status)
    return _frame_headers(page, session.platform == Platform.MTURK)


@csrf_exempt
@never_cache
@require_POST
def session_heartbeat(request: HttpRequest, token: str) -> HttpResponse:
    """The task page is still open: renew the lease of the session's open HIT (409 if none)."""
    session = session_from_token(token)
    if session is None:
        raise Http404("this link is not valid (or has expired)")
    if session.finished is None and session.outcome != Outcome.SUPERSEDED:
        session_touch(session)
    current = (
        session.assignments.filter(status=AssignmentStatus.ACTIVE).select_related("hit__campaign").first()
    )
    return _frame_headers(heartbeat_response(current), session.platform == Platform.MTURK)
