"""A million judgments end to end on PostgreSQL with real Celery workers (issue 23).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gec_arena_x CELERY_BROKER_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/bench_million.py [--pairs 1000000 --ratings 1000000] [--workers 1 2]

Stages (wall time each, and end to end):

1. ``bench/make_million.py`` writes the WMT CSV and the PRWS CSV (not counted: it is the input).
2. import: ``manage.py import_judgments`` of both files, two processes at once, compact form (COPY).
   With ``--web``: both files POSTed at once to the judgment import page of a gunicorn server this
   script starts (multipart, streamed from disk as a browser sends it), each imported by the
   background job (``annotate.jobs``) on a Celery worker; the wall time runs from the first byte
   sent to both jobs done. ``--import-only`` stops after this stage.
3. analysis: a TrueSkill run (``--runs`` runs in ``--chunks`` chunks, clusters) and a PRWS summary
   run (its split-half samples in ``--prws-chunks`` chunks), sent to a Celery worker this script starts (``celery worker -c N`` on its own queue, the
   broker of CELERY_BROKER_URL); once per ``--workers`` value, the speed-up printed, with each pool
   process's CPU seconds and how busy the whole machine was meanwhile (/proc).
4. export: the TrueSkill rankings CSV and the WMT CSV of the imported pairs.

End to end = import + analysis with the most worker processes + export. Peak memory (VmHWM) of every
process: the importers (wait4's ru_maxrss; with ``--web`` the web and worker processes, polled from
/proc), each worker process (polled from /proc), this process.
The ranking is checked against ``geceval.human.system_ranking.rank`` on the run's own frozen arrays when
``--check`` is given (one more 1000-run ranking in this process: slow at a million).
"""

from __future__ import annotations

import argparse
import http.client
import io
import os
import resource
import secrets
import socket
import string
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
QUEUE = f"bench-million-{os.getpid()}"
os.environ["CELERY_QUEUE"] = QUEUE  # read by config.settings: this run's tasks go to this run's worker

import django

django.setup()

from django.conf import settings
from django.db import connection

from annotate.jobs.models import ImportJob, ImportJobStatus
from annotate.models import Project
from ranking.analysis import exports
from ranking.analysis.models import AnalysisKind, AnalysisRun, ChunkPhase, RunStatus
from ranking.analysis.services import analysis_run_create, analysis_run_enqueue
from ranking.models import Campaign

PYTHON = sys.executable


def hwm_mb(pid: int) -> float:
    """Peak resident memory of a live process (VmHWM), in MB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process so far (/proc/PID/stat); 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sched_seconds(pid: int) -> tuple[float, float]:
    """Seconds a live process ran on a core and waited in the run queue for one (/proc/PID/schedstat,
    its main thread); (0, 0) when it is gone. Running + waiting = the time it wanted a core."""
    try:
        ran, waited = Path(f"/proc/{pid}/schedstat").read_text().split()[:2]
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(ran) / 1e9, int(waited) / 1e9


def machine_busy() -> tuple[float, float]:
    """The machine's busy and total CPU seconds since boot, all cores (/proc/stat's first line)."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks[:8]) - idle) / hz, sum(ticks[:8]) / hz


def record_peaks(peaks: dict[str, float], label_of: dict[int, str]) -> None:
    for pid, label in label_of.items():
        peaks[label] = max(peaks.get(label, 0.0), hwm_mb(pid))


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def import_files(pairs: Path, ratings: Path, tag: str, project: str) -> tuple[float, dict[str, float], dict]:
    """Both imports at once (separate processes, separate transactions); wall time, peak MB, campaigns."""
    t0 = time.perf_counter()
    procs = {}
    for label, path, fmt in (("pairs", pairs, "wmt-csv"), ("ratings", ratings, "prws-csv")):
        cmd = [PYTHON, str(REPO / "manage.py"), "import_judgments", str(path), "--format", fmt]
        cmd += ["--name", f"{label}-{tag}", "--project", project, "--store", "compact"]
        procs[label] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peaks, outputs = {}, {}
    for label, proc in procs.items():
        _pid, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        outputs[label] = proc.stdout.read()
        peaks[f"import {label}"] = usage.ru_maxrss / 1024
        if proc.returncode:
            raise SystemExit(f"import of {label} failed:\n{outputs[label]}")
    wall = time.perf_counter() - t0
    campaigns = {label: Campaign.objects.get(name=f"{label}-{tag}") for label in procs}
    for label in procs:
        print(f"  {label}: " + " | ".join(outputs[label].strip().splitlines()))
    return wall, peaks, campaigns


class Multipart:
    """A multipart/form-data body read from disk as it is sent: the file is never held whole here."""

    def __init__(self, fields: dict[str, str], path: Path) -> None:
        boundary = uuid.uuid4().hex
        head = "".join(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'
            for k, v in fields.items()
        )
        head += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
            "Content-Type: text/csv\r\n\r\n"
        )
        tail = f"\r\n--{boundary}--\r\n".encode()
        self.length = len(head.encode()) + path.stat().st_size + len(tail)
        self.content_type = f"multipart/form-data; boundary={boundary}"
        self.parts = [io.BytesIO(head.encode()), path.open("rb"), io.BytesIO(tail)]

    def read(self, size: int = -1) -> bytes:
        while self.parts:
            chunk = self.parts[0].read(size)
            if chunk:
                return chunk
            self.parts.pop(0).close()
        return b""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    """gunicorn as docker-compose.yml runs it (sync workers), two workers: both uploads at once."""
    cmd = [PYTHON, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    cmd += ["--workers", "2", "--timeout", "300", "--log-level", "warning"]
    server = subprocess.Popen(cmd, cwd=REPO, env=dict(os.environ), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/healthz")
            if conn.getresponse().status in (200, 503):
                return server
        except OSError:
            pass
        if server.poll() is not None:
            break
        time.sleep(0.3)
    server.kill()
    raise SystemExit(f"gunicorn did not start: {server.stderr.read().decode()[-2000:]}")


def post_judgments(
    port: int, cookies: str, token: str, fields: dict[str, str], path: Path
) -> tuple[int, float]:
    """POST one file to the judgment import page; the background job's id and the upload's seconds."""
    body = Multipart(fields, path)
    headers = {
        "Content-Type": body.content_type,
        "Content-Length": str(body.length),
        "Cookie": cookies,
        "X-CSRFToken": token,
    }
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600, blocksize=1 << 20)
    conn.request("POST", "/crowd/import/", body=body, headers=headers)
    answer = conn.getresponse()
    text = answer.read().decode(errors="replace")
    location = answer.getheader("Location") or ""
    if answer.status != 302 or not location.startswith("/imports/"):
        raise SystemExit(f"the upload of {path} answered {answer.status} {location}: {text[:2000]}")
    return int(location.strip("/").split("/")[1]), time.perf_counter() - t0


def web_import_files(
    pairs: Path, ratings: Path, tag: str, project: str
) -> tuple[float, dict[str, float], dict]:
    """Both files through the web's background import at once; wall time, peak MB, campaigns."""
    from django.contrib.auth.models import Group
    from django.test import Client

    owner = Project.objects.get(name=project).owner
    owner.groups.add(Group.objects.get(name="researcher"))
    client = Client()
    client.force_login(owner)  # a session row the server reads: the bench logs in as a browser would
    token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
    cookies = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}; "
    cookies += f"{settings.CSRF_COOKIE_NAME}={token}"
    port = free_port()
    server, worker = start_server(port), start_worker(2)
    peaks: dict[str, float] = {}
    try:
        wait_ready(worker, 2)
        project_pk = str(Project.objects.get(name=project).pk)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            sent = {
                label: pool.submit(
                    post_judgments,
                    port,
                    cookies,
                    token,
                    {"format": fmt, "name": f"{label}-{tag}", "project": project_pk},
                    path,
                )
                for label, path, fmt in (("pairs", pairs, "wmt-csv"), ("ratings", ratings, "prws-csv"))
            }
            label_of = {server.pid: "web master", worker.pid: "celery main"}
            label_of |= {pid: f"web worker {pid}" for pid in children(server.pid)}
            label_of |= {pid: f"celery pool process {pid}" for pid in children(worker.pid)}
            while not all(f.done() for f in sent.values()):
                record_peaks(peaks, label_of)
                time.sleep(0.1)
            jobs = {label: f.result() for label, f in sent.items()}
        for label, (job_id, seconds) in jobs.items():
            print(f"  {label}: uploaded in {seconds:.1f} s, background job {job_id}")
        finished = {}
        while len(finished) < len(jobs):
            record_peaks(peaks, label_of)
            for label, (job_id, _) in jobs.items():
                if label not in finished:
                    job = ImportJob.objects.get(pk=job_id)
                    if job.status in (ImportJobStatus.DONE, ImportJobStatus.FAILED):
                        finished[label] = (job, time.perf_counter() - t0)
            if worker.poll() is not None:
                raise SystemExit(f"the Celery worker died: {worker.stderr.read().decode()[-2000:]}")
            time.sleep(0.25)
        wall = time.perf_counter() - t0
    finally:
        for proc in (worker, server):
            proc.terminate()
            proc.wait(30)
    for label, (job, seconds) in finished.items():
        if job.status != ImportJobStatus.DONE:
            raise SystemExit(f"the import of {label} failed: {job.message}")
        print(f"  {label}: job done {seconds:.1f} s after the first byte: {job.message}")
    campaigns = {label: Campaign.objects.get(name=f"{label}-{tag}") for label in jobs}
    return wall, peaks, campaigns


def start_worker(processes: int, *, name: str = "", session: bool = False) -> subprocess.Popen:
    """``celery worker -c processes`` on this run's queue; with ``session``, in a session of its own."""
    cmd = [PYTHON, "-m", "celery", "-A", "config", "worker", "-Q", QUEUE, "-c", str(processes)]
    cmd += ["--pool", "prefork", "--loglevel", "WARNING", "-n", f"{QUEUE}-{processes}{name}@%h"]
    cmd += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    return subprocess.Popen(
        cmd,
        cwd=REPO,
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=session,
    )


def wait_ready(worker: subprocess.Popen, processes: int, timeout: float = 60) -> None:
    """The pool's processes exist and loaded the TrueSkill kernel (worker_process_init)."""
    t0 = time.monotonic()
    while len(children(worker.pid)) < processes:
        if worker.poll() is not None or time.monotonic() - t0 > timeout:
            raise SystemExit(f"the Celery worker did not start: {worker.stderr.read().decode()[-2000:]}")
        time.sleep(0.2)
    time.sleep(2.0)  # the kernel's load in each process (~0.4 s); a run sent earlier would only wait


def analyse(
    campaigns: dict,
    processes: int,
    runs: int,
    chunks: int,
    prws_chunks: int,
    cpu: dict,
    sessions: bool = False,
) -> tuple[float, dict[str, float], dict]:
    """Both runs on a worker of ``processes`` pool processes (``sessions``: as many one-process
    workers, each in a session of its own); wall time, peak MB, the runs. ``cpu`` gets per pool
    process (CPU seconds, seconds waiting for a core, share of the wall time it wanted a core)
    during the runs, and the machine's busy fraction."""
    if sessions:
        workers = [start_worker(1, name=f"s{k}", session=True) for k in range(processes)]
    else:
        workers = [start_worker(processes)]
    peaks: dict[str, float] = {}
    try:
        for worker in workers:
            wait_ready(worker, 1 if sessions else processes)
        pool = [pid for worker in workers for pid in children(worker.pid)]
        cpu0 = {pid: cpu_seconds(pid) for pid in pool}
        sched0 = {pid: sched_seconds(pid) for pid in pool}
        busy0, total0 = machine_busy()
        t0 = time.perf_counter()
        made = {
            "trueskill": analysis_run_create(
                campaign=campaigns["pairs"],
                kind=AnalysisKind.TRUESKILL,
                parameters={"runs": runs, "chunks": chunks},
            ),
            "prws": analysis_run_create(
                campaign=campaigns["ratings"],
                kind=AnalysisKind.PRWS_SUMMARY,
                parameters={"chunks": prws_chunks},
            ),
        }
        for run in made.values():
            if not analysis_run_enqueue(run):
                raise SystemExit("the broker did not take the run")
        pids = [*(w.pid for w in workers), *pool]
        while True:
            for pid in pids:
                peaks[f"worker pid {pid}"] = max(peaks.get(f"worker pid {pid}", 0.0), hwm_mb(pid))
            status = dict(
                AnalysisRun.objects.filter(pk__in=[r.pk for r in made.values()]).values_list("pk", "status")
            )
            if all(s in (RunStatus.DONE, RunStatus.FAILED) for s in status.values()):
                break
            for worker in workers:
                if worker.poll() is not None:
                    raise SystemExit(f"the Celery worker died: {worker.stderr.read().decode()[-2000:]}")
            time.sleep(0.25)
        wall = time.perf_counter() - t0
        for pid in pool:
            ran, waited = (b - a for a, b in zip(sched0[pid], sched_seconds(pid)))
            cpu[f"pool process {pid}"] = (cpu_seconds(pid) - cpu0[pid], waited, (ran + waited) / wall)
        busy1, total1 = machine_busy()
        cpu["machine busy (of all cores)"] = (busy1 - busy0) / max(total1 - total0, 1e-9)
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(30)
    done = {k: AnalysisRun.objects.get(pk=r.pk) for k, r in made.items()}
    for k, run in done.items():
        if run.status != RunStatus.DONE:
            raise SystemExit(f"{k} run {run.pk} {run.status}: {run.error}")
    return wall, peaks, done


def spread(run: AnalysisRun) -> str:
    """Past one machine: how the run's freeze parts and chunks were shared out between processes,
    and the largest share of the judgments one freeze part read."""
    chunks = list(run.chunks.order_by("index").values_list("phase", "worker", "result"))
    parts = [r for phase, _w, r in chunks if phase == ChunkPhase.FREEZE]
    if not parts:
        return f"frozen at once in the start task; {len(chunks)} chunks"
    size = "rankings" if run.kind != AnalysisKind.PRWS_SUMMARY else "ratings"
    largest = max(p[size] for p in parts) / max(1, sum(p[size] for p in parts))
    by_phase: dict[str, dict[str, int]] = {}
    for phase, worker, _r in chunks:
        by_phase.setdefault(phase, {})
        by_phase[phase][worker] = by_phase[phase].get(worker, 0) + 1
    shares = "; ".join(
        f"{phase}: " + ", ".join(f"{w.rsplit(':', 1)[-1]} x{k}" for w, k in sorted(who.items()))
        for phase, who in by_phase.items()
    )
    return (
        f"frozen in {len(parts)} parts (largest {largest:.1%} of the {size}), chunks by process id: {shares}"
    )


def export(runs: dict, campaigns: dict, out: Path) -> float:
    t0 = time.perf_counter()
    rows = runs["trueskill"].rank_results.order_by("position")
    (out / "rankings.csv").write_text(exports.rankings_csv(rows), encoding="utf-8")
    with (out / "export-wmt.csv").open("w", encoding="utf-8") as handle:
        for line in exports.iter_judgments(campaigns["pairs"], "wmt-csv"):
            handle.write(line)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=15)
    parser.add_argument("--sentences", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1000)
    # chunks several times the worker processes: the last chunk, on one process while the others
    # wait, is then a small share of the wall time (docs/scaling.md)
    parser.add_argument("--chunks", type=int, default=32, help="TrueSkill run's chunks of bootstrap runs")
    parser.add_argument("--prws-chunks", type=int, default=10, help="PRWS summary's chunks of samples")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-million"))
    parser.add_argument(
        "--sessions",
        action="store_true",
        help="N one-process workers, each in a session of its own, instead of one worker of N processes: "
        "with the kernel's autogroup scheduling (sched_autogroup_enabled) a session's processes share "
        "one session's CPU when the machine is busy, as processes on separate hosts would not",
    )
    parser.add_argument("--web", action="store_true", help="import through the web's background import")
    parser.add_argument("--import-only", action="store_true", help="stop after the import")
    args = parser.parse_args()
    if connection.vendor != "postgresql" or settings.CELERY_TASK_ALWAYS_EAGER:
        raise SystemExit(
            "set DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (a real worker runs the analyses)"
        )
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(f"cores: {os.cpu_count()} (shared with PostgreSQL, Redis and other sessions)")
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    subprocess.run(
        [PYTHON, str(REPO / "bench/make_million.py"), "--out", str(args.out)]
        + [f"--{k}={getattr(args, k)}" for k in ("pairs", "ratings", "systems", "sentences", "seed")],
        check=True,
    )
    print(f"make_million: {time.perf_counter() - t0:.1f} s (input, not counted)")
    subprocess.run([PYTHON, str(REPO / "manage.py"), "migrate", "-v0"], check=True)
    tag = uuid.uuid4().hex[:8]
    project = f"bench-million-{tag}"
    from django.contrib.auth import get_user_model

    owner, _ = get_user_model().objects.get_or_create(username="bench-million")
    Project.objects.create(name=project, owner=owner)

    stages: dict[str, float] = {}
    peaks: dict[str, float] = {}
    importer = web_import_files if args.web else import_files
    stages["import"], found, campaigns = importer(
        args.out / "pairs.csv", args.out / "ratings.csv", tag, project
    )
    peaks.update(found)
    print(f"import (both files at once{', through the web' if args.web else ''}): {stages['import']:.1f} s")
    if args.import_only:
        print(f"peak memory (VmHWM, MB): {', '.join(f'{k} {v:.0f}' for k, v in sorted(peaks.items()))}")
        print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
        return 0
    walls = {}
    runs = {}
    for n in args.workers:
        cpu: dict = {}
        walls[n], found, runs = analyse(
            campaigns, n, args.runs, args.chunks, args.prws_chunks, cpu, args.sessions
        )
        peaks.update({f"{k} ({n} process{'es' if n > 1 else ''})": v for k, v in found.items()})
        ts = runs["trueskill"]
        print(
            f"analysis with {n} worker process(es){' (a session each)' if args.sessions else ''}: "
            f"{walls[n]:.1f} s "
            f"(TrueSkill timings {ts.timings}; PRWS timings {runs['prws'].timings})"
        )
        for name, run in runs.items():
            print(f"  {name}: {spread(run)}")
        busy = cpu.pop("machine busy (of all cores)")
        print(
            "  during the runs: "
            + ", ".join(
                f"{k} {c:.1f} CPU-s and {w:.1f} s waiting for a core (wanted one {share:.0%} of the wall time)"
                for k, (c, w, share) in cpu.items()
            )
            + "; "
            f"the machine's {os.cpu_count()} cores busy {busy:.0%} (everything: PostgreSQL, other sessions)"
        )
        print(f"  uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    stages["analysis"] = walls[max(args.workers)]
    stages["export"] = export(runs, campaigns, args.out)
    print(f"export (rankings CSV + WMT CSV): {stages['export']:.1f} s")
    peaks["bench process"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = sum(stages.values())
    print("rankings:")
    for r in runs["trueskill"].rank_results.order_by("position"):
        print(f"  {r.position:2d} {r.name} mu={r.mu:.4f} ranks {r.rank_lo}-{r.rank_hi} cluster {r.cluster}")
    print(f"stages (s): {', '.join(f'{k} {v:.1f}' for k, v in stages.items())}")
    print(f"end to end: {total:.1f} s (goal <= 120 s)")
    print(f"peak memory (VmHWM, MB): {', '.join(f'{k} {v:.0f}' for k, v in sorted(peaks.items()))}")
    print(f"largest: {max(peaks.values()):.0f} MB (goal <= 1536 MB)")
    if len(walls) > 1:
        lo, hi = min(walls), max(walls)
        print(
            f"speed-up {lo} -> {hi} worker processes: {walls[lo] / walls[hi]:.2f}x (on 2 cores shared with "
            "PostgreSQL and the other sessions this shows contention more than scaling)"
        )
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
