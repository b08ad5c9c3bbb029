"""Sessions with a short-lived copy in Redis (config/sessions.py), on a real redis-server of the test's
own: a logged-in request reads the copy instead of the session row, logout removes both, the copy
lives at most SESSION_CACHE_SECONDS, and with Redis stopped every page still works from the database.
"""

from __future__ import annotations

import pytest
import redis
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotate.models import Role
from tests.conftest import REAL_PARTS
from tests.factories import user
from tests.hardening.test_faults import PrivateRedis

pytestmark = [pytest.mark.django_db, pytest.mark.services]


@pytest.fixture
def cached_sessions(settings, tmp_path):
    server = PrivateRedis(tmp_path).start()
    REAL_PARTS["session cache"] = f"a private redis-server at {server.url}"
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.RedisCache",
            "LOCATION": server.url,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    settings.SESSION_ENGINE = "config.sessions"
    settings.SESSION_CACHE_SECONDS = 120
    yield server
    server.stop()


def session_reads(client: Client, path: str = "/") -> tuple[int, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(path)
    return response.status_code, sum("django_session" in q["sql"] for q in ctx.captured_queries)


def copies(server: PrivateRedis) -> dict[bytes, int]:
    r = redis.Redis.from_url(server.url)
    return {key: r.ttl(key) for key in r.keys("*gec.session.*")}


def test_a_logged_in_request_reads_the_copy_and_logout_removes_it(cached_sessions):
    worker = user("cached-w", Role.ANNOTATOR)
    browser = Client()
    browser.force_login(worker)
    assert session_reads(browser) == (200, 0)  # the copy written at login: no session row read
    kept = copies(cached_sessions)
    assert len(kept) == 1 and 0 < next(iter(kept.values())) <= 120  # short-lived, not the session's 2 weeks

    cached_sessions_client = redis.Redis.from_url(cached_sessions.url)
    cached_sessions_client.flushdb()  # the copy expired: the row is read and the copy made again
    assert session_reads(browser) == (200, 1)
    assert session_reads(browser) == (200, 0)

    old_cookie = browser.cookies["sessionid"].value
    assert browser.post("/accounts/logout/").status_code == 302
    assert copies(cached_sessions) == {}
    replay = Client()
    replay.cookies["sessionid"] = old_cookie  # the logged-out session is gone from both places
    assert replay.get("/").status_code == 302


def test_with_redis_stopped_pages_work_from_the_database(cached_sessions, caplog):
    worker = user("cached-down", Role.ANNOTATOR)
    browser = Client()
    browser.force_login(worker)
    cached_sessions.stop()
    assert session_reads(browser) == (200, 1)  # the row, read because the copy cannot be
    assert "session cache unavailable" in caplog.text
    assert browser.post("/accounts/logout/").status_code == 302  # the row is deleted all the same
    again = Client()
    again.force_login(worker)  # a new login saves the row; the copy is skipped with a warning
    assert session_reads(again) == (200, 1)


def test_the_cache_keeps_one_client_per_thread_and_survives_a_redis_restart(cached_sessions):
    """config/cache.py keeps the redis.Redis Django's backend made anew on every call: one per thread's
    cache object, and a kept client reconnects through its pool after the server comes back."""
    import threading

    from django.core.cache import caches

    cache = caches["default"]
    cache.set("kept", 1)
    assert cache._cache.get_client() is cache._cache.get_client(write=True)
    other = {}
    thread = threading.Thread(
        target=lambda: other.setdefault("client", caches["default"]._cache.get_client())
    )
    thread.start()
    thread.join()
    assert other["client"] is not cache._cache.get_client()

    kept = cache._cache.get_client()
    cached_sessions.stop()
    with pytest.raises(redis.ConnectionError):  # as from Django's backend; the sessions fall back
        cache.get("kept")
    cached_sessions.start()  # an empty server on the same port
    cache.set("back", 2)
    assert cache.get("back") == 2 and cache._cache.get_client() is kept
