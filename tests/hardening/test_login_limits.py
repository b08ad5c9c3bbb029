"""Every endpoint that takes a password goes through one limiter (config/security.py, issue 18).

The site's login, the admin's login and a DRF token endpoint (none is routed today; one mounted in a
test URLconf proves that any added one is limited by the authentication backend), with the same
settings: 5 failures per address and username, 50 per address over all usernames, 15 minutes.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import path
from rest_framework.authtoken.views import obtain_auth_token

from tests import factories

pytestmark = pytest.mark.django_db

urlpatterns = [path("token/", obtain_auth_token)]


@pytest.fixture(autouse=True)
def limits(settings):
    cache.clear()
    settings.LOGIN_FAILURES_MAX = 5
    settings.LOGIN_FAILURES_MAX_PER_IP = 50
    settings.LOGIN_FAILURES_WINDOW_SECONDS = 900
    yield
    cache.clear()


@pytest.fixture
def staff():
    user = factories.user("root-rl", "researcher", password="right-pass-123")
    user.is_staff = user.is_superuser = True
    user.save(update_fields=["is_staff", "is_superuser"])
    return user


def _post(url, username, password, ip="10.0.0.7", client=None):
    return (client or Client()).post(url, {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_the_admin_login_is_limited_like_the_site_login(staff):
    for _ in range(5):
        assert _post("/admin/login/", "root-rl", "wrong").status_code == 200
    client = Client()
    locked = _post("/admin/login/", "root-rl", "right-pass-123", client=client)
    assert locked.status_code == 429
    assert int(locked["Retry-After"]) == 900
    assert "Too many login attempts" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    # One limiter: failures on the admin login lock the site login for the same user, and back.
    assert _post("/accounts/login/", "root-rl", "right-pass-123").status_code == 429
    assert _post("/admin/login/", "root-rl", "right-pass-123", ip="10.0.0.8").status_code == 302


def test_site_login_failures_lock_the_admin_login(staff):
    for _ in range(5):
        assert _post("/accounts/login/", "root-rl", "wrong").status_code == 200
    assert _post("/admin/login/", "root-rl", "right-pass-123").status_code == 429


def test_sixty_admin_failures_then_the_right_password_is_refused(staff):
    """The finding: 60 wrong passwords on /admin/login/, then the right one, logged in."""
    codes = [_post("/admin/login/", "root-rl", f"wrong{i}").status_code for i in range(60)]
    assert codes == [200] * 5 + [429] * 55
    assert _post("/admin/login/", "root-rl", "right-pass-123").status_code == 429


@pytest.mark.urls("tests.hardening.test_login_limits")
def test_a_drf_token_endpoint_is_limited_by_the_authentication_backend(staff):
    for _ in range(5):
        assert _post("/token/", "root-rl", "wrong").status_code == 400
    # The sixth attempt with the right password gets no token: the backend refuses before checking it.
    refused = _post("/token/", "root-rl", "right-pass-123")
    assert refused.status_code == 400
    assert "token" not in refused.json()
    assert "token" in _post("/token/", "root-rl", "right-pass-123", ip="10.0.0.9").json()


def test_sixty_six_failures_over_several_usernames_trigger_the_per_address_limit(staff):
    """The finding: 66 failures over six usernames; each username locked after 5, and the attempts
    refused for that lock were not counted for the address, so it never reached 50."""
    for name in ("u1", "u2", "u3", "u4", "u5", "u6"):
        for _ in range(11):
            _post("/accounts/login/", name, "wrong")
    assert _post("/accounts/login/", "root-rl", "right-pass-123").status_code == 429
    assert _post("/admin/login/", "root-rl", "right-pass-123").status_code == 429
    # Another address is not affected.
    assert _post("/accounts/login/", "root-rl", "right-pass-123", ip="10.0.0.10").status_code == 302


def test_the_per_address_limit_counts_failures_on_every_endpoint(staff):
    for i in range(25):
        _post("/accounts/login/", f"s{i}", "wrong")
        _post("/admin/login/", f"a{i}", "wrong")
    assert _post("/accounts/login/", "root-rl", "right-pass-123").status_code == 429


def test_forty_nine_failures_over_usernames_still_let_a_user_in(staff):
    for i in range(49):
        assert _post("/accounts/login/", f"x{i}", "wrong").status_code == 200
    assert _post("/accounts/login/", "root-rl", "right-pass-123").status_code == 302
