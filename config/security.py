"""Two production guards: a Content-Security-Policy header and a login rate limit.

CSP (django-csp): every asset is served from our own static files (no CDN) and
templates load JavaScript from files only, so the policy allows 'self' and
nothing inline. ``CONTENT_SECURITY_POLICY`` holds it as the header text (one
environment variable replaces it whole); ``CSP_ENABLED`` (production) sends it
and ``CSP_REPORT_ONLY`` sends it as Content-Security-Policy-Report-Only. A view
replaces single directives with django-csp's ``@csp_replace`` (the MTurk pages'
``frame-ancestors``, the stricter policy of SVG plots) or by writing the header
itself; its directives win, the site policy fills in the others, and they are
enforced even where the site policy is off or only reported. ``@csp_exempt()``
leaves a response alone.

Login rate limit: failed logins are counted per client IP and username (``LOGIN_FAILURES_MAX`` in
``LOGIN_FAILURES_WINDOW_SECONDS``) and per client IP over all usernames (``LOGIN_FAILURES_MAX_PER_IP``,
against password spraying), and per account over every address (issue 36: after
``LOGIN_ACCOUNT_DELAY_AFTER`` failures each attempt waits an increasing delay, a lock after
``LOGIN_ACCOUNT_LOCK_AFTER``; annotate.accounts.logins). Past a per-address limit, POSTs to the login
pages (the site's and the admin's) answer 429 without checking the password until the window ends;
an account that must wait answers 429 with "try again in N s" and ``Retry-After: N`` (a locked one
403), whatever the address and even with the right password; no process sleeps. A successful login
clears its IP+username count and the account's failures. Counting happens in the authentication
backend (RateLimitedModelBackend), so every endpoint that checks a password (an API token endpoint
too) shares the counts; refused attempts count for the address. The client's address is the one the
trusted proxies saw (``TRUSTED_PROXY_COUNT``, annotate.http.client_address), an IPv6 one counted by its
/64 (``address_group``). The per-address counts
live in the default cache (``CACHE_URL``: Redis, shared by the web processes); while it cannot be
reached they are kept in the database instead (a warning is logged), so an outage lets no guess through.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.template import engines

from annotate.accounts.logins import (
    Refusal,
    account_failed,
    account_gate,
    account_succeeded,
    counter_bump,
    counter_clear,
    counter_get,
)
from annotate.first_account import setup_open
from annotate.http import address_group, client_address
from annotate.roles import user_with_roles

log = logging.getLogger(__name__)


def csp_directives(policy: str) -> dict[str, list[str]]:
    """Header text -> django-csp directives; a repeated directive keeps its first value, as browsers do."""
    out: dict[str, list[str]] = {}
    for part in policy.split(";"):
        words = part.split()
        if words:
            out.setdefault(words[0].lower(), words[1:])
    return out


def _policy(site: dict[str, list[str]], own: dict[str, list[str]]) -> str:
    header = build_policy(config=site, replace=own)
    if not header:
        return ""
    # django-csp 4.0 joins directives in set order, which changes from one process to the next:
    # write the view's own directives first, then the site's, each in the order they were given.
    rank = {name: i for i, name in enumerate([*own, *(name for name in site if name not in own)])}
    return "; ".join(sorted(header.split("; "), key=lambda d: rank[d.split(" ", 1)[0]]))


def csp_merge(ours: str, theirs: str) -> str:
    """The view's own directives win; ours fill in the ones it does not name."""
    return _policy(csp_directives(ours), csp_directives(theirs))


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware with the policy of settings.CONTENT_SECURITY_POLICY, on when CSP_ENABLED."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if getattr(response, "_csp_exempt", False):
            return response
        parts = self.get_policy_parts(request=request, response=response)
        own = {**csp_directives(response.get(HEADER, "")), **(parts.replace or {})}
        site = csp_directives(settings.CONTENT_SECURITY_POLICY) if settings.CSP_ENABLED else {}
        if site and settings.CSP_REPORT_ONLY:
            response[HEADER_REPORT_ONLY] = _policy(site, own)
            site = {}
        if site or own:
            response[HEADER] = _policy(site, own)
        return response


# ----------------------------------------------------------------------------- login rate limit

_LOCKED_PAGE = engines["django"].from_string(
    '{% extends "base.html" %}{% block title %}Too many attempts · GEC Arena{% endblock %}'
    '{% block content %}<h1>Too many login attempts</h1><p class="error" role="alert">'
    "Too many failed logins from your address for this account. Wait {{ minutes }} minute{{ minutes|pluralize }} "
    "and try again, or ask your researcher to reset your password.</p>"
    '<p><a href="{% url "login" %}">Back to the login page</a></p>{% endblock %}'
)


_ACCOUNT_PAGE = engines["django"].from_string(
    '{% extends "base.html" %}{% block title %}Login paused · GEC Arena{% endblock %}'
    '{% block content %}{% if refusal.locked %}<h1>This account is locked</h1><p class="error" role="alert">'
    "There were too many wrong passwords for this account, so nobody can log in to it, not even with the "
    "right password. Its owner has been sent a link by e-mail that lifts the lock; an administrator can "
    "also lift it on the account's page.</p>{% else %}<h1>Too many wrong passwords for this account</h1>"
    '<p class="error" role="alert">Logins to this account are slowed down after many wrong passwords. '
    "Try again in {{ refusal.retry_after }} second{{ refusal.retry_after|pluralize }}: any attempt before then "
    "is refused, even with the right password.</p>{% endif %}"
    '<p><a href="{% url "login" %}">Back to the login page</a></p>{% endblock %}'
)


def client_ip(request: HttpRequest) -> str:
    return client_address(request)


def _key(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"login-failures:{digest}"


def _keys(request: HttpRequest, username: object) -> tuple[str, str]:
    ip = address_group(client_ip(request))  # an IPv6 client counts by its /64
    name = str(username if username is not None else "").strip().lower()[:300]
    return _key("user", ip, name), _key("ip", ip)


def login_limited(request: HttpRequest, username: object) -> bool:
    """True when this address is past a limit, for this username or over all usernames.

    A refused attempt counts for the address: an attacker who keeps trying locked usernames was
    otherwise never counted past 5 per username, so 66 attempts over six usernames left the address
    at 30 of its 50 and a seventh username could still be tried (issue 18).
    """
    if settings.LOGIN_FAILURES_MAX <= 0:
        return False
    user_key, ip_key = _keys(request, username)
    limited = (
        counter_get(user_key) >= settings.LOGIN_FAILURES_MAX
        or counter_get(ip_key) >= settings.LOGIN_FAILURES_MAX_PER_IP
    )
    if limited:
        counter_bump(ip_key, settings.LOGIN_FAILURES_WINDOW_SECONDS)
    return limited


def login_failed(request: HttpRequest, username: object, *, account: bool = True) -> None:
    if account:
        account_failed(username, request)
    if settings.LOGIN_FAILURES_MAX <= 0:
        return
    window = settings.LOGIN_FAILURES_WINDOW_SECONDS
    for key in _keys(request, username):
        counter_bump(key, window)


def login_succeeded(request: HttpRequest, username: object) -> None:
    counter_clear(_keys(request, username)[0])


class RateLimitedModelBackend(ModelBackend):
    """ModelBackend behind the login limiter: every password check of the site goes through here.

    The site's login, the admin's login, DRF's ``obtain_auth_token`` and anything else that calls
    ``authenticate(request, username=..., password=...)`` is counted and refused by the same rule,
    so a new endpoint that takes a password cannot bypass the limit. Past a limit the password is
    not checked (PermissionDenied makes ``authenticate`` return None at once); the HTML login views
    are also wrapped in ``rate_limited_login`` so that they answer 429 with a page.
    """

    def get_user(self, user_id):
        """The session's user with their roles in one query (annotate.roles.user_with_roles)."""
        user = user_with_roles(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if request is None:  # a shell or a command: nothing to count against
            return super().authenticate(request, username=username, password=password, **kwargs)
        if login_limited(request, username):
            log.warning("login rate limit reached for %s", client_ip(request))
            raise PermissionDenied("too many failed logins")
        refusal = account_gate(username)
        if refusal is not None:  # the account waits or is locked, whatever the address: no password checked
            request.login_refusal = refusal
            login_failed(request, username, account=False)  # counts for the address, not the account
            raise PermissionDenied("this account must wait")
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            login_failed(request, username)
        else:
            login_succeeded(request, username)
            account_succeeded(username)
        return user


def locked_response(request: HttpRequest) -> HttpResponse:
    window = settings.LOGIN_FAILURES_WINDOW_SECONDS
    html = _LOCKED_PAGE.render({"minutes": max(1, round(window / 60))}, request)
    response = HttpResponse(html, status=429)
    response["Retry-After"] = str(window)
    return response


def account_refused_response(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    """The account waits (429, "try again in N s", Retry-After N) or is locked (403, how to lift it)."""
    html = _ACCOUNT_PAGE.render({"refusal": refusal}, request)
    if refusal.locked:
        return HttpResponse(html, status=403)
    response = HttpResponse(html, status=429)
    response["Retry-After"] = str(refusal.retry_after)
    return response


def rate_limited_login(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap an HTML login view: POSTs past the limits answer 429 with a page and Retry-After.

    Counting is the authentication backend's (RateLimitedModelBackend), shared by every endpoint.
    """

    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method != "POST":
            return view(request, *args, **kwargs)
        if login_limited(request, request.POST.get("username", "")):  # False when LOGIN_FAILURES_MAX <= 0
            log.warning("login rate limit reached for %s", client_ip(request))
            return locked_response(request)
        response = view(request, *args, **kwargs)
        refusal = getattr(request, "login_refusal", None)  # set by the backend: the account must wait
        return account_refused_response(request, refusal) if refusal is not None else response

    wrapped.__name__ = getattr(view, "__name__", "login")
    wrapped.__doc__ = view.__doc__
    return wrapped


class LoginView(auth_views.LoginView):
    """Django's login page; on an installation with no account yet it points to the set-up page."""

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {"setup_open": setup_open()}


login_view = rate_limited_login(LoginView.as_view())
admin_login_view = rate_limited_login(admin.site.login)


# ----------------------------------------------------------------------------- database outage

_UNAVAILABLE_PAGE = engines["django"].from_string(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Back soon · GEC Arena</title>'
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>'
    "<h1>GEC Arena is briefly unavailable</h1><p>The database cannot be reached. Nothing you saved is lost: "
    "wait a minute and reload this page.</p></main></body></html>"
)


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database answers 503 with Retry-After and a plain page.

    Django closes a broken connection at the end of the request and reconnects on the next, so
    recovery needs no restart. The page extends no template and reads no session: both may need the database.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.error("database unavailable: %s", exception)
        response = HttpResponse(_UNAVAILABLE_PAGE.render({}), status=503)
        response["Retry-After"] = "30"
        response["Cache-Control"] = "no-store"
        return response
