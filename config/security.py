"""Two production guards: a Content-Security-Policy header and a login rate limit.

CSP: every asset is served from our own static files (no CDN) and templates
load JavaScript from files only, so the policy allows 'self' and nothing
inline. A view that sets its own Content-Security-Policy keeps its directives
(the MTurk pages set ``frame-ancestors`` for MTurk's sites, SVG plots a stricter
policy); ours only adds the directives it does not name.

Login rate limit: failed logins are counted in the cache per client IP and
username (``LOGIN_FAILURES_MAX`` in ``LOGIN_FAILURES_WINDOW_SECONDS``) and per
client IP over all usernames (``LOGIN_FAILURES_MAX_PER_IP``, against password
spraying). Past a limit, POSTs to the login page answer 429 without checking
the password until the window ends; a successful login clears its
IP+username count. The counts live in the default cache: set ``CACHE_URL`` to
Redis when several web processes serve the site, or each process counts alone.
A cache that cannot be reached does not lock anybody out (the login proceeds
and a warning is logged).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.template import engines

log = logging.getLogger(__name__)


def _directives(policy: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in policy.split(";"):
        part = part.strip()
        if part:
            name = part.split()[0].lower()
            out.setdefault(name, part)
    return out


def csp_merge(ours: str, theirs: str) -> str:
    """The view's own directives win; ours fill in the ones it does not name."""
    mine = _directives(ours)
    given = _directives(theirs)
    merged = list(given.values()) + [d for name, d in mine.items() if name not in given]
    return "; ".join(merged)


class ContentSecurityPolicyMiddleware:
    """Adds settings.CONTENT_SECURITY_POLICY to every response when CSP_ENABLED (production)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not getattr(settings, "CSP_ENABLED", False):
            return response
        policy = settings.CONTENT_SECURITY_POLICY
        header = (
            "Content-Security-Policy-Report-Only" if getattr(settings, "CSP_REPORT_ONLY", False) else None
        )
        existing = response.get("Content-Security-Policy")
        if header:
            response[header] = policy
        elif existing:
            response["Content-Security-Policy"] = csp_merge(policy, existing)
        else:
            response["Content-Security-Policy"] = policy
        return response


# ----------------------------------------------------------------------------- login rate limit

_LOCKED_PAGE = engines["django"].from_string(
    '{% extends "base.html" %}{% block title %}Too many attempts · GEC Arena{% endblock %}'
    '{% block content %}<h1>Too many login attempts</h1><p class="error" role="alert">'
    "Too many failed logins from your address for this account. Wait {{ minutes }} minute{{ minutes|pluralize }} "
    "and try again, or ask your researcher to reset your password.</p>"
    '<p><a href="{% url "login" %}">Back to the login page</a></p>{% endblock %}'
)


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or the header the TLS proxy sets (LOGIN_CLIENT_IP_HEADER, e.g. HTTP_X_REAL_IP)."""
    header = getattr(settings, "LOGIN_CLIENT_IP_HEADER", "")
    if header and request.META.get(header):
        return request.META[header].split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "")


def _key(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"login-failures:{digest}"


def _keys(request: HttpRequest) -> tuple[str, str]:
    ip = client_ip(request)
    username = str(request.POST.get("username", "")).strip().lower()[:300]
    return _key("user", ip, username), _key("ip", ip)


def _count(key: str) -> int:
    try:
        return int(cache.get(key, 0))
    except Exception:  # a cache outage must not lock everybody out
        log.warning("login rate limit: cache unavailable, not counting", exc_info=True)
        return 0


def _bump(key: str, window: int) -> None:
    try:
        if not cache.add(key, 1, timeout=window):
            cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window)
    except Exception:
        log.warning("login rate limit: cache unavailable, not counting", exc_info=True)


def login_limited(request: HttpRequest) -> bool:
    user_key, ip_key = _keys(request)
    return (
        _count(user_key) >= settings.LOGIN_FAILURES_MAX
        or _count(ip_key) >= settings.LOGIN_FAILURES_MAX_PER_IP
    )


def rate_limited_login(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap a login view: refuse POSTs past the limits with 429, count failures, clear on success."""

    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method != "POST" or settings.LOGIN_FAILURES_MAX <= 0:
            return view(request, *args, **kwargs)
        window = settings.LOGIN_FAILURES_WINDOW_SECONDS
        if login_limited(request):
            log.warning("login rate limit reached for %s", client_ip(request))
            html = _LOCKED_PAGE.render({"minutes": max(1, round(window / 60))}, request)
            response = HttpResponse(html, status=429)
            response["Retry-After"] = str(window)
            return response
        response = view(request, *args, **kwargs)
        user_key, ip_key = _keys(request)
        if response.status_code == 302 and request.user.is_authenticated:
            try:
                cache.delete(user_key)
            except Exception:
                log.warning("login rate limit: cache unavailable", exc_info=True)
        else:
            _bump(user_key, window)
            _bump(ip_key, window)
        return response

    wrapped.__name__ = getattr(view, "__name__", "login")
    wrapped.__doc__ = view.__doc__
    return wrapped


login_view = rate_limited_login(auth_views.LoginView.as_view())


# ----------------------------------------------------------------------------- database outage

_UNAVAILABLE_PAGE = engines["django"].from_string(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Back soon · GEC Arena</title>'
    '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>'
    "<h1>GEC Arena is briefly unavailable</h1><p>The database cannot be reached. Nothing you saved is lost: "
    "wait a minute and reload this page.</p></main></body></html>"
)


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database answers 503 with Retry-After and a plain page.

    Not in MIDDLEWARE yet (config/settings.py is owned by the lead): add
    ``"config.security.DatabaseUnavailableMiddleware"`` after SecurityMiddleware. Django closes a
    broken connection at the end of the request and reconnects on the next, so recovery needs
    no restart. The page extends no template and reads no session: both may need the database.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.db import InterfaceError, OperationalError

        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.error("database unavailable: %s", exception)
        response = HttpResponse(_UNAVAILABLE_PAGE.render({}), status=503)
        response["Retry-After"] = "30"
        response["Cache-Control"] = "no-store"
        return response
