"""Real `celery worker` processes for tests, on the test database and a queue of the test's own.

Tasks sent from the test process go to that queue (eager mode is switched off
meanwhile); every worker started is stopped at the end, even when the test fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest
from django.db import connection

from tests.processes import stop

REPO = Path(__file__).resolve().parents[1]


def database_url() -> str:
    """The test database (pytest-django's test_<name>) as a URL the worker's settings read."""
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Workers:
    def __init__(self, queue: str, extra_args: list[str], broker_url: str | None = None) -> None:
        self.queue = queue
        self.extra_args = extra_args
        self.env = dict(os.environ, DATABASE_URL=database_url(), CELERY_QUEUE=queue, DEBUG="true")
        if broker_url:
            self.env["CELERY_BROKER_URL"] = broker_url
        self.started: list[tuple[subprocess.Popen, object]] = []

    def _launch(self, kind: str, args: list[str], ready: str, env: dict) -> tuple[subprocess.Popen, object]:
        n = len(self.started)
        log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"celery-{self.queue}-{kind}-{n}.log", "w+")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", kind, *args, "--loglevel=INFO"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.started.append((proc, log))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log.seek(0)
            if ready in log.read():
                return proc, log
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"celery {kind} exited early:\n{log.read()}")
            time.sleep(0.3)
        pytest.fail(f"celery {kind} did not become ready in 60 s")

    def start(self, **env: str) -> tuple[subprocess.Popen, object]:
        """Launch one worker and wait until it says it is ready; returns (process, log file). ``env``
        adds settings (the worker's own: the tasks it runs read them)."""
        n = len(self.started)
        args = ["--pool=solo", "-Q", self.queue, *self.extra_args, "--without-gossip", "--without-mingle",
                "-n", f"{self.queue}-{n}@%h"]  # fmt: skip
        return self._launch("worker", args, "ready.", dict(self.env, **env))

    def start_beat(self, schedule_dir: Path, **env: str) -> tuple[subprocess.Popen, object]:
        """Launch `celery beat` (the production schedule, sent to this queue); ``env`` adds settings."""
        args = ["--schedule", str(schedule_dir / "celerybeat-schedule")]
        return self._launch("beat", args, "beat: Starting", dict(self.env, **env))

    def stop_all(self) -> None:
        for proc, log in self.started:
            stop(proc)
            log.close()


def _forget_connections(app) -> None:
    # Both caches keep a connection to the broker of the first publish: without this a test that
    # points the app elsewhere still publishes to the old broker (e.g. RabbitMQ's default URL).
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def broker_at(url: str, **conf) -> Iterator[None]:
    """Tasks sent from this process go to ``url`` (not run eagerly) until the block ends."""
    from config.celery import app

    conf = {"broker_url": url, "task_always_eager": False, **conf}
    saved = {key: app.conf[key] for key in conf}
    saved_env = os.environ.get("CELERY_BROKER_URL")
    # Celery reads the CELERY_BROKER_URL variable before its own setting (Settings.broker_url).
    os.environ["CELERY_BROKER_URL"] = url
    app.conf.update(conf)
    _forget_connections(app)
    try:
        assert app.conf.broker_url == url
        yield
    finally:
        if saved_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = saved_env
        app.conf.update(saved)
        _forget_connections(app)


@contextmanager
def celery_workers(
    prefix: str = "test", extra_args: list[str] | None = None, broker_url: str | None = None
) -> Iterator[Workers]:
    """Workers on a queue of their own; ``broker_url`` points them and this process at another broker."""
    from config.celery import app

    workers = Workers(f"{prefix}-{uuid.uuid4().hex[:8]}", extra_args or [], broker_url)
    old_queue = app.conf.task_default_queue
    app.conf.task_always_eager = False
    app.conf.task_default_queue = workers.queue
    try:
        with broker_at(broker_url) if broker_url else nullcontext():
            yield workers
    finally:
        app.conf.task_always_eager = True
        app.conf.task_default_queue = old_queue
        workers.stop_all()
