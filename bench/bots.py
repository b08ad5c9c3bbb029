"""Bots against the traps (issue 17): simulated workers through the workers' API of a real server
(gunicorn, PostgreSQL, Redis on loopback) on a PRWS and a ranking campaign (and, with ``--protocols``,
an edit-level one) built from GMEG dev FCE, its six systems and four references, with the default
trap settings.

    .venv/bin/python bench/bots.py --per-strategy 20 --sentences 300
    .venv/bin/python bench/bots.py --strategies careful,source-first --protocols prws
    .venv/bin/python bench/bots.py --per-strategy 40 --protocols edits
    .venv/bin/python bench/bots.py --speed-rule off    # traps and the other evidence alone

Speed is evidence (issue 35): with ``--speed-rule on`` (the default) the campaigns keep the speed rule
a campaign made on the form or the API gets, and each simulated worker spends a time on each screen
that the server sees: a careful worker a plausible reading time (``careful_seconds``: 3 s + 0.25 s a
word shown, +-20%), a bot its own (``bot_seconds``: 0.1-1 s). So that the benchmark does not take
hours, the harness does not sleep: it moves the screen's server-side "served at" back by that time,
as a clock would have, by re-signing the ticket the server issued with the server's SECRET_KEY
(``ranking.work.screen_time.stamp_backdated``). This is a benchmark-only device: a real worker
does not have the key, so a real worker's time on a screen is the time that really passed. With
``--speed-rule off`` the campaigns have the rule off and the tickets go back untouched.

A careful worker rates each candidate by its sentence-level GLEU+ against the four references plus
Gaussian noise (sigma 15 points), and on an edit-level screen labels each edit by what it alone does
to the source's GLEU+. Each careful worker (of the three careful models) is a person of their own
(``Person.drawn``, seeded by the worker's name; ``--people copies`` turns this off): their own noise,
tie tolerance, label slips, lasting taste per text and model weights, as distinct people differ, so
that the one-person check has distinct careful people to tell from the ring's copies; the bots (bench/bot_strategies.py) see only what the API shows and the public
data. Each simulated worker asks for HITs and submits screens until it is excluded, has
seen ``--max-traps`` traps (20), or gets no more work. The harness, not the bots, reads the worker's
trap record (ranking_workerrecord: traps_seen, traps_passed, excluded) after every submit.

Prints, per protocol, each strategy's share of workers excluded within their first 20 traps, the
median traps seen when excluded and the mean pass rate, then the goal: every bot strategy >= 95%
excluded, careful <= 2%. Exit status 0 whether or not the goal is met (a measurement); 1 on a harness
error (a non-2xx answer other than the expected 409 "no more work", or a failed database check).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bot_report import RINGS, figures, table
from bench.bot_strategies import (
    LABELLERS,
    REFERENCES,
    SECONDS,
    STRATEGIES,
    SYSTEMS,
    TIE_TOLERANCE,
    Drifter,
    Gmeg,
    Ring,
    answers,
    bot_seconds,
)
from bench.serving import (
    add_service_args,
    api_client,
    celery_worker,
    check_assignments,
    check_trap_records,
    db_url,
    delete_queue,
    finish_database,
    fresh_database,
    gunicorn,
    researcher_and_roles,
    server_env,
    task_log,
    wait_drained,
    workers_with_sessions,
)

PROTOCOLS = ("prws", "ranking", "edits")
DEFAULT_PROTOCOLS = ("prws", "ranking")
"""Edit-level screens cost the server ERRANT on every new text and the careful worker a GLEU+ per
edit: ``--protocols edits`` measures them on their own (docs/hardening.md)."""
GMEG_FCE = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data/GMEG/data/dev/fce"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--per-strategy", type=int, default=200, help="simulated workers per strategy and protocol"
    )
    p.add_argument("--strategies", default=",".join(STRATEGIES), help="comma-separated subset")
    p.add_argument(
        "--protocols", default=",".join(DEFAULT_PROTOCOLS), help=f"comma-separated subset of {PROTOCOLS}"
    )
    p.add_argument("--sentences", type=int, default=None, help="first N lines of GMEG dev FCE (all 968)")
    p.add_argument("--max-traps", type=int, default=20, help="a worker stops after this many traps")
    p.add_argument("--concurrency", type=int, default=24, help="workers working at once")
    p.add_argument("--gunicorn-workers", type=int, default=(os.cpu_count() or 2) * 2 + 1)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--port", type=int, default=8766)
    add_service_args(p, database="gec_bots_bench")
    p.add_argument("--data", type=Path, default=GMEG_FCE, help="GMEG dev FCE directory")
    p.add_argument(
        "--judgments-per-item",
        type=int,
        help="the campaigns' judgments_per_item (default: the workers of a protocol, so all start on the "
        "same HIT and meet the same traps; fewer spreads them over the HITs)",
    )
    p.add_argument(
        "--celery-workers",
        type=int,
        default=1,
        help="pool processes of the Celery worker started on the run's queue: the crowd evidence "
        "(agreement, one person behind many accounts, agreement drift) is a task sent on each record's "
        "refresh (issue 38), so without a worker it never runs; 0: none, the traps and the worker's own "
        "evidence alone",
    )
    p.add_argument(
        "--repair-tick",
        choices=("yes", "no"),
        default="yes",
        help="yes: after the crowd's tasks, one run of the periodic repair (beat's "
        "task_recompute_active_campaigns, every CELERY_REPAIR_SECONDS in a deployment) as it runs once "
        "an interval has passed since the crowd's last submit, before the records are read; no: the "
        "records as the crowd's own tasks left them",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write the figures as JSON here")
    p.add_argument("--keep-database", action="store_true")
    p.add_argument(
        "--speed-rule",
        choices=("on", "off"),
        default="on",
        help="on: the campaigns' speed rule, each strategy's time on a screen seen by the server; off: no rule",
    )
    p.add_argument(
        "--people",
        choices=("distinct", "copies"),
        default="distinct",
        help="distinct: each careful worker a person of their own (bench/bot_strategies.Person, seeded per "
        "worker); copies: every careful account one fixed procedure (the benchmark before issue 41's re-run)",
    )
    p.add_argument(
        "--judge-references",
        choices=("yes", "no"),
        default="yes",
        help="yes: the four references are judged beside the six systems, as GMEG judged them; no: the "
        "systems only (the references still check the traps). Edit-level added corrections (a correction "
        "most references make and no candidate of the screen makes) are scarce when references are shown",
    )
    args = p.parse_args(argv)
    args.people = args.people == "distinct"
    args.strategies = [s for s in args.strategies.split(",") if s]
    args.protocols = [s for s in args.protocols.split(",") if s]
    unknown = set(args.strategies) - set(STRATEGIES) | set(args.protocols) - set(PROTOCOLS)
    if unknown:
        p.error(f"unknown strategies or protocols: {sorted(unknown)}")
    if not 0 <= args.celery_workers <= 8:
        p.error("--celery-workers must be 0..8")
    args.judgments_per_item = args.judgments_per_item or args.per_strategy * len(args.strategies)
    if args.per_strategy < 1 or not 1 <= args.judgments_per_item <= 32767 or args.concurrency < 1:
        p.error("per-strategy >= 1, judgments per item (default: all workers) 1..32767, concurrency >= 1")
    if not (args.data / "source").is_file():
        p.error(f"GMEG dev FCE not found at {args.data} (set --data or GEC_SHARED_DIR)")
    return args


# ------------------------------------------------------------------------------------------ setup


def make_campaign(
    protocol: str,
    corpus,
    systems: list,
    refs: list,
    user,
    *,
    judgments_per_item: int,
    seed: int,
    speed_rule: bool = True,
):
    """The campaign under test, with the DEFAULT trap settings a researcher gets from the campaign
    form or the API: hidden traps and repeats at the recommended rates (``campaign_options`` of no
    options), and the model's defaults for the margin, the GLEU+ drop and the exclusion rules."""
    from ranking.services import campaign_create
    from ranking.services.campaigns import campaign_options

    return campaign_create(
        project=corpus.project,
        corpus=corpus,
        name=f"bots {protocol}",
        systems=[*systems, *refs],
        created_by=user,
        protocol=protocol,
        judgments_per_item=judgments_per_item,
        seed=seed,
        **campaign_options({"speed_rule": speed_rule}),
    )


@dataclass
class Worker:
    protocol: str
    strategy: str
    username: str
    user_id: int
    session: str
    campaign_id: int


@dataclass
class World:
    campaigns: dict[str, int]  # protocol -> campaign id
    workers: list[Worker]
    judgments_per_item: int
    screens: dict[str, int]
    sentences: int


def build_world(args: argparse.Namespace, gmeg: Gmeg) -> World:
    import django

    django.setup()
    from annotate.services import SentenceRecord, corpus_create, outputs_import_lines, project_create
    from ranking.models import Screen

    researcher = researcher_and_roles("bots-researcher")
    project = project_create(name="bots", owner=researcher)
    corpus = corpus_create(
        project=project, name="GMEG dev FCE", sentences=[SentenceRecord(text=s) for s in gmeg.sources]
    )

    def system(name: str, kind: str, lines: list[str]):
        return outputs_import_lines(corpus=corpus, system_name=name, kind=kind, lines=lines, filename=name)

    systems = [system(s, "model", gmeg.systems[s]) for s in SYSTEMS]
    refs = [system(r, "reference", gmeg.references[r]) for r in REFERENCES]
    jpi = args.judgments_per_item
    campaigns, screens, workers = {}, {}, []
    for protocol in args.protocols:
        campaign = make_campaign(
            protocol,
            corpus,
            systems,
            refs if args.judge_references == "yes" else [],
            researcher,
            judgments_per_item=jpi,
            seed=args.seed,
            speed_rule=args.speed_rule == "on",
        )
        campaigns[protocol] = campaign.pk
        screens[protocol] = Screen.objects.filter(campaign=campaign).count()
        names = [
            f"bot-{protocol}-{strategy}-{k:05d}"
            for strategy in args.strategies
            for k in range(args.per_strategy)
        ]
        users, sessions = workers_with_sessions(names, project)
        for user, session in zip(users, sessions):
            strategy = strategy_of(user.username)
            workers.append(Worker(protocol, strategy, user.username, user.pk, session, campaign.pk))
    return World(campaigns, workers, jpi, screens, len(gmeg.sources))


# ------------------------------------------------------------------------------------- simulation


class RecordReader:
    """The harness's view of a worker's trap record, one PostgreSQL connection per thread."""

    def __init__(self, url: str):
        self.url = url
        self.local = threading.local()

    def read(self, campaign_id: int, worker_id: int) -> tuple[int, int, bool]:
        import psycopg2

        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = psycopg2.connect(self.url)
            conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute(
                "SELECT traps_seen, traps_passed, excluded FROM ranking_workerrecord"
                " WHERE campaign_id = %s AND worker_id = %s",
                [campaign_id, worker_id],
            )
            row = cur.fetchone()
        return (row[0], row[1], row[2]) if row else (0, 0, False)


@dataclass
class Outcome:
    protocol: str
    strategy: str
    username: str
    screens: int = 0
    labels: int = 0  # edit labels submitted (edit-level screens)
    hits: int = 0
    traps_seen: int = 0
    traps_passed: int = 0
    excluded: bool = False
    traps_at_exclusion: int | None = None
    stopped: str = ""  # excluded / max traps / no work / error


@dataclass
class Log:
    outcomes: list[Outcome] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)

    def status(self, kind: str, code: int) -> None:
        key = f"{kind} {code}"
        self.statuses[key] = self.statuses.get(key, 0) + 1


async def run_worker(worker: Worker, args, base: str, gmeg: Gmeg, reader: RecordReader, log: Log, rng):
    import httpx

    out = Outcome(worker.protocol, worker.strategy, worker.username)
    log.outcomes.append(out)
    from ranking.work.screen_time import stamp_backdated

    strategy, labeller = STRATEGIES[worker.strategy], LABELLERS[worker.strategy]
    seconds_on = SECONDS.get(worker.strategy, bot_seconds)
    timing = random.Random(f"{args.seed}-{worker.username}")  # its own draws: answers as with the rule off
    if hasattr(strategy, "fresh"):  # a stateful bot (the id reader): one of its own per worker
        strategy = strategy.fresh()
    if isinstance(strategy, Ring):  # a ring's first account per campaign answers as it read
        strategy.protocol = worker.protocol
    tolerance = TIE_TOLERANCE.get(worker.strategy, 0.0)
    if hasattr(strategy, "person") and args.people:  # a careful model: a person of its own per worker
        strategy = strategy.person(random.Random(f"{args.seed}-person-{worker.username}"))
        tolerance = strategy.tie
    if hasattr(strategy, "labels"):  # a stateful bot labels with what it remembers; a person their own way
        labeller = strategy.labels
    async with api_client(base, worker.session) as http:

        async def call(kind: str, url: str, **kw):
            try:
                try:
                    response = await http.post(url, **kw)
                except (httpx.ReadError, httpx.RemoteProtocolError):
                    response = await http.post(url, **kw)  # a kept-alive connection just closed
            except httpx.HTTPError as exc:
                log.errors.append(f"{worker.username} {kind}: {exc!r}")
                return None
            log.status(kind, response.status_code)
            return response

        while not out.stopped:
            response = await call("request", f"/api/work/campaigns/{worker.campaign_id}/request/")
            if response is None or response.status_code not in (201, 409):
                log.errors.append(f"{worker.username} request: {_said(response)}")
                out.stopped = "error"
                break
            if response.status_code == 409:
                out.stopped = "excluded" if out.excluded else "no work"
                break
            body = response.json()
            if not body.get("screen"):
                log.errors.append(f"{worker.username} request: a HIT with no screen to judge: {body}")
                out.stopped = "error"
                break
            if hasattr(strategy, "new_hit"):
                strategy.new_hit()
            while body.get("screen") and not out.stopped:
                screen = body["screen"]
                values = strategy(screen, gmeg, rng)
                labels = labeller(screen, gmeg, rng, values)
                url = f"/api/work/assignments/{body['id']}/screens/{screen['id']}/"
                # No "seconds": the server measures the time from the ticket it served with the screen.
                sent = answers(worker.protocol, values, tolerance, labels)
                ticket = screen["ticket"]
                if args.speed_rule == "on":  # the time this strategy spends, as the server's clock sees it
                    ticket = stamp_backdated(ticket, seconds_on(screen, timing))
                payload = {"answers": sent, "ticket": ticket}
                response = await call("submit", url, json=payload)
                if response is not None and response.status_code == 400 and not out.excluded:
                    # the crowd task may exclude the worker between two of their screens, taking the
                    # HIT back: the refusal is the exclusion a real worker would meet, not an error
                    await _after_submit(out, worker, args, reader)
                    if out.excluded:
                        break
                if response is None or response.status_code != 201:
                    log.errors.append(f"{worker.username} submit: {_said(response)}")
                    out.stopped = "error"
                    break
                out.screens += 1
                out.labels += sum(len(a.get("labels", ())) for a in sent)
                body = response.json()
                await _after_submit(out, worker, args, reader)
            if body.get("status") == "submitted":
                out.hits += 1


async def _after_submit(out: Outcome, worker: Worker, args, reader: RecordReader) -> None:
    seen, passed, excluded = await asyncio.to_thread(reader.read, worker.campaign_id, worker.user_id)
    out.traps_seen, out.traps_passed = seen, passed
    if excluded and not out.excluded:
        out.excluded, out.traps_at_exclusion = True, seen
    if out.excluded:
        out.stopped = "excluded"
    elif seen >= args.max_traps:
        out.stopped = "max traps"


def _said(response) -> str:
    return "no answer" if response is None else f"{response.status_code} {response.text[:200]}"


async def run_crowd(world: World, args, base: str, gmeg: Gmeg, reader: RecordReader) -> Log:
    log = Log()
    rng = random.Random(args.seed)
    order = list(world.workers)
    rng.shuffle(order)  # strategies interleaved: none gets the fresh HITs first
    gate = asyncio.Semaphore(args.concurrency)

    async def one(worker: Worker, seed: float) -> None:
        async with gate:
            await run_worker(worker, args, base, gmeg, reader, log, random.Random(seed))

    progress = asyncio.create_task(_progress(log, len(order)))
    try:
        await asyncio.gather(*(one(w, rng.random()) for w in order))
    finally:
        progress.cancel()
    return log


async def _progress(log: Log, total: int, every: float = 30.0) -> None:
    """A line on stderr every ``every`` seconds: a long run says how far it is."""
    started = time.monotonic()
    while True:
        await asyncio.sleep(every)
        done = sum(1 for o in log.outcomes if o.stopped)
        screens = sum(o.screens for o in log.outcomes)
        elapsed = time.monotonic() - started
        print(
            f"{elapsed:.0f}s: {done}/{total} workers done, {screens} screens ({screens / elapsed:.1f}/s)",
            file=sys.stderr,
        )


# ------------------------------------------------------------------------------------------ checks


def check_database(world: World, log: Log) -> list[str]:
    """The server's books against the harness's: judgments (and edit labels), leases, trap records."""
    from ranking.models import ScreenJudgment, WorkerRecord
    from ranking.protocols.edits.models import EditLabel

    problems: list[str] = []
    for protocol, campaign_id in world.campaigns.items():
        mine = [o for o in log.outcomes if o.protocol == protocol]
        judged = ScreenJudgment.objects.filter(screen__campaign_id=campaign_id).count()
        if judged != sum(o.screens for o in mine):
            problems.append(
                f"{protocol}: {judged} judgments stored, {sum(o.screens for o in mine)} submitted"
            )
        labelled = EditLabel.objects.filter(judgment__screen__campaign_id=campaign_id).count()
        if labelled != sum(o.labels for o in mine):
            problems.append(f"{protocol}: {labelled} edit labels stored, {sum(o.labels for o in mine)} sent")
        problems += [f"{protocol}: {p}" for p in check_assignments(campaign_id, world.judgments_per_item)]
        problems += [f"{protocol}: {p}" for p in check_trap_records(campaign_id)[1]]
        records = {
            username: (seen, passed, excluded)
            for username, seen, passed, excluded in WorkerRecord.objects.filter(
                campaign_id=campaign_id
            ).values_list("worker__username", "traps_seen", "traps_passed", "excluded")
        }
        differ = [
            o.username
            for o in mine
            if records.get(o.username, (0, 0, False)) != (o.traps_seen, o.traps_passed, o.excluded)
        ]
        if differ:
            problems.append(
                f"{protocol}: {len(differ)} workers' records changed after they stopped: {differ[:3]}"
            )
    return problems


def strategy_of(username: str) -> str:
    """The strategy in a simulated worker's name, ``bot-<protocol>-<strategy>-<n>``."""
    return username.split("-", 2)[2].rsplit("-", 1)[0]


def repair_tick(broker_url: str, queue: str, worker_log: Path) -> float:
    """One run of the periodic repair beat sends every ``CELERY_REPAIR_SECONDS`` (300 by default) in a
    deployment, sent to the run's queue once the crowd's tasks are done; the seconds until it finished.
    It recounts, among others, the holds for drift over agreement against the crowd that judged since
    (``drift_holds_reconsidered``) and every record whose screens others judged since it was counted
    over an interval ago (``crowd_caught_up``; the run's interval is 1 s, so this one tick stands for
    the first a deployment runs once an interval has passed since the crowd's last submit): a campaign
    is live longer than that."""
    from celery import Celery

    name = "ranking.tasks.task_recompute_active_campaigns"
    t0 = time.monotonic()
    Celery(broker=broker_url).send_task(name, queue=queue)
    while not task_log(worker_log).get(name, {}).get("finished"):  # the queue looks empty once taken
        if time.monotonic() - t0 > 3600:
            raise SystemExit("the periodic repair did not finish in an hour")
        time.sleep(0.5)
    return time.monotonic() - t0 + wait_drained(broker_url, queue, worker_log, timeout=3600)


def late_exclusions(world: World, log: Log) -> None:
    """The crowd evidence runs on the Celery worker after the submit that sent it, so a rule may exclude
    a worker after the harness last read their record (after their last screen). Once the queue has
    drained, each outcome takes its record's final word; a late exclusion is counted at the traps the
    worker had seen."""
    from ranking.models import WorkerRecord

    final = {
        (campaign_id, username): excluded
        for campaign_id, username, excluded in WorkerRecord.objects.filter(
            campaign_id__in=world.campaigns.values()
        ).values_list("campaign_id", "worker__username", "excluded")
    }
    for out in log.outcomes:
        excluded = final.get((world.campaigns[out.protocol], out.username), False)
        if excluded and not out.excluded:
            out.excluded, out.traps_at_exclusion = True, out.traps_seen
        elif not excluded and out.excluded:  # back in (a rule's evidence changed): as the record says
            out.excluded, out.traps_at_exclusion = False, None


# -------------------------------------------------------------------------------------------- main


def speed_summary(world: World) -> str:
    """Per protocol and strategy: workers with a screen under its minimum (the speed rule's failed
    traps), those screens, and HITs held too fast: the careful workers must have none."""
    from ranking.models import Assignment, WorkerRecord

    lines = ["\nspeed rule: workers with a too-fast screen / too-fast screens / HITs held too fast"]
    for protocol, campaign_id in world.campaigns.items():
        per: dict[str, list[int]] = {}
        for username, fast in WorkerRecord.objects.filter(campaign_id=campaign_id).values_list(
            "worker__username", "too_fast"
        ):
            row = per.setdefault(strategy_of(username), [0, 0, 0])
            row[0] += fast > 0
            row[1] += fast
        held = Assignment.objects.filter(hit__campaign_id=campaign_id, hold_reason="too_fast")
        for username in held.values_list("worker__username", flat=True):
            per.setdefault(strategy_of(username), [0, 0, 0])[2] += 1
        cells = ", ".join(f"{s} {a}/{b}/{c}" for s, (a, b, c) in per.items())
        lines.append(f"{protocol}: {cells}")
    return "\n".join(lines)


def counted_summary(world: World, result: dict[str, dict[str, dict]]) -> str:
    """Per protocol and strategy (issue 41): the share of the strategy's judgments that count (the
    campaign's valid judgments: submitted HITs of workers not excluded; held ones do not), and how many
    of its workers have any counted; then the ring's and the drifter's goals (``goal_figures``)."""
    from ranking.models import Campaign, ScreenJudgment
    from ranking.selectors import valid_judgments

    lines = ["\njudgments counted: per strategy, counted/made (share), workers with any counted"]
    for protocol, campaign_id in world.campaigns.items():
        made: dict[str, int] = {}
        counted: dict[str, int] = {}
        counting: dict[str, set] = {}
        for username in ScreenJudgment.objects.filter(screen__campaign_id=campaign_id).values_list(
            "judge__username", flat=True
        ):
            key = strategy_of(username)
            made[key] = made.get(key, 0) + 1
        campaign = Campaign.objects.get(pk=campaign_id)
        for username in valid_judgments(campaign).values_list("judge__username", flat=True):
            key = strategy_of(username)
            counted[key] = counted.get(key, 0) + 1
            counting.setdefault(key, set()).add(username)
        cells = ", ".join(
            f"{k} {counted.get(k, 0)}/{n} ({counted.get(k, 0) / n:.0%}) by {len(counting.get(k, ()))}"
            for k, n in made.items()
        )
        lines.append(f"{protocol}: {cells}")
        drifter = result.get(protocol, {}).get("drifter", {})
        if drifter.get("random_made"):
            lines.append(
                f"{protocol}: drifter: {drifter['random_counted']} of its {drifter['random_made']} "
                "judgments after its careful screens count"
            )
        for name in RINGS:
            ring = result.get(protocol, {}).get(name, {})
            if ring.get("screens_shared"):
                lines.append(
                    f"{protocol}: {name}: {ring['screens_shared']} screens judged by two or more of its "
                    f"accounts, {ring['screens_counted_twice']} of them count more than one of their "
                    f"answers ({ring['answers_counted_beyond_one']} judgments counted beyond one a screen)"
                )
    return "\n".join(lines)


def goal_figures(world: World, result: dict[str, dict[str, dict]]) -> None:
    """The ring's and the drifter's goal figures (issue 41), added to their rows of ``result`` once,
    for the table's goal and the counted summary alike."""
    from ranking.models import Campaign

    for protocol, campaign_id in world.campaigns.items():
        rows, campaign = result.get(protocol, {}), Campaign.objects.get(pk=campaign_id)
        rings = ring_counted_twice(campaign, [name for name in RINGS if name in rows])
        for name, (shared, twice, extra) in rings.items():
            rows[name] |= {
                "screens_shared": shared,
                "screens_counted_twice": twice,
                "answers_counted_beyond_one": extra,
            }
        if "drifter" in rows:
            made, late = drifter_counted_late(campaign)
            rows["drifter"] |= {"random_made": made, "random_counted": late}


def drifter_counted_late(campaign, careful_screens: int = Drifter().careful_screens) -> tuple[int, int]:
    """What the drifter's goal asks once the issue's drift rule keeps the work before a drift (issue 41):
    of its judgments after its first ``careful_screens`` (its random ones, by each account's order of
    work), how many were made and how many count. Its careful judgments count by design."""
    from ranking.models import ScreenJudgment
    from ranking.selectors import valid_judgments

    counted = set(
        valid_judgments(campaign).filter(judge__username__contains="-drifter-").values_list("pk", flat=True)
    )
    order: dict[str, int] = {}
    made = late = 0
    for pk, username in (
        ScreenJudgment.objects.filter(screen__campaign=campaign, judge__username__contains="-drifter-")
        .order_by("judge_id", "created", "pk")
        .values_list("pk", "judge__username")
    ):
        if strategy_of(username) != "drifter":
            continue
        order[username] = order.get(username, 0) + 1
        if order[username] > careful_screens:
            made += 1
            late += pk in counted
    return made, late


def ring_counted_twice(campaign, rings: list[str]) -> dict[str, tuple[int, int, int]]:
    """What "the ring's judgments counted as one worker's" asks, screen by screen (issue 41), for each
    strategy of ``rings`` (of ``RINGS``), in one read of the campaign's judgments: the screens two or
    more of the ring's accounts judged, how many of them count more than one of their answers, and
    how many answers those count beyond one.
    Spread over HITs, a ring's accounts share few screens, so the share of its judgments counted says
    little: an account's answers on screens no other account judged are one person's, once."""
    from ranking.models import ScreenJudgment
    from ranking.selectors import valid_judgments

    judged: dict[str, dict[int, set[str]]] = {ring: {} for ring in rings}
    counted: dict[str, dict[int, int]] = {ring: {} for ring in rings}
    for screen_id, username in ScreenJudgment.objects.filter(screen__campaign=campaign).values_list(
        "screen_id", "judge__username"
    ):
        if (ring := strategy_of(username)) in judged:
            judged[ring].setdefault(screen_id, set()).add(username)
    for screen_id, username in valid_judgments(campaign).values_list("screen_id", "judge__username"):
        if (ring := strategy_of(username)) in counted:
            counted[ring][screen_id] = counted[ring].get(screen_id, 0) + 1
    out = {}
    for ring in rings:
        shared = [s for s, accounts in judged[ring].items() if len(accounts) > 1]
        twice = [s for s in shared if counted[ring].get(s, 0) > 1]
        out[ring] = (len(shared), len(twice), sum(counted[ring][s] - 1 for s in twice))
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import logging

    logging.getLogger("httpx").setLevel(logging.WARNING)
    started = time.monotonic()
    gmeg = Gmeg.load(args.data, args.sentences)
    queue = f"gec-bots-{os.getpid()}"
    env = server_env(args.pg_url, args.database, args.broker_url, queue, prefix="bots")
    if args.repair_tick == "yes":  # beat's next tick after an interval: every record counted before it
        env["CELERY_REPAIR_SECONDS"] = "1"  # is old enough for the catch-up (``crowd_caught_up``)
    print(f"database {args.database} (fresh), broker queue {queue}", file=sys.stderr)
    fresh_database(args.pg_url, args.database, env)
    world = build_world(args, gmeg)
    setup = time.monotonic() - started
    print(
        f"setup: {len(world.workers)} workers, campaigns {world.campaigns} in {setup:.1f}s", file=sys.stderr
    )
    base = f"http://127.0.0.1:{args.port}"
    reader = RecordReader(db_url(args.pg_url, args.database))
    worker_log = Path(os.environ.get("TMPDIR", "/tmp")) / f"{queue}-celery.log"
    drained = repaired = None
    with (
        gunicorn(env, args.port, args.gunicorn_workers, args.threads),
        celery_worker(env, queue, args.celery_workers, worker_log) as worker,
    ):
        crowd_started, cpu_started = time.monotonic(), time.process_time()
        log = asyncio.run(run_crowd(world, args, base, gmeg, reader))
        crowd, generator_cpu = time.monotonic() - crowd_started, time.process_time() - cpu_started
        if worker is not None:  # the crowd evidence of the last submits, then every record as it ends
            drained = wait_drained(args.broker_url, queue, worker_log, timeout=3600)
            if args.repair_tick == "yes":
                repaired = repair_tick(args.broker_url, queue, worker_log)
            late_exclusions(world, log)
    problems = check_database(world, log)
    result = figures(log, world, args)
    goal_figures(world, result)
    speed = speed_summary(world) + counted_summary(world, result)
    delete_queue(args.broker_url, queue)
    finish_database(args.pg_url, args.database, args.keep_database)
    screens = sum(o.screens for o in log.outcomes)
    print(table(result, world, args))
    print(speed)
    print(
        f"\ntime: setup {setup:.0f}s, crowd {crowd:.0f}s ({screens} screens submitted, "
        f"{screens / crowd:.1f}/s at concurrency {args.concurrency}; this process used {generator_cpu:.0f}s "
        f"of CPU), total {time.monotonic() - started:.0f}s"
    )
    print(f"statuses: {dict(sorted(log.statuses.items()))}")
    if drained is not None:
        repair = "" if repaired is None else f"; the periodic repair then took {repaired:.0f}s"
        print(
            f"celery: queue drained {drained:.0f}s after the crowd stopped{repair}; tasks {task_log(worker_log)}"
        )
    for line in log.errors[:10] + problems:
        print(f"HARNESS ERROR: {line}")
    if args.out:
        Path(args.out).write_text(
            json.dumps(
                {
                    "figures": result,
                    "seconds": {"setup": setup, "crowd": crowd, "generator_cpu": generator_cpu},
                    "screens_submitted": screens,
                    "statuses": log.statuses,
                    "errors": log.errors,
                    "problems": problems,
                    "celery": None
                    if drained is None
                    else {
                        "drained_s_after_crowd": round(drained, 1),
                        "repair_tick_s": None if repaired is None else round(repaired, 1),
                        "tasks": task_log(worker_log),
                    },
                    "config": {k: v for k, v in vars(args).items() if k not in ("pg_url", "data")},
                    "workers": [asdict(o) for o in log.outcomes],
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if log.errors or problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
