"""CSRF on every state change, the production Content-Security-Policy and the login rate limit."""

from __future__ import annotations

import contextlib
import re

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client, RequestFactory

from config.security import ContentSecurityPolicyMiddleware, csp_merge
from tests.hardening.matrixworld import matrix_world, params_for, user_for
from tests.hardening.test_permissions import expected
from tests.hardening.urlmap import url_for, walk_routes

pytestmark = pytest.mark.django_db

# Views that take no session: the signed token in their URL is the credential (crowd/views_work.py).
TOKEN_VIEWS = {"crowd-invite", "crowd-prolific", "crowd-mturk", "crowd-session", "crowd-heartbeat"}


# ----------------------------------------------------------------------------------------- CSRF


@pytest.mark.parametrize("role", ["worker", "expert", "researcher", "admin"])
def test_every_post_without_a_csrf_token_is_refused(role):
    world = matrix_world()
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(user_for(world, role))
    values = params_for(world)
    accepted = {}
    for route in walk_routes():
        if route.name in TOKEN_VIEWS:
            continue
        code = client.post(url_for(route, values), {"status": "closed", "name": "x"}).status_code
        if code != 403:
            accepted[route.name] = code
    assert accepted == {}


def test_token_views_refuse_bogus_tokens_with_or_without_csrf():
    world = matrix_world()
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    values = params_for(world)
    for route in walk_routes():
        if route.name in TOKEN_VIEWS:
            assert client.post(url_for(route, values)).status_code in (403, 404), route.name


def test_a_post_with_the_token_goes_through(client):
    world = matrix_world()
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.researcher)
    page = client.get(f"/campaigns/{world.campaign.pk}/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    response = client.post(
        f"/campaigns/{world.campaign.pk}/status/", {"csrfmiddlewaretoken": token, "status": "paused"}
    )
    assert response.status_code == 302
    world.campaign.refresh_from_db()
    assert world.campaign.status == "paused"


def test_login_itself_needs_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    assert client.post("/accounts/login/", {"username": "x", "password": "y"}).status_code == 403


# ------------------------------------------------------------------------------------------ CSP


def test_production_sends_the_content_security_policy(client, settings):
    settings.CSP_ENABLED = True
    response = client.get("/accounts/login/")
    policy = response["Content-Security-Policy"]
    assert policy == settings.CONTENT_SECURITY_POLICY
    for directive in (
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ):
        assert directive in policy
    assert "unsafe-inline" not in policy and "http" not in policy  # nothing inline, no CDN


def test_development_sends_no_policy_and_report_only_mode_reports(client, settings):
    settings.CSP_ENABLED = False
    assert "Content-Security-Policy" not in client.get("/accounts/login/")
    settings.CSP_ENABLED = True
    settings.CSP_REPORT_ONLY = True
    response = client.get("/accounts/login/")
    assert "Content-Security-Policy" not in response
    assert response["Content-Security-Policy-Report-Only"] == settings.CONTENT_SECURITY_POLICY


def test_a_views_own_frame_ancestors_survive_and_the_rest_is_filled_in(settings):
    settings.CSP_ENABLED = True

    def mturk_view(request):
        response = HttpResponse("ok")
        response["Content-Security-Policy"] = "frame-ancestors https://worker.mturk.com"
        return response

    response = ContentSecurityPolicyMiddleware(mturk_view)(RequestFactory().get("/"))
    policy = response["Content-Security-Policy"]
    assert "frame-ancestors https://worker.mturk.com" in policy
    assert "frame-ancestors 'none'" not in policy
    assert "script-src 'self'" in policy
    assert csp_merge("a 1; b 2", "b 3") == "b 3; a 1"


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/(?:ld\+)?json)[^>]*>", re.I)
STYLE_ATTR = re.compile(r"<[a-z][^>]*\sstyle=", re.I)
HANDLER_ATTR = re.compile(r"<[a-z][^>]*\son[a-z]+=", re.I)
JS_URL = re.compile(r"""(?:href|src|action)=["']?\s*javascript:""", re.I)

# Pages that a strict CSP (no 'unsafe-inline') would partly block today (none).
KNOWN_INLINE: dict[str, str] = {}


@pytest.mark.parametrize("role", ["worker", "expert", "researcher"])
def test_pages_have_no_inline_script_style_or_handler_a_strict_policy_would_block(role):
    world = matrix_world()
    client = Client()
    client.force_login(user_for(world, role))
    values = params_for(world)
    table = expected()
    offenders = {}
    for route in walk_routes():
        if route.name == "logout" or table[route.name][role][0] != 200:
            continue
        response = client.get(url_for(route, values))
        if response.streaming or not response["Content-Type"].startswith("text/html"):
            continue
        body = response.content.decode()
        found = [
            kind
            for kind, pattern in (
                ("inline <script>", INLINE_SCRIPT),
                ("style= attribute", STYLE_ATTR),
                ("on*= handler", HANDLER_ATTR),
                ("javascript: URL", JS_URL),
            )
            if pattern.search(body)
        ]
        if found and route.name not in KNOWN_INLINE:
            offenders[route.name] = found
    assert offenders == {}


# ------------------------------------------------------------------------------- login rate limit


@pytest.fixture
def login_user(settings):
    from tests import factories

    cache.clear()
    settings.LOGIN_FAILURES_MAX = 5
    settings.LOGIN_FAILURES_MAX_PER_IP = 50
    settings.LOGIN_FAILURES_WINDOW_SECONDS = 900
    yield factories.user("alice-rl", "annotator", password="right-pass-123")
    with contextlib.suppress(Exception):  # the outage test points the cache at nothing
        cache.clear()


def _login(client, username, password, ip="10.0.0.1"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_five_failures_lock_the_username_from_that_address_even_with_the_right_password(client, login_user):
    for _ in range(5):
        assert _login(client, "alice-rl", "wrong").status_code == 200  # the form again, with its error
    locked = _login(client, "alice-rl", "right-pass-123")
    assert locked.status_code == 429
    assert "Too many login attempts" in locked.content.decode()
    assert 'href="/accounts/login/"' in locked.content.decode()
    assert int(locked["Retry-After"]) == 900
    assert "_auth_user_id" not in client.session
    # Another address, or the same address for another account, is not locked.
    assert _login(Client(), "alice-rl", "right-pass-123", ip="10.0.0.2").status_code == 302
    assert _login(Client(), "bob", "wrong").status_code == 200
    # When the window ends (the cache entry expires) the account can log in again.
    cache.clear()
    assert _login(client, "alice-rl", "right-pass-123").status_code == 302


def test_the_username_is_compared_case_insensitively(client, login_user):
    for name in ("alice-rl", "ALICE-RL", "Alice-Rl ", "alice-RL", "aLiCe-rl"):
        _login(client, name, "wrong")
    assert _login(client, "alice-rl", "right-pass-123").status_code == 429


def test_a_success_clears_the_count(client, login_user):
    for _ in range(4):
        _login(client, "alice-rl", "wrong")
    assert _login(client, "alice-rl", "right-pass-123").status_code == 302
    client.logout()
    for _ in range(4):
        assert _login(client, "alice-rl", "wrong").status_code == 200
    assert _login(client, "alice-rl", "right-pass-123").status_code == 302


def test_password_spraying_from_one_address_is_capped(client, login_user, settings):
    settings.LOGIN_FAILURES_MAX_PER_IP = 3
    for i in range(3):
        assert _login(client, f"user{i}", "wrong").status_code == 200
    assert _login(client, "alice-rl", "right-pass-123").status_code == 429


def test_a_cache_outage_counts_in_the_database_instead(client, login_user, settings):
    """Issue 36: with the cache down every guess went through; now the database keeps the counts."""
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    for _ in range(5):
        assert _login(client, "alice-rl", "wrong").status_code == 200
    assert _login(client, "alice-rl", "right-pass-123").status_code == 429
    assert _login(Client(), "alice-rl", "right-pass-123", ip="10.0.0.2").status_code == 302


def test_gets_are_never_limited(client, login_user, settings):
    settings.LOGIN_FAILURES_MAX_PER_IP = 1
    _login(client, "x", "wrong")
    assert client.get("/accounts/login/", REMOTE_ADDR="10.0.0.1").status_code == 200


def test_api_docs_load_their_script_from_a_url_so_the_policy_allows_it(client, settings):
    """config/urls.py serves SpectacularSwaggerSplitView: the initialiser is a same-origin script."""
    settings.CSP_ENABLED = True
    world = matrix_world()
    client.force_login(world.researcher)
    page = client.get("/api/docs/").content.decode()
    assert not INLINE_SCRIPT.search(page)
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and "javascript" in script["Content-Type"]
