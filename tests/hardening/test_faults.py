"""Faults with real processes (issue 9): the database going away and coming back, Redis stopped
while workers submit and started again, a worker's browser closing in the middle of a HIT.

The machine's PostgreSQL and Redis are shared and never stopped here: a gunicorn server reaches
PostgreSQL through a TCP proxy the test cuts and restores (tests/hardening/proxy.py); the Redis
that is stopped and started again is a private redis-server on a port of the test's own, with a
real Celery worker and a real celery beat on it.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
import redis
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from annotate.models import Output
from ranking.models import Assignment, ScreenJudgment, SystemScore
from ranking.services import assignment_request
from tests.celery_workers import broker_at, celery_workers
from tests.conftest import REAL_PARTS, skip_or_fail
from tests.factories import build_world
from tests.hardening.proxy import Proxy
from tests.processes import free_port, gunicorn_served, stop, until, wait_until


@pytest.fixture
def server_through_proxy(real_postgres, transactional_db):
    """gunicorn (production settings) whose database connection goes through a cuttable proxy."""
    s = connection.settings_dict
    proxy = Proxy((s["HOST"] or "127.0.0.1", int(s["PORT"] or 5432))).start()
    auth = s["USER"] + (f":{s['PASSWORD']}" if s["PASSWORD"] else "")
    url = f"postgres://{auth}@127.0.0.1:{proxy.port}/{s['NAME']}"
    try:
        # the sessions the test makes must be valid there
        with gunicorn_served(url, secret_key=django_settings.SECRET_KEY) as base:
            yield base, proxy
    finally:
        proxy.cut()


def _session_cookie(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"sessionid": client.cookies["sessionid"].value}


def test_database_down_fails_requests_then_recovers_without_a_restart(server_through_proxy):
    base, proxy = server_through_proxy
    world = build_world(name="fault-db")
    cookies = _session_cookie(world.researcher)
    page = f"{base}/campaigns/{world.campaign.pk}/"
    first = httpx.get(page, cookies=cookies, timeout=10)
    assert first.status_code == 200
    # Production mode (DEBUG=false): the policy and nosniff are on every page (HSTS needs HTTPS).
    assert "script-src 'self'" in first.headers["content-security-policy"]
    assert first.headers["x-content-type-options"] == "nosniff"

    proxy.cut()
    health = httpx.get(f"{base}/healthz", timeout=10)
    assert health.status_code == 503 and health.json()["database"] == "down"
    down = httpx.get(page, cookies=cookies, timeout=10)
    assert "Traceback" not in down.text and "OperationalError" not in down.text  # no debug page
    assert down.status_code == 503  # DatabaseUnavailableMiddleware: a clear "try again" page
    assert "briefly unavailable" in down.text and down.headers["retry-after"] == "30"

    proxy.restore()
    back = wait_until(page, lambda r: r.status_code == 200, cookies=cookies, timeout=20)
    assert world.campaign.name in back.text
    assert httpx.get(f"{base}/healthz", timeout=10).json()["database"] == "ok"


@pytest.mark.django_db(transaction=True)
def test_broker_down_while_workers_submit_keeps_every_submission_and_the_periodic_task_repairs(settings):
    from ranking.tasks import task_recompute_active_campaigns

    world = build_world(name="fault-broker", judgments_per_item=1, screens_per_hit=2)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    codes = []
    with broker_at("redis://127.0.0.1:1/0", broker_connection_timeout=1):  # nothing listens there
        api = APIClient(raise_request_exception=False)
        api.force_authenticate(world.workers[0])
        body = api.post(f"/api/work/campaigns/{world.campaign.pk}/request/").json()
        started = time.monotonic()
        while body.get("screen"):
            answers = [{"position": c["position"], "score": 60} for c in body["screen"]["candidates"]]
            url = f"/api/work/assignments/{body['id']}/screens/{body['screen']['id']}/"
            response = api.post(url, {"answers": answers}, format="json")
            codes.append(response.status_code)
            if response.status_code >= 500:
                body = api.get(f"/api/work/assignments/{body['id']}/").json()
            else:
                body = response.json()
        elapsed = time.monotonic() - started
    # Postgres is the record: every screen is saved and the HIT finished, whatever the broker did.
    assert ScreenJudgment.objects.filter(judge=world.workers[0]).count() == 2
    assert Assignment.objects.get(worker=world.workers[0]).status == "submitted"
    assert elapsed < 30
    assert not SystemScore.objects.filter(campaign=world.campaign).exists()  # the enqueue was lost
    # The periodic safety net (beat, every 5 minutes) recomputes active campaigns from the database.
    assert task_recompute_active_campaigns() >= 1
    assert SystemScore.objects.filter(campaign=world.campaign).exists()
    # The submit that finished the HIT answered like the others: the lost enqueue is only logged.
    assert codes == [201, 201]


@pytest.mark.django_db
def test_a_worker_who_closes_the_browser_mid_hit_resumes_it_or_it_expires_cleanly():
    world = build_world(name="fault-browser", judgments_per_item=1, screens_per_hit=3)
    worker, other = world.workers[0], world.workers[1]
    first = Client()
    first.force_login(worker)
    start = first.get(f"/campaigns/{world.campaign.pk}/work/")
    assert start.status_code == 302
    assignment = Assignment.objects.get(worker=worker)
    page = first.get(start["Location"])
    screen_id = page.content.decode().split('name="screen" value="')[1].split('"')[0]
    data = {"screen": screen_id} | {f"score-{p}": "55" for p in range(5)}
    assert first.post(f"/assignments/{assignment.pk}/", data).status_code == 302
    # The browser closes: a new session (another device) asks for work again.
    again = Client()
    again.force_login(worker)
    resumed = again.get(f"/campaigns/{world.campaign.pk}/work/")
    assert resumed["Location"] == f"/assignments/{assignment.pk}/"
    resumed_page = again.get(resumed["Location"]).content.decode()
    next_id = resumed_page.split('name="screen" value="')[1].split('"')[0]
    assert next_id != screen_id  # the next screen, not the one already judged
    assert ScreenJudgment.objects.filter(assignment=assignment).count() == 1

    # Never back: the HIT expires, its slot goes to someone else, nothing half-done is counted.
    Assignment.objects.filter(pk=assignment.pk).update(expires=timezone.now() - timedelta(minutes=1))
    from ranking.tasks import task_expire_assignments

    assert task_expire_assignments() == 1
    taken = assignment_request(campaign=world.campaign, worker=other)
    assert taken.hit_id == assignment.hit_id and taken.slot == assignment.slot
    late = again.post(f"/assignments/{assignment.pk}/", data | {"screen": next_id})
    assert late.status_code == 400  # refused: the HIT is no longer theirs
    assert ScreenJudgment.objects.filter(assignment=assignment).count() == 1
    from ranking.services import campaign_scores_recompute

    assert (
        campaign_scores_recompute(campaign_id=world.campaign.pk) == []
    )  # the partial HIT counts for nothing


def test_the_database_unavailable_middleware_turns_an_operational_error_into_a_503():
    from django.db import OperationalError
    from django.test import RequestFactory

    from config.security import DatabaseUnavailableMiddleware

    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    request = RequestFactory().get("/campaigns/1/")
    response = middleware.process_exception(request, OperationalError("connection refused"))
    assert response.status_code == 503 and response["Retry-After"] == "30"
    assert "briefly unavailable" in response.content.decode()
    assert middleware.process_exception(request, ValueError("other")) is None


class PrivateRedis:
    """A redis-server of the test's own (nothing kept on disk), to stop and start again."""

    def __init__(self, workdir: Path) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            skip_or_fail("needs redis-server (apt-get install redis-server)")
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> PrivateRedis:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir), "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if redis.Redis(port=self.port, socket_connect_timeout=1).ping():
                    return self
            except redis.RedisError:
                time.sleep(0.1)
        raise AssertionError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)


def _scores(campaign) -> list[tuple[int, int, int, float]]:
    return sorted(
        SystemScore.objects.filter(campaign=campaign).values_list(
            "system_id", "ratings", "items", "mean_score"
        )
    )


@pytest.mark.slow
@pytest.mark.services
def test_redis_stopped_while_workers_submit_keeps_every_submission_and_queued_work_resumes_when_it_returns(
    real_postgres, transactional_db, tmp_path
):
    from ranking.analysis.models import AnalysisRun, RunStatus
    from ranking.services import campaign_scores_recompute

    broker = PrivateRedis(tmp_path).start()
    try:
        with celery_workers("test-redis-outage", ["-I", "ranking.analysis.tasks"], broker.url) as pool:
            _worker, worker_log = pool.start()
            pool.start_beat(tmp_path, CELERY_REPAIR_SECONDS="2")  # production schedule, shorter interval
            REAL_PARTS["celery beat"] = (
                "a `celery beat` process (repairs every 2 s) on a private redis-server"
            )
            world = build_world(name="fault-redis", n_workers=3, judgments_per_item=1, screens_per_hit=2)
            campaign = world.campaign
            traps = set(Output.objects.filter(system=world.systems["trap"]).values_list("text", flat=True))

            def client(user) -> APIClient:
                api = APIClient(raise_request_exception=False)
                api.force_authenticate(user)
                return api

            def judge(api: APIClient, body: dict) -> tuple[dict, int]:
                # an honest judge: the trap (known here, not to the API) low, the rest high
                answers = [
                    {"position": c["position"], "score": 5 if c["text"] in traps else 80}
                    for c in body["screen"]["candidates"]
                ]
                url = f"/api/work/assignments/{body['id']}/screens/{body['screen']['id']}/"
                response = api.post(url, {"answers": answers}, format="json")
                return response.json(), response.status_code

            def take(api: APIClient) -> dict:
                response = api.post(f"/api/work/campaigns/{campaign.pk}/request/")
                assert response.status_code == 201, response.content
                return response.json()

            # Redis up: a finished HIT is scored by the worker process.
            first = client(world.workers[0])
            body = take(first)
            while body["screen"]:
                body, code = judge(first, body)
                assert code == 201
            until(lambda: _scores(campaign), 60, "the first HIT scored by the Celery worker")
            before = _scores(campaign)

            # Workers are mid-HIT when Redis stops.
            second, third = client(world.workers[1]), client(world.workers[2])
            second_body, third_body = take(second), take(third)
            second_body, code = judge(second, second_body)
            assert code == 201
            broker.stop()
            codes, started = [], time.monotonic()
            for api, body in ((second, second_body), (third, third_body)):
                while body["screen"]:
                    body, code = judge(api, body)
                    codes.append(code)
                assert body["status"] == "submitted"
            run_response = client(world.researcher).post(
                "/api/analysis-runs/",
                {"campaign": campaign.pk, "kind": "prws_summary", "parameters": {}, "seed": 3},
                format="json",
            )
            slowest = time.monotonic() - started
            assert codes == [201, 201, 201] and run_response.status_code == 201, run_response.content
            assert slowest < 30  # an unreachable broker does not hang a worker's request
            # Postgres is the record: every screen is saved, every HIT finished, the run is waiting.
            assert ScreenJudgment.objects.filter(assignment__hit__campaign=campaign).count() == 6
            assert Assignment.objects.filter(hit__campaign=campaign, status="submitted").count() == 3
            run = AnalysisRun.objects.get(pk=run_response.json()["id"])
            assert run.status == RunStatus.PENDING
            time.sleep(5)  # beat's repairs come due meanwhile, but cannot be sent
            assert _scores(campaign) == before
            assert AnalysisRun.objects.get(pk=run.pk).status == RunStatus.PENDING

            # Redis back on the same port: no restart of web, worker or beat, no manual step.
            broker.start()
            until(
                lambda: AnalysisRun.objects.get(pk=run.pk).status in (RunStatus.DONE, RunStatus.FAILED),
                120,
                "the analysis run launched during the outage finished",
            )
            run.refresh_from_db()
            assert run.status == RunStatus.DONE, run.error
            until(lambda: _scores(campaign) != before, 60, "the scores recomputed with the outage's HITs")
            after = _scores(campaign)
            recomputed = campaign_scores_recompute(campaign_id=campaign.pk)
            assert after == sorted((s.system_id, s.ratings, s.items, s.mean_score) for s in recomputed)
            assert sum(r for _, r, _, _ in after) > sum(r for _, r, _, _ in before)
            worker_log.seek(0)
            assert "Connection to broker lost" in worker_log.read()  # the same worker process reconnected
    finally:
        broker.stop()
