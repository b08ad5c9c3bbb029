"""Shared fixtures: real services when configured, Chromium for browser tests.

Without DATABASE_URL / CELERY_BROKER_URL the suite runs on SQLite with eager
Celery and skips the real-service tests with a reason; with CI=true such a
skip is a failure, so CI cannot silently stop at the embedded default.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls the
# tests make between browser steps are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
DATABASE_URL = os.environ.get("DATABASE_URL", "")
BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


REAL_PARTS: dict[str, str] = {}
"""What real services a run used, printed at the end so a CI log shows it."""


@pytest.hookimpl(trylast=True)  # after pytest-django's own order (by kind of database use), kept within
def pytest_collection_modifyitems(items) -> None:
    """Files with a test marked slow or browser run first, each file's tests in their own order: under
    ``--dist loadfile`` a long file handed out last keeps one process busy while the other has nothing
    left, so the long ones go first and the many short files even out the end (the Makefile passes
    ``--no-loadscope-reorder``: pytest-xdist would otherwise hand out the files with most tests first)."""
    long_files = {
        item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("browser")
    }
    items.sort(key=lambda item: item.path not in long_files)  # stable: the rest keeps the collection order


def pytest_terminal_summary(terminalreporter) -> None:
    terminalreporter.section("real parts used")
    if not REAL_PARTS:
        from django.conf import settings

        engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        eager = "eager Celery" if settings.CELERY_TASK_ALWAYS_EAGER else "Celery to its broker"
        terminalreporter.write_line(f"no real-service test ran (database engine {engine}, {eager})")
    for name, detail in sorted(REAL_PARTS.items()):
        terminalreporter.write_line(f"{name}: {detail}")


def pytest_sessionfinish(session) -> None:
    """Under pytest-xdist each worker process hands what it used to the controller, which prints it."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["real_parts"] = dict(REAL_PARTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    REAL_PARTS.update(getattr(node, "workeroutput", {}).get("real_parts", {}))


def skip_or_fail(reason: str) -> None:
    """Skip locally; in CI a missing real part is a failure, not a skip."""
    if IN_CI:
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


@pytest.fixture
def real_postgres():
    from django.db import connection

    if connection.vendor != "postgresql":
        skip_or_fail(f"needs PostgreSQL (DATABASE_URL unset; running on {connection.vendor})")
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        REAL_PARTS["database"] = f"{cursor.fetchone()[0].split(',')[0]} ({connection.settings_dict['NAME']})"
    return connection


@pytest.fixture
def real_redis():
    if not BROKER_URL.startswith("redis"):
        skip_or_fail("needs Redis (CELERY_BROKER_URL unset)")
    import redis

    client = redis.Redis.from_url(BROKER_URL, socket_connect_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        skip_or_fail(f"Redis at {BROKER_URL} did not answer: {exc}")
    REAL_PARTS["redis"] = f"Redis {client.info('server')['redis_version']} at {BROKER_URL}"
    return client


@pytest.fixture(autouse=True)
def _role_groups(request):
    """The role groups come from a data migration; a transactional test's flush removes them, so a
    later test would find none. Recreate them for every database test."""
    marker = request.node.get_closest_marker("django_db")
    wants_db = marker is not None or {"db", "transactional_db", "live_server"} & set(request.fixturenames)
    if not wants_db:
        return
    transactional = (marker is not None and marker.kwargs.get("transaction")) or {
        "transactional_db",
        "live_server",
    } & set(request.fixturenames)
    request.getfixturevalue("transactional_db" if transactional else "db")
    from django.contrib.auth.models import Group

    from annotate.models import Role

    for role in Role.values:
        Group.objects.get_or_create(name=role)


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory):
    """Uploads kept between requests (MEDIA_ROOT) go to a temporary directory, not the repository."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def _geceval_cache(monkeypatch, tmp_path_factory):
    """geceval's disk cache (issue 43) goes to a fresh temporary folder per test, never ~/.cache: a
    test computes what it checks unless it fills the cache itself. ``configure(None)`` undoes the
    app's pinning to its setting, so the variable decides, for this process and the commands a test
    starts, and a test may point it elsewhere with monkeypatch.setenv."""
    from geceval import cache

    folder = tmp_path_factory.mktemp("geceval-cache")
    monkeypatch.setenv("GECEVAL_CACHE", str(folder))
    cache.configure(None)
    yield folder
    cache.configure(None)


@pytest.fixture(autouse=True)
def _eager_celery(settings):
    """Tasks run in-process unless a test asks for the real worker (``celery_worker``)."""
    from celery.result import allow_join_result

    from config.celery import app

    # Celery's "inside a task" flag is one global that each eager run sets and puts back; two threads
    # running eager tasks at once (a live server's and the test's) can put back the other's True,
    # after which every later ``.get()`` in this process says "Never call result.get() within a task".
    # The test process is never a worker: each test runs outside a task (Celery's own switch).
    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    with allow_join_result():
        yield
    app.conf.task_always_eager = True


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not CHROMIUM:
        skip_or_fail("Debian's chromium is not installed (make test installs it when it may)")
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import expect, sync_playwright

    # expect() waits 5 s unless told; a page served by this process's live server while the other
    # test process (pytest-xdist) runs something heavy can take longer: as long as a page action may
    expect.set_options(timeout=15_000)

    # launch() gives Chromium a fresh temporary user-data dir of its own and removes it after.
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        REAL_PARTS["browser"] = f"{chromium_path} (Chromium {browser.version}, headless, via Playwright)"
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser, tmp_path: Path):
    contexts = []

    def make():
        context = browser.new_context(accept_downloads=True, viewport={"width": 1100, "height": 900})
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
