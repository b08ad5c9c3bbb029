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
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

REPO = Path(__file__).resolve().parents[1]


def database_url() -> str:
    """The test database (pytest-django's test_<name>) as a URL the worker's settings read."""
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Workers:
    def __init__(self, queue: str, extra_args: list[str]) -> None:
        self.queue = queue
        self.extra_args = extra_args
        self.env = dict(os.environ, DATABASE_URL=database_url(), CELERY_QUEUE=queue, DEBUG="true")
        self.started: list[tuple[subprocess.Popen, object]] = []

    def start(self) -> tuple[subprocess.Popen, object]:
        """Launch one worker and wait until it says it is ready; returns (process, log file)."""
        n = len(self.started)
        log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"celery-{self.queue}-{n}.log", "w+")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-Q", self.queue,
             *self.extra_args, "--without-gossip", "--without-mingle", "--loglevel=INFO",
             "-n", f"{self.queue}-{n}@%h"],
            cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.started.append((proc, log))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log.seek(0)
            if "ready." in log.read():
                return proc, log
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"celery worker exited early:\n{log.read()}")
            time.sleep(0.3)
        pytest.fail("celery worker did not become ready in 60 s")

    def stop_all(self) -> None:
        for proc, log in self.started:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
            log.close()


@contextmanager
def celery_workers(prefix: str = "test", extra_args: list[str] | None = None) -> Iterator[Workers]:
    from config.celery import app

    workers = Workers(f"{prefix}-{uuid.uuid4().hex[:8]}", extra_args or [])
    old_queue = app.conf.task_default_queue
    app.conf.task_always_eager = False
    app.conf.task_default_queue = workers.queue
    try:
        yield workers
    finally:
        app.conf.task_always_eager = True
        app.conf.task_default_queue = old_queue
        workers.stop_all()
