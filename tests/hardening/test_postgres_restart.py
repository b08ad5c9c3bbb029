"""A real PostgreSQL restart under a running gunicorn (issue 9, faults).

The machine's PostgreSQL is shared and never stopped: this test makes a private cluster
(initdb into a temporary directory, a free port, as the ``postgres`` user when run as root),
migrates it, loads the demo data and serves it with gunicorn in production mode. It stops the
cluster (pages answer a clear 503), starts it again, and the very next request must succeed:
persistent connections (CONN_MAX_AGE) that died with the old server are noticed and replaced
(CONN_HEALTH_CHECKS), with no restart of gunicorn and no manual step.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg2
import pytest

from tests.conftest import REAL_PARTS, skip_or_fail
from tests.processes import free_port, gunicorn_served, production_env

REPO = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql")

pytestmark = [pytest.mark.slow, pytest.mark.services]


def _pg_bin() -> Path:
    versions = sorted(PG_BIN.glob("*/bin/pg_ctl"), key=lambda p: int(p.parts[-3]))
    if versions:
        return versions[-1].parent
    found = shutil.which("initdb")  # not Debian's layout
    if not found:
        skip_or_fail("needs PostgreSQL's server binaries (apt-get install postgresql)")
    return Path(found).parent


class PrivateCluster:
    def __init__(self) -> None:
        self.bin = _pg_bin()
        self.port = free_port()
        self.as_root = os.getuid() == 0
        self.dir = Path(tempfile.mkdtemp(prefix="gec-pg-"))
        if self.as_root:  # initdb refuses to run as root
            shutil.chown(self.dir, "postgres", "postgres")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/gec_restart"

    def _run(self, *args: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        subprocess.run([*prefix, *args], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")  # fmt: skip

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-o", options, "-l",
                  str(self.dir / "server.log"), "-w", "start")  # fmt: skip

    def restart(self) -> None:
        # -l as for start: without it the new server keeps our pipes open and run() never returns
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"),
                  "-m", "fast", "-w", "restart")  # fmt: skip

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # not running
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


MAKE_SESSION = """
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from ranking.models import Campaign
user = get_user_model().objects.get(username="researcher")
store = SessionStore()
store["_auth_user_id"] = str(user.pk)
store["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]
store["_auth_user_hash"] = user.get_session_auth_hash()
store.create()
print(store.session_key, Campaign.objects.order_by("pk").first().pk)
"""


@pytest.fixture
def served_by_private_cluster():
    if not shutil.which("runuser") and os.getuid() == 0:
        skip_or_fail("needs runuser to run initdb as postgres")
    cluster = PrivateCluster()
    try:
        cluster.init()
        cluster.start()
        admin = psycopg2.connect(host="127.0.0.1", port=cluster.port, user="postgres", dbname="postgres")
        admin.autocommit = True
        with admin.cursor() as cursor:
            cursor.execute("CREATE DATABASE gec_restart")
        admin.close()
        secret_key = secrets.token_urlsafe(50)
        env = production_env(
            cluster.url,
            DJANGO_SETTINGS_MODULE="tests.hardening.fault_settings",
            SECRET_KEY=secret_key,
            LOG_LEVEL="ERROR",
        )
        _manage(env, "migrate", "--noinput")
        _manage(env, "load_demo", "--i-know-this-is-production")
        session_key, campaign_id = _manage(env, "shell", "-c", MAKE_SESSION).splitlines()[-1].split()
        # one sync process: every request after the restart uses the same persistent connection
        with gunicorn_served(cluster.url, secret_key=secret_key) as base:
            REAL_PARTS["postgres restart"] = (
                f"a private PostgreSQL cluster ({cluster.bin}) stopped and started"
            )
            yield cluster, base, {"sessionid": session_key}, int(campaign_id)
    finally:
        cluster.remove()


def test_postgres_stopped_pages_answer_503_and_after_a_restart_the_next_request_succeeds(
    served_by_private_cluster,
):
    cluster, base, cookies, campaign_id = served_by_private_cluster
    page = f"{base}/campaigns/{campaign_id}/"
    with httpx.Client(base_url=base, cookies=cookies, timeout=15) as client:
        for _ in range(3):  # the persistent connection is open and in use
            assert client.get(page).status_code == 200

        cluster.stop()
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json()["database"] == "down"
        down = client.get(page)
        assert down.status_code == 503 and down.headers["retry-after"] == "30"
        assert "briefly unavailable" in down.text and "Traceback" not in down.text

        started = time.monotonic()
        cluster.start()
        # No retry loop: the first request after the server is back must already succeed.
        back = client.get(page)
        assert back.status_code == 200, back.text[:500]
        assert "Demo PRWS judgments" in back.text
        assert client.get("/healthz").json()["database"] == "ok"
        assert time.monotonic() - started < 30

        # A quick restart between two requests: the server's persistent connection died with the
        # old server process while nobody was asking; the next request must not inherit it.
        assert client.get(page).status_code == 200
        cluster.restart()
        again = client.get(page)
        assert again.status_code == 200, again.text[:500]
