"""What the benchmarks that drive a real server share (bench/load_workers.py, bench/bots.py): a fresh
database of their own, workers with sessions, gunicorn on PostgreSQL and Redis on loopback, and the
database checks that every run ends with, and a Celery worker on the run's own queue.

Every function here works on the database and the broker queue it is given and nothing else.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlparse, urlunparse

REPO = Path(__file__).resolve().parents[1]

FAULT_SETTINGS = "tests.hardening.fault_settings"  # production settings, static files without collectstatic
"""The settings gunicorn runs with: the production ones, with static files served without a
collectstatic step."""


def add_service_args(parser, *, database: str, cache: bool = False) -> None:
    """The options every benchmark that makes its own database takes: ``--pg-url`` (default:
    DATABASE_URL's server), ``--database`` (made fresh, dropped first), ``--broker-url`` and, with
    ``cache``, ``--cache-url`` (fill it in with :func:`cache_url_default` after parsing)."""
    parser.add_argument(
        "--pg-url", default=os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    )
    parser.add_argument("--database", default=database, help="database created (dropped first) for the run")
    parser.add_argument(
        "--broker-url", default=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    )
    if cache:
        parser.add_argument(
            "--cache-url",
            default=None,
            help="the web processes' shared cache, as CACHE_URL (default: db 1 of the broker's Redis, as "
            "docker-compose.yml gives them; '' for none)",
        )


def cache_url_default(args) -> None:
    """``--cache-url`` left out: db 1 of the broker's Redis (none without a Redis broker)."""
    if args.cache_url is None:
        args.cache_url = db_url(args.broker_url, "1") if args.broker_url.startswith("redis") else ""


def db_url(base: str, name: str) -> str:
    parts = urlparse(base)
    return urlunparse(parts._replace(path=f"/{name}"))


def recreate_database(pg_url: str, name: str) -> None:
    import psycopg2

    conn = psycopg2.connect(db_url(pg_url, "postgres"))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()


def drop_database(pg_url: str, name: str) -> None:
    import psycopg2

    conn = psycopg2.connect(db_url(pg_url, "postgres"))
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    conn.close()


def server_env(
    pg_url: str, database: str, broker_url: str, queue: str, prefix: str, cache_url: str = ""
) -> dict[str, str]:
    """The environment of the server (and of this process's Django): the run's database, its own
    broker queue, production settings on plain-HTTP loopback, and ``cache_url`` as CACHE_URL (the
    shared cache docker-compose.yml gives the web processes; sessions keep a copy there) when given.
    This process's own environment gets the same database, broker, cache and settings, so its ORM
    writes where the server reads."""
    env = dict(
        os.environ,
        CACHE_URL=cache_url,
        DATABASE_URL=db_url(pg_url, database),
        CELERY_BROKER_URL=broker_url,
        CELERY_QUEUE=queue,
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        SECRET_KEY=os.environ.get("SECRET_KEY") or f"{prefix}-" + secrets.token_urlsafe(40),
        ALLOWED_HOSTS="127.0.0.1",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
        LOG_LEVEL="WARNING",
        LOGIN_FAILURES_MAX="0",
    )
    shared = (
        "CACHE_URL",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "CELERY_QUEUE",
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "DJANGO_SETTINGS_MODULE",
    )
    os.environ.update({k: env[k] for k in shared})
    return env


def fresh_database(pg_url: str, database: str, env: dict[str, str]) -> None:
    """Drop and create ``database``, then migrate it (in a subprocess, as a deploy would)."""
    recreate_database(pg_url, database)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=env, check=True
    )


def workers_with_sessions(names: list[str], project) -> tuple[list, list[str]]:
    """Annotators ``names``, members of ``project``, each with a logged-in session made directly (no
    password hashing: as an invite link would give a crowd worker). Returns (users, session keys)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from annotate.models import Role

    User = get_user_model()
    User.objects.bulk_create([User(username=n, password="!") for n in names], batch_size=1000)
    workers = list(User.objects.filter(username__in=names).order_by("username"))
    annotator = Group.objects.get(name=Role.ANNOTATOR)
    User.groups.through.objects.bulk_create(
        [User.groups.through(user_id=w.pk, group_id=annotator.pk) for w in workers], batch_size=1000
    )
    project.members.add(*workers)
    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore  # the server's engine
    sessions = []
    for w in workers:
        store = SessionStore()
        store["_auth_user_id"] = str(w.pk)
        store["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]  # the configured one
        store["_auth_user_hash"] = w.get_session_auth_hash()
        store.create()
        sessions.append(store.session_key)
    return workers, sessions


def researcher_and_roles(username: str):
    """The role groups (a fresh database has them from a migration; made again to be sure) and one
    researcher."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from annotate.models import Role

    for role in Role.values:
        Group.objects.get_or_create(name=role)
    researcher = get_user_model().objects.create(username=username, password="!")
    researcher.groups.add(Group.objects.get(name=Role.RESEARCHER))
    return researcher


@contextmanager
def gunicorn(
    env: dict[str, str], port: int, workers: int, threads: int, keep_alive: int | None = None
) -> Iterator[subprocess.Popen]:
    """gunicorn serving the product on 127.0.0.1:``port`` until the block ends (then SIGTERM to its
    process group, SIGKILL after 20 s). No access log, as docker-compose.yml runs it (formatting a
    line per request costs the server CPU), unless LOAD_ACCESS_LOG is set; ``keep_alive``: seconds
    an idle connection is kept (gunicorn's default, 2, when None)."""
    import httpx

    access = ["--access-logfile", "-"] if os.environ.get("LOAD_ACCESS_LOG") else []
    alive = [] if keep_alive is None else ["--keep-alive", str(keep_alive)]
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(workers),
            "--threads",
            str(threads),
            "--timeout",
            "60",
            "--backlog",
            "4096",
            *access,
            *alive,
        ],
        cwd=REPO,
        env=dict(env, DJANGO_SETTINGS_MODULE=FAULT_SETTINGS),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        up = False
        for _ in range(150):
            with suppress(httpx.HTTPError):
                up = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
            if up or server.poll() is not None:
                break
            time.sleep(0.2)
        if not up:
            stderr = server.stderr.read(2000).decode() if server.poll() is not None and server.stderr else ""
            raise SystemExit(f"gunicorn did not start: {stderr}")
        yield server
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)


def delete_queue(broker_url: str, queue: str) -> None:
    try:
        import redis

        redis.Redis.from_url(broker_url).delete(queue)
    except Exception as exc:  # the figures matter more than the cleanup
        print(f"could not delete queue {queue}: {exc}", file=sys.stderr)


def finish_database(pg_url: str, database: str, keep: bool) -> None:
    """Close this process's connections and drop the run's database, unless it is to be kept."""
    if keep:
        return
    from django.db import connections

    connections.close_all()
    drop_database(pg_url, database)


def check_assignments(campaign_id: int, judgments_per_item: int) -> list[str]:
    """The lease invariants a crowd must not break: no HIT with more live assignments than
    judgments_per_item, no worker assigned the same HIT twice. A worker excluded and then included
    again (the crowd's task vouching for them after a submit excluded them) gets their work back on a
    slot at or above judgments_per_item (``ranking.quality.exclusion._apply_exclusion``): extra
    judgments by design, not a claim past the HIT's places, so those slots are not counted here."""
    from django.db.models import Count, Q

    from ranking.models import LIVE_STATUSES, Assignment, Hit

    problems = []
    claimed = Q(assignments__status__in=LIVE_STATUSES, assignments__slot__lt=judgments_per_item)
    over = (
        Hit.objects.filter(campaign_id=campaign_id)
        .annotate(live=Count("assignments", filter=claimed))
        .filter(live__gt=judgments_per_item)
        .count()
    )
    if over:
        problems.append(f"{over} HITs have more live assignments than judgments_per_item")
    twice = (
        Assignment.objects.filter(hit__campaign_id=campaign_id)
        .values("hit_id", "worker_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .count()
    )
    if twice:
        problems.append(f"{twice} (HIT, worker) pairs assigned twice")
    return problems


def check_trap_records(campaign_id: int) -> tuple[dict[int, tuple[int, int]], list[str]]:
    """Every worker's trap record against a recount of their judgments: (recount by worker id,
    problems)."""
    from django.db.models import Count, Q

    from ranking.models import Campaign, ScreenJudgment, WorkerRecord
    from ranking.quality.holds import TOO_FAST_JUDGMENT

    judgments = ScreenJudgment.objects.filter(screen__campaign_id=campaign_id)
    # the speed rule (issue 35): a screen under its minimum is one more trap failed (qualification aside)
    speed = Campaign.objects.filter(pk=campaign_id, speed_rule=True).exists()
    fast = TOO_FAST_JUDGMENT & ~Q(screen__hit__qualification=True) if speed else Q(pk__in=[])
    recount = {
        row["judge_id"]: (row["seen"], row["passed"])
        for row in judgments.filter(Q(trap_passed__isnull=False) | fast)
        .values("judge_id")
        .annotate(seen=Count("id"), passed=Count("id", filter=Q(trap_passed=True) & ~fast))
    }
    records = {
        r.worker_id: (r.traps_seen, r.traps_passed)
        for r in WorkerRecord.objects.filter(campaign_id=campaign_id)
    }
    mismatched = [w for w, counts in recount.items() if records.get(w) != counts]
    problems = [f"{len(mismatched)} workers' trap records differ from a recount"] if mismatched else []
    return recount, problems


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def api_client(base: str, session: str):
    """An httpx.AsyncClient logged in as the worker of ``session``, with a CSRF pair (cookie and
    header agree), one connection."""
    import httpx

    token = secrets.token_hex(16)  # a 32-character CSRF secret
    cookies = {"sessionid": session, "csrftoken": token}
    headers = {"X-CSRFToken": token, "Referer": base + "/"}
    # verify=False: plain HTTP on loopback, and loading the CA bundle costs ~70 ms of CPU per client,
    # which 500 arriving workers would take from the server they measure.
    return httpx.AsyncClient(
        base_url=base,
        cookies=cookies,
        headers=headers,
        timeout=60,
        limits=httpx.Limits(max_connections=1),
        verify=False,
    )


@contextmanager
def celery_worker(
    env: dict[str, str], queue: str, processes: int, log_path: Path
) -> Iterator[subprocess.Popen | None]:
    """A Celery worker (prefork, ``processes`` children) on the run's queue until the block ends (as
    bench/bench_million.py starts one), logging each task to ``log_path``; None when ``processes`` is 0."""
    if not processes:
        yield None
        return
    cmd = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "-c", str(processes)]
    cmd += ["--pool", "prefork", "--loglevel", "INFO", "-n", f"{queue}@%h"]
    cmd += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while "ready." not in log_path.read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the Celery worker did not start:\n{log_path.read_text()[-2000:]}")
            time.sleep(0.3)
        yield worker
    finally:
        with suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


TASK_LINE = re.compile(r"Task ([\w.]+)\[[^\]]+\] (received|succeeded in ([\d.e-]+)s|raised|failed)")


def task_log(log_path: Path) -> dict[str, dict[str, float]]:
    """Per task name in the worker's log: received, finished (succeeded, raised or failed) and the
    seconds the succeeded ones took (Celery's own measure, wall time inside the task)."""
    tasks: dict[str, dict[str, float]] = defaultdict(lambda: {"received": 0, "finished": 0, "seconds": 0.0})
    for name, what, seconds in TASK_LINE.findall(log_path.read_text()):
        if what == "received":
            tasks[name]["received"] += 1
        else:
            tasks[name]["finished"] += 1
            tasks[name]["seconds"] += float(seconds or 0)
    return {name: {k: round(v, 2) for k, v in t.items()} for name, t in sorted(tasks.items())}


def wait_drained(broker_url: str, queue: str, log_path: Path, timeout: float = 600) -> float:
    """Wait until the queue is empty and every task the worker received has finished; the seconds waited."""
    import redis

    client = redis.Redis.from_url(broker_url)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        tasks = task_log(log_path).values()
        if not client.llen(queue) and all(t["received"] == t["finished"] for t in tasks):
            return time.monotonic() - t0
        time.sleep(0.5)
    print(f"warning: the Celery worker had not drained its queue after {timeout:.0f} s", file=sys.stderr)
    return time.monotonic() - t0
