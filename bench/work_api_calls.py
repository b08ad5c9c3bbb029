"""What one crowd request costs inside the web process: CPU and Python function calls per workers'-API
request, in one process, through Django's WSGI handler (no HTTP server), on PostgreSQL and Redis.

    .venv/bin/python bench/work_api_calls.py --workers 150
    .venv/bin/python bench/work_api_calls.py --workers 60 --calls --top 25

It builds the world ``bench/load_workers.py`` builds (a fresh database of its own, a PRWS campaign with
source+error traps, workers with sessions) and replays its requests without thinking: each worker
claims a HIT and submits its screens, twice. It prints, per kind of request (claim, submit), the
CPU of the handler call (``time.process_time``) as mean and median.

``--tasks`` runs, after each request, the Celery tasks it sent on commit (read back from the run's
broker queue, run in this process as a worker would, outside the request's timing) and prints their
CPU (or calls) per request by task apart: work moved out of the request (issue 38: the crowd
evidence) still counts, elsewhere. Without it the tasks wait in the queue, deleted at the end.

``--calls`` counts the Python function calls instead (``sys.setprofile``, which slows the run
several-fold, so its CPU is not printed) and, with ``--top N``, the N functions of ours that made
the most of them: each call is charged to the innermost function outside the virtualenv and the
standard library above it (``config/not_found.py:__call__`` stands for Django's and DRF's
machinery below the last middleware). In gunicorn at a crowd's pace a request runs on cold caches,
and its CPU follows how much code it runs (docs/benchmarks.md, "Load under noise"): this is the
guide to what to cut; ``bench/load_workers.py`` measures the goal.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.serving import (
    FAULT_SETTINGS,
    add_service_args,
    cache_url_default,
    delete_queue,
    finish_database,
    fresh_database,
    server_env,
)

CSRF = "c" * 32  # the CSRF pair (cookie and header agree), as bench.serving.api_client sends it


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=150, help="workers, each doing 2 HITs (at most 2000)")
    p.add_argument("--calls", action="store_true", help="count Python calls instead of timing CPU")
    p.add_argument("--top", type=int, default=0, help="with --calls: the N functions of ours making most")
    p.add_argument("--tasks", action="store_true", help="run the tasks each request sent, measured apart")
    add_service_args(p, database="gec_calls", cache=True)
    p.add_argument("--keep-database", action="store_true")
    p.add_argument("--out", help="write the figures as JSON here")
    args = p.parse_args(argv)
    if not 1 <= args.workers <= 2000:
        p.error("--workers must be 1..2000")
    cache_url_default(args)
    return args


def environ(method: str, path: str, session: str, body: bytes) -> dict:
    return {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_COOKIE": f"sessionid={session}; csrftoken={CSRF}",
        "HTTP_X_CSRFTOKEN": CSRF,
        "HTTP_REFERER": "http://127.0.0.1/",
        "HTTP_ACCEPT": "application/json",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


class Charges:
    """Python calls, each charged to the innermost function of ours above it (``sys.setprofile``)."""

    def __init__(self) -> None:
        self.by_owner: Counter[str] = Counter()
        self.library = (str(Path(sys.prefix)), str(Path(sys.base_prefix)))

    def __call__(self, frame, event, arg) -> None:
        if event != "call":
            return
        f = frame
        while f is not None:
            name = f.f_code.co_filename
            if name.startswith(str(REPO)) and not name.startswith(self.library):
                self.by_owner[f"{Path(name).relative_to(REPO)}:{f.f_code.co_name}"] += 1
                return
            f = f.f_back
        self.by_owner["(none)"] += 1


class Tasks:
    """The tasks sent to the run's queue, run here one by one as a worker would (Redis transport:
    each message a JSON envelope pushed on the list named after the queue, its body the task's
    [args, kwargs, embed]), with their CPU (or calls) by task name."""

    def __init__(self, broker_url: str, queue: str, calls: bool) -> None:
        import redis

        self.client, self.queue = redis.Redis.from_url(broker_url), queue
        self.cpu: Counter[str] = Counter()
        self.runs: Counter[str] = Counter()
        self.charges = Charges() if calls else None

    def run_sent(self) -> None:
        import base64

        from celery import current_app

        while (raw := self.client.rpop(self.queue)) is not None:
            message = json.loads(raw)
            name = message["headers"]["task"]
            args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
            started = time.process_time()
            if self.charges is not None:
                sys.setprofile(self.charges)
            try:
                current_app.tasks[name](*args, **kwargs)
            finally:
                sys.setprofile(None)
            self.cpu[name] += time.process_time() - started
            self.runs[name] += 1

    def figures(self, requests: int) -> dict[str, object]:
        if self.charges is not None:
            return {
                "runs": dict(self.runs),
                "python_calls_per_request": round(sum(self.charges.by_owner.values()) / requests, 1),
            }
        return {
            "runs": dict(self.runs),
            "cpu_ms_per_request": {name: round(1000 * v / requests, 3) for name, v in self.cpu.items()},
        }


def replay(args: argparse.Namespace, world, application, tasks: Tasks | None = None) -> dict:
    rng = random.Random(1)
    cpu: dict[str, list[float]] = {"claim": [], "submit": []}
    charges = Charges() if args.calls else None

    def call(
        kind: str, method: str, path: str, session: str, payload: dict | None = None
    ) -> tuple[int, dict]:
        raw = json.dumps(payload).encode() if payload is not None else b""
        status = {}

        def start(line, headers, exc_info=None):
            status["code"] = int(line.split()[0])

        started = time.process_time()
        if charges is not None:
            sys.setprofile(charges)
        try:
            chunks = application(environ(method, path, session, raw), start)
            body = b"".join(chunks)
            getattr(chunks, "close", lambda: None)()
        finally:
            sys.setprofile(None)
        cpu[kind].append(time.process_time() - started)
        if tasks is not None:
            tasks.run_sent()
        return status["code"], json.loads(body) if body else {}

    application(environ("GET", "/api/work/assignments/0/", world.sessions[0], b""), lambda *a: None)  # loads
    for session in world.sessions:
        for _ in range(2):
            code, body = call("claim", "POST", f"/api/work/campaigns/{world.campaign_id}/request/", session)
            if code != 201:
                break
            while body.get("screen"):
                screen = body["screen"]
                answers = [
                    {"position": c["position"], "score": rng.randint(0, 100)} for c in screen["candidates"]
                ]
                url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
                code, body = call("submit", "POST", url, session, {"answers": answers, "seconds": 3.0})
                if code != 201:
                    raise SystemExit(f"submit answered {code}: {body}")
    requests = sum(len(v) for v in cpu.values())
    figures: dict[str, object] = {"requests": {k: len(v) for k, v in cpu.items()}}
    if charges is None:
        figures["cpu_ms"] = {
            kind: {
                "mean": round(1000 * statistics.mean(v), 3),
                "median": round(1000 * statistics.median(v), 3),
            }
            for kind, v in cpu.items()
            if v
        }
        figures["cpu_ms_per_request"] = round(1000 * sum(map(sum, cpu.values())) / requests, 3)
    else:
        figures["python_calls_per_request"] = round(sum(charges.by_owner.values()) / requests, 1)
        if args.top:
            figures["by_function"] = {
                name: round(n / requests, 1) for name, n in charges.by_owner.most_common(args.top)
            }
    if tasks is not None:
        figures["tasks"] = tasks.figures(requests)
    return figures


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from bench import load_workers

    queue = f"gec-calls-{os.getpid()}"
    env = server_env(args.pg_url, args.database, args.broker_url, queue, "calls", args.cache_url)
    os.environ["DJANGO_SETTINGS_MODULE"] = FAULT_SETTINGS  # as gunicorn runs in the load benchmark
    fresh_database(args.pg_url, args.database, env)
    world_args = load_workers.parse_args(["--workers", str(args.workers), "--hits", "2"])
    world = load_workers.build_world(world_args)
    from config.wsgi import application  # as gunicorn loads it (gc.freeze() included)

    tasks = Tasks(args.broker_url, queue, args.calls) if args.tasks else None
    try:
        figures = replay(args, world, application, tasks)
    finally:
        delete_queue(args.broker_url, queue)
        finish_database(args.pg_url, args.database, args.keep_database)
    figures["config"] = {
        "workers": args.workers,
        "calls": args.calls,
        "tasks": args.tasks,
        "cache_url": args.cache_url,
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
