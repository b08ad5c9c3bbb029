"""The real processes tests start: stopping them (gunicorn, Celery, redis-server), a Python process
that measures its own peak memory (the upload bound's probes), gunicorn serving the test database."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
GUNICORN = Path(sys.executable).with_name("gunicorn")


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it has not gone within ``timeout`` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


def production_env(database_url: str, **extra: str) -> dict[str, str]:
    """This environment as a production process sees it: ``config.settings``, DEBUG off, a random
    SECRET_KEY (start-up refuses a weak one), no broker (tasks run in-process), ``database_url``;
    ``extra`` overrides any of them."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": database_url,
        **extra,
    }
    env.pop("CELERY_BROKER_URL", None)
    return env


_PEAK = """\
import json, os, sys, time
import django
django.setup()

def peak_kb():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))

{setup}
base = peak_kb()
started = time.monotonic()
error = ""
try:
{measured}
except {caught} as exc:
    error = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps({{"growth_mb": (peak_kb() - base) / 1024, "seconds": time.monotonic() - started,
                  "error": error}}))
"""


def peak_memory_probe(
    setup: str,
    measured: str,
    *args: str,
    database_url: str,
    label: str,
    caught: str = "GecInputError",
) -> dict:
    """Run ``measured`` in a fresh Python process (``production_env``) and return how far its peak
    resident size (``VmHWM``) grew meanwhile, in MB, the seconds it took and the error it ended with
    (``"Kind: message"`` of an exception of ``caught``, else ""): ``{"growth_mb", "seconds", "error"}``.
    ``setup`` runs first, outside the measure (imports, rows to read); ``sys.argv[1:]`` are ``args``.
    The figures are printed (``pytest -s``)."""
    script = _PEAK.format(
        setup=setup.strip(), measured=textwrap.indent(measured.strip(), "    "), caught=caught
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=REPO, env=production_env(database_url), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{label}: peak +{got['growth_mb']:.1f} MB, {got['seconds']:.2f} s, {got['error']!r}")
    return got


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(condition, timeout: float, what: str) -> None:
    """Wait until ``condition()`` holds; an AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.25)
    raise AssertionError(f"not within {timeout:.0f} s: {what}")


def wait_until(url: str, ok, timeout: float = 30.0, cookies=None) -> httpx.Response:
    """GET ``url`` until ``ok(response)``; its last response, or an AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = httpx.get(url, timeout=5, cookies=cookies)
            if ok(last):
                return last
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} never became ready: last {last and last.status_code}")


@contextmanager
def gunicorn_served(
    database_url: str, *, workers: int = 1, secret_key: str = "", **env: str
) -> Iterator[str]:
    """gunicorn with production settings over plain HTTP (``tests.hardening.fault_settings``, DEBUG
    off, cookies not Secure) on ``database_url``, at a free port of 127.0.0.1: its base URL once
    /healthz answers; stopped on leaving. ``secret_key``: when the test signs what the server reads
    (sessions, campaign keys); ``env``: more settings."""
    settings = {
        "DJANGO_SETTINGS_MODULE": "tests.hardening.fault_settings",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "LOG_LEVEL": "ERROR",
        **({"SECRET_KEY": secret_key} if secret_key else {}),
        **env,
    }
    port = free_port()
    server = subprocess.Popen(
        [str(GUNICORN), "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers), "--timeout", "30"],
        cwd=REPO, env=production_env(database_url, **settings), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until(f"{base}/healthz", lambda r: r.status_code == 200)
        yield base
    finally:
        stop(server, timeout=10)
