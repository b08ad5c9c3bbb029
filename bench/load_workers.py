"""Load test: N simulated crowd workers doing PRWS HITs through the workers' API, against gunicorn on
PostgreSQL and Redis on this machine (loopback only; bounded in workers, HITs and time).

    .venv/bin/python bench/load_workers.py --workers 50 --duration 60
    make load LOAD_ARGS="--workers 200 --think 2"

What it does, in order:

1. Creates a fresh database (``--database``, default ``gec_load``) on the PostgreSQL of
   ``--pg-url`` (default: DATABASE_URL's server) and migrates it. It never touches another database.
2. Makes one researcher, N annotators (no password hashing: each gets a session row made directly,
   as an invite link would give a crowd worker) and a PRWS campaign over a synthetic corpus with a
   source+error trap system, sized so that every worker can do ``--hits`` HITs.
3. Serves the product with gunicorn (``--gunicorn-workers`` processes x ``--threads`` threads) on
   127.0.0.1 with Redis as broker on a queue of its own (deleted at the end), and a Celery worker
   on that queue (``--celery-workers`` pool processes; 0: none, the tasks wait in the queue): what
   the submits send on commit runs, the crowd evidence (issue 38) and the score recomputes.
4. Runs N asyncio workers arriving over ``--ramp`` seconds; each asks for a HIT, reads the next
   screen and submits it after a think time (mean ``--think`` seconds; ``--think-dist exponential``,
   the default, or ``lognormal``: sigma 0.5, so nobody answers a screen in a fraction of a second and
   a few take twice the mean, like people), until ``--hits`` HITs are done or ``--duration`` runs
   out. Workers judge honestly: a trap (known to the generator, not shown by the API) gets a low
   score, everything else a random one.
5. Prints throughput, p50/p95/p99 latency per request kind and overall, and the errors; how many
   workers were in the middle of their work at once (``concurrent_workers``: the peak, how long it
   held, and the latency of the requests made then); the CPU the run cost (``cpu``: gunicorn, the
   run's PostgreSQL backends alive at the end, this generator, and the rest of the machine; and the
   Celery worker's, measured once its queue is drained, with the seconds its log gives each task:
   work moved out of the request is still counted); then checks the database: judgments equal the
   generator's log (count and every score), no HIT has more live assignments than
   judgments_per_item, every worker's trap record equals a recount, and (with a Celery worker) no
   record still waits for its crowd evidence.

Exit status 0 when the checks pass and there were no errors (non-2xx answers other than the
expected 409 "no more work").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.serving import (
    add_service_args,
    api_client,
    cache_url_default,
    celery_worker,
    check_assignments,
    check_trap_records,
    db_url,
    delete_queue,
    finish_database,
    fresh_database,
    gunicorn,
    percentile,
    researcher_and_roles,
    server_env,
    task_log,
    wait_drained,
    workers_with_sessions,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=50, help="simulated workers (concurrent), at most 2000")
    p.add_argument("--hits", type=int, default=2, help="HITs each worker does at most")
    p.add_argument("--screens-per-hit", type=int, default=5)
    p.add_argument("--judgments-per-item", type=int, default=3)
    p.add_argument("--duration", type=float, default=60, help="seconds before workers stop (at most 1800)")
    p.add_argument("--ramp", type=float, default=10, help="seconds over which workers arrive")
    p.add_argument("--think", type=float, default=1.0, help="mean seconds a worker spends on a screen")
    p.add_argument(
        "--think-dist",
        choices=["exponential", "lognormal"],
        default="exponential",
        help="distribution of think times (lognormal: sigma 0.5, median 0.88 x the mean)",
    )
    p.add_argument("--gunicorn-workers", type=int, default=(os.cpu_count() or 2) * 2 + 1)
    p.add_argument("--threads", type=int, default=4, help="gunicorn threads per worker process")
    p.add_argument(
        "--keep-alive",
        type=int,
        default=None,
        help="seconds gunicorn keeps an idle connection (default: gunicorn's, 2 s; workers who think "
        "longer reconnect for each screen, as browsers behind most proxies do)",
    )
    p.add_argument("--port", type=int, default=8765)
    p.add_argument(
        "--celery-workers",
        type=int,
        default=1,
        help="pool processes of the Celery worker started on the run's queue (0: none, as before issue "
        "38; the tasks then wait in the queue and are deleted with it)",
    )
    add_service_args(p, database="gec_load", cache=True)
    p.add_argument(
        "--busy-cores",
        type=int,
        default=0,
        help="keep this many cores busy with spinning processes while the crowd works (noise the "
        "benchmark makes itself: another job on the machine)",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write the figures as JSON here")
    p.add_argument("--keep-database", action="store_true", help="leave the database for inspection")
    args = p.parse_args(argv)
    if not 1 <= args.workers <= 2000 or not 0 < args.duration <= 1800:
        p.error("--workers must be 1..2000 and --duration 0..1800 seconds")
    if not 0 <= args.celery_workers <= 8:
        p.error("--celery-workers must be 0..8")
    if not 0 <= args.busy_cores <= (os.cpu_count() or 1):
        p.error("--busy-cores must be between 0 and the machine's cores")
    cache_url_default(args)
    return args


# ------------------------------------------------------------------------------------------ setup


@dataclass
class World:
    campaign_id: int
    sessions: list[str]  # session keys, one per worker
    usernames: list[str]
    trap_texts: set[str]
    judgments_per_item: int


def build_world(args: argparse.Namespace) -> World:
    import django

    django.setup()
    from annotate.services import SentenceRecord, corpus_create, outputs_import_lines, project_create
    from ranking.services import campaign_create

    rng = random.Random(args.seed)
    researcher = researcher_and_roles("load-researcher")
    project = project_create(name="load", owner=researcher)
    names = [f"load-w{i:05d}" for i in range(args.workers)]
    _, sessions = workers_with_sessions(names, project)

    # Enough HITs for everyone: workers x hits assignments, judgments_per_item per HIT.
    hits = -(-args.workers * args.hits // args.judgments_per_item) + 2
    n = hits * args.screens_per_hit
    words = [
        "the",
        "a",
        "cat",
        "dog",
        "school",
        "house",
        "went",
        "goes",
        "go",
        "happy",
        "river",
        "city",
        "big",
    ]
    sources = [f"Sentence {i} : " + " ".join(rng.choice(words) for _ in range(8)) + " ." for i in range(n)]
    corpus = corpus_create(project=project, name="load", sentences=[SentenceRecord(text=s) for s in sources])
    systems = [
        outputs_import_lines(corpus=corpus, system_name="src", kind="source", lines=sources, filename="src")
    ]
    for k in range(3):
        lines = [
            s.replace(" go ", " goes ", 1) if k == 0 else s.replace(" .", f" {words[k]} .") for s in sources
        ]
        systems.append(
            outputs_import_lines(
                corpus=corpus, system_name=f"sys{k}", kind="model", lines=lines, filename=f"sys{k}"
            )
        )
    traps = [s.replace(" : ", " : : ", 1) + " the" for s in sources]
    trap = outputs_import_lines(
        corpus=corpus, system_name="trap", kind="source+error", lines=traps, filename="trap"
    )
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="load",
        systems=systems,
        created_by=researcher,
        judgments_per_item=args.judgments_per_item,
        screens_per_hit=args.screens_per_hit,
        trap_system=trap,
        trap_rate=0.3,
        assignment_minutes=60,
        seed=args.seed,
    )
    return World(campaign.pk, sessions, names, set(traps), args.judgments_per_item)


# ------------------------------------------------------------------------------------- simulation


@dataclass
class Log:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    timeline: list[tuple[float, float]] = field(default_factory=list)  # (start, seconds) of every request
    statuses: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    submitted: list[dict] = field(default_factory=list)  # every 201: worker, screen, scores by position
    hits_done: int = 0
    workers_finished: int = 0
    presence: list[tuple[float, int]] = field(default_factory=list)  # (time, +1 arrives / -1 leaves)


async def simulate_worker(
    index: int, world: World, args, base: str, log: Log, deadline: float, rng: random.Random
):
    await asyncio.sleep(rng.uniform(0, args.ramp))
    log.presence.append((time.perf_counter(), 1))
    try:
        await _work(index, world, args, base, log, deadline, rng)
    finally:
        log.presence.append((time.perf_counter(), -1))


def think_time(args, rng: random.Random) -> float:
    if args.think <= 0:
        return 0.0
    if args.think_dist == "lognormal":
        sigma = 0.5
        return rng.lognormvariate(math.log(args.think) - sigma * sigma / 2, sigma)
    return rng.expovariate(1 / args.think)


async def _work(index: int, world: World, args, base: str, log: Log, deadline: float, rng: random.Random):
    import httpx

    async with api_client(base, world.sessions[index]) as http:

        async def call(kind: str, method: str, url: str, **kw):
            started = time.perf_counter()
            try:
                try:
                    response = await http.request(method, url, **kw)
                except (httpx.ReadError, httpx.RemoteProtocolError):
                    # A kept-alive connection the server had just closed: a browser retries, and both
                    # requests are idempotent (the server's HIT / the unique (screen, judge) judgment).
                    log.statuses[f"{kind} retried"] += 1
                    response = await http.request(method, url, **kw)
            except httpx.HTTPError as exc:
                log.latencies[kind].append(time.perf_counter() - started)
                log.statuses[f"{kind} {type(exc).__name__}"] += 1
                log.errors.append(f"{kind} {url}: {exc!r}")
                return None
            log.latencies[kind].append(time.perf_counter() - started)
            log.timeline.append((started, time.perf_counter() - started))
            log.statuses[f"{kind} {response.status_code}"] += 1
            return response

        for _ in range(args.hits):
            if time.monotonic() > deadline:
                break
            response = await call("request", "POST", f"/api/work/campaigns/{world.campaign_id}/request/")
            if response is None:
                break
            if response.status_code == 409:  # no more work: the crowd has drained the campaign
                break
            if response.status_code != 201:
                log.errors.append(f"request: {response.status_code} {response.text[:200]}")
                break
            body = response.json()
            while body.get("screen") and time.monotonic() < deadline:
                screen = body["screen"]
                await asyncio.sleep(think_time(args, rng))
                scores = {
                    c["position"]: (
                        rng.randint(0, 15) if c["text"] in world.trap_texts else rng.randint(50, 100)
                    )
                    for c in screen["candidates"]
                }
                answers = [{"position": p, "score": s} for p, s in scores.items()]
                url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
                response = await call("submit", "POST", url, json={"answers": answers, "seconds": 3.0})
                if response is None:
                    break
                if response.status_code == 201:
                    log.submitted.append(
                        {
                            "worker": world.usernames[index],
                            "assignment": body["id"],
                            "screen": screen["id"],  # its handle within the assignment
                            "scores": scores,
                        }
                    )
                    body = response.json()
                else:
                    log.errors.append(f"submit: {response.status_code} {response.text[:200]}")
                    break
            else:
                if body.get("status") == "submitted":
                    log.hits_done += 1
        log.workers_finished += 1


async def run_crowd(world: World, args, base: str) -> tuple[Log, float]:
    log = Log()
    rng = random.Random(args.seed)
    started = time.monotonic()
    deadline = started + args.duration
    tasks = [
        asyncio.create_task(simulate_worker(i, world, args, base, log, deadline, random.Random(rng.random())))
        for i in range(args.workers)
    ]
    await asyncio.wait(tasks, timeout=args.duration + 120)
    for t in tasks:
        t.cancel()
    return log, time.monotonic() - started


# ------------------------------------------------------------------------------------------ checks


def check_database(world: World, log: Log, crowd_done: bool = False) -> dict[str, object]:
    from ranking.models import Rating, ScreenJudgment, WorkerRecord
    from ranking.work.screen_handles import screen_id_from_handle

    problems: list[str] = []
    judgments = ScreenJudgment.objects.filter(screen__campaign_id=world.campaign_id)
    if judgments.count() != len(log.submitted):
        problems.append(f"{judgments.count()} judgments in the database, {len(log.submitted)} in the log")
    stored: dict[tuple[str, int], dict[int, int]] = defaultdict(dict)
    for username, screen_id, position, score in Rating.objects.filter(
        judgment__screen__campaign_id=world.campaign_id
    ).values_list("judgment__judge__username", "judgment__screen_id", "candidate__position", "score"):
        stored[(username, screen_id)][position] = score
    for entry in log.submitted:
        screen_id = screen_id_from_handle(entry["screen"], assignment_id=entry["assignment"])
        got = stored.get((entry["worker"], screen_id))
        if got != entry["scores"]:
            problems.append(
                f"{entry['worker']} screen {entry['screen']}: stored {got}, sent {entry['scores']}"
            )
            if len(problems) > 20:
                break
    problems += check_assignments(world.campaign_id, world.judgments_per_item)
    recount, trap_problems = check_trap_records(world.campaign_id)
    problems += trap_problems
    waiting = WorkerRecord.objects.filter(campaign_id=world.campaign_id, crowd_due__isnull=False).count()
    if crowd_done and waiting:  # the worker drained its queue: every crowd-evidence task has run
        problems.append(f"{waiting} workers' records still wait for their crowd evidence")
    excluded = WorkerRecord.objects.filter(campaign_id=world.campaign_id, excluded=True).count()
    return {
        "judgments": judgments.count(),
        "logged": len(log.submitted),
        "traps_seen": sum(s for s, _ in recount.values()),
        "workers_excluded": excluded,
        "records_waiting_for_crowd_evidence": waiting,
        "problems": problems,
    }


def summarise(log: Log, elapsed: float) -> dict[str, object]:
    every = [x for xs in log.latencies.values() for x in xs]
    kinds = {}
    for kind, xs in sorted(log.latencies.items()):
        kinds[kind] = {
            "n": len(xs),
            "p50_ms": round(1000 * percentile(xs, 0.50), 1),
            "p95_ms": round(1000 * percentile(xs, 0.95), 1),
            "p99_ms": round(1000 * percentile(xs, 0.99), 1),
        }
    return {
        "seconds": round(elapsed, 1),
        "requests": len(every),
        "throughput_rps": round(len(every) / elapsed, 1) if elapsed else 0.0,
        "judgments_per_s": round(len(log.submitted) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(1000 * percentile(every, 0.50), 1),
        "p95_ms": round(1000 * percentile(every, 0.95), 1),
        "p99_ms": round(1000 * percentile(every, 0.99), 1),
        "mean_ms": round(1000 * statistics.fmean(every), 1) if every else None,
        "by_kind": kinds,
        "statuses": dict(sorted(log.statuses.items())),
        "errors": len(log.errors),
        "error_samples": log.errors[:5],
        "hits_done": log.hits_done,
        "concurrent_workers": _concurrency(log),
        "p95_ms_per_10s": _windows(log.timeline),
    }


def _concurrency(log: Log) -> dict[str, object]:
    """Peak number of workers between arrival and leaving, how long that peak held, and the latency
    of the requests that started while it held (the figures a "N concurrent workers" claim rests on)."""
    events = sorted(log.presence)
    active = peak = 0
    for _, step in events:
        active += step
        peak = max(peak, active)
    held: list[tuple[float, float]] = []
    active, start = 0, None
    for t, step in events:
        active += step
        if active == peak and start is None:
            start = t
        elif active < peak and start is not None:
            held.append((start, t))
            start = None
    during = [s for t, s in log.timeline if any(a <= t <= b for a, b in held)]
    return {
        "peak": peak,
        "seconds_at_peak": round(sum(b - a for a, b in held), 1),
        "requests_at_peak": len(during),
        "p95_ms_at_peak": round(1000 * percentile(during, 0.95), 1) if during else None,
        "p99_ms_at_peak": round(1000 * percentile(during, 0.99), 1) if during else None,
    }


def _windows(timeline: list[tuple[float, float]], width: float = 10.0) -> list[list[float]]:
    """[window start (s), requests/s, p95 ms] per window: where the load, and the latency, came from."""
    if not timeline:
        return []
    t0 = min(t for t, _ in timeline)
    buckets: dict[int, list[float]] = defaultdict(list)
    for t, seconds in timeline:
        buckets[int((t - t0) // width)].append(seconds)
    return [
        [k * width, round(len(v) / width, 1), round(1000 * percentile(v, 0.95), 1)]
        for k, v in sorted(buckets.items())
    ]


# ------------------------------------------------------------------------------------ CPU account


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (Linux /proc; 0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _machine_busy_seconds() -> tuple[float, float]:
    """(busy CPU seconds of the whole machine, wall clock): /proc/stat's first line."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK"), time.monotonic()


def cpu_snapshot(server_pid: int, pg_url: str, database: str) -> dict[str, object]:
    """CPU used so far by gunicorn (master and workers), by the run's PostgreSQL backends, by this
    generator, and by the whole machine: the difference of two snapshots says what a run cost,
    whatever else the machine was doing."""
    import resource

    import psycopg2

    conn = psycopg2.connect(db_url(pg_url, "postgres"))
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", [database])
            backends = {pid: _cpu_seconds(pid) for (pid,) in cur.fetchall()}
    finally:
        conn.close()
    own = resource.getrusage(resource.RUSAGE_SELF)
    busy, wall = _machine_busy_seconds()
    return {
        "gunicorn": {pid: _cpu_seconds(pid) for pid in [server_pid, *_children(server_pid)]},
        "postgres": backends,
        "generator": own.ru_utime + own.ru_stime,
        "machine": busy,
        "wall": wall,
    }


@contextmanager
def busy_cores(n: int) -> Iterator[list[subprocess.Popen]]:
    """``n`` processes spinning on a core each until the block ends (their CPU is reported apart)."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(n)
    ]
    try:
        yield spinners
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


def _tree_cpu(proc: subprocess.Popen | None) -> dict[int, float]:
    """CPU seconds of a process and its children, by pid (the Celery worker and its pool)."""
    if proc is None:
        return {}
    return {pid: _cpu_seconds(pid) for pid in [proc.pid, *_children(proc.pid)]}


def cpu_account(before: dict, after: dict, requests: int, busy: float = 0.0) -> dict[str, object]:
    def spent(kind: str) -> float:
        return sum(max(0.0, v - before[kind].get(pid, 0.0)) for pid, v in after[kind].items())

    gunicorn, postgres = spent("gunicorn"), spent("postgres")
    generator = after["generator"] - before["generator"]
    wall = after["wall"] - before["wall"]
    machine = after["machine"] - before["machine"]
    return {
        "gunicorn_s": round(gunicorn, 1),
        "postgres_s": round(postgres, 1),
        "generator_s": round(generator, 1),
        "gunicorn_ms_per_request": round(1000 * gunicorn / requests, 2) if requests else None,
        "postgres_ms_per_request": round(1000 * postgres / requests, 2) if requests else None,
        "server_ms_per_request": round(1000 * (gunicorn + postgres) / requests, 2) if requests else None,
        "machine_busy_cores": round(machine / wall, 2) if wall else None,
        "spinners_busy_cores": round(busy / wall, 2) if wall else None,
        "others_busy_cores": round(max(0.0, machine - gunicorn - postgres - generator - busy) / wall, 2)
        if wall
        else None,
        "cores": os.cpu_count(),
    }


def warm_up(server_pid: int, base: str, session: str) -> None:
    """Warm every gunicorn process before measuring: its database connection and the workers' API
    code path (a 404 for an assignment nobody has), so one-off imports (~2 s of CPU per process) are
    not counted as the crowd's cost. Fresh concurrent connections spread over the processes; rounds
    repeat until none of them lags far behind in CPU (i.e. has not loaded the code yet)."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    def one(_: int) -> None:
        headers = {"Connection": "close"}
        cookies = {"sessionid": session}
        with httpx.Client(base_url=base, cookies=cookies, headers=headers, verify=False, timeout=30) as c:
            c.get("/healthz")
            c.get("/api/work/assignments/0/")

    for _ in range(10):
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(one, range(80)))
        spent = [_cpu_seconds(pid) for pid in _children(server_pid)]
        if spent and min(spent) >= 0.6 * max(spent):
            return
    print(f"warning: gunicorn processes unevenly warmed (CPU s: {spent})", file=sys.stderr)


# -------------------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)
    queue = f"gec-load-{os.getpid()}"
    env = server_env(
        args.pg_url, args.database, args.broker_url, queue, prefix="load-test", cache_url=args.cache_url
    )
    print(f"database {args.database} (fresh), broker queue {queue}", file=sys.stderr)
    fresh_database(args.pg_url, args.database, env)
    t0 = time.monotonic()
    world = build_world(args)
    print(
        f"setup: {args.workers} workers, campaign {world.campaign_id} in {time.monotonic() - t0:.1f}s",
        file=sys.stderr,
    )
    base = f"http://127.0.0.1:{args.port}"
    worker_log = Path(os.environ.get("TMPDIR", "/tmp")) / f"{queue}-celery.log"
    with (
        gunicorn(env, args.port, args.gunicorn_workers, args.threads, args.keep_alive) as server,
        celery_worker(env, queue, args.celery_workers, worker_log) as worker,
    ):
        warm_up(server.pid, base, world.sessions[0])
        with busy_cores(args.busy_cores) as spinners:
            cpu_before = cpu_snapshot(server.pid, args.pg_url, args.database)
            celery_before = _tree_cpu(worker)
            spun = [_cpu_seconds(p.pid) for p in spinners]
            log, elapsed = asyncio.run(run_crowd(world, args, base))
            cpu_after = cpu_snapshot(server.pid, args.pg_url, args.database)
            spun = sum(_cpu_seconds(p.pid) for p in spinners) - sum(spun)
        drained = wait_drained(args.broker_url, queue, worker_log) if worker is not None else None
        celery_after = _tree_cpu(worker)

    figures = summarise(log, elapsed)
    figures["cpu"] = cpu_account(cpu_before, cpu_after, figures["requests"], busy=spun)
    if worker is not None:
        celery = sum(max(0.0, v - celery_before.get(pid, 0.0)) for pid, v in celery_after.items())
        requests = figures["requests"]
        figures["cpu"]["celery_s"] = round(celery, 1)
        figures["cpu"]["celery_ms_per_request"] = round(1000 * celery / requests, 2) if requests else None
        figures["cpu"]["celery_drain_s_after_crowd"] = round(drained, 1)
        figures["cpu"]["celery_tasks"] = task_log(worker_log)
    figures["config"] = {
        k: getattr(args, k)
        for k in (
            "workers",
            "hits",
            "screens_per_hit",
            "judgments_per_item",
            "duration",
            "ramp",
            "think",
            "think_dist",
            "gunicorn_workers",
            "threads",
            "keep_alive",
            "busy_cores",
            "cache_url",
        )
    }
    figures["database_check"] = check_database(world, log, crowd_done=worker is not None)
    delete_queue(args.broker_url, queue)
    finish_database(args.pg_url, args.database, args.keep_database)
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    ok = not figures["errors"] and not figures["database_check"]["problems"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
