"""The real parts: PostgreSQL, Redis and a Celery worker process.

Locally, without DATABASE_URL / CELERY_BROKER_URL, these skip with a reason;
with CI=true a skip is a failure (see conftest.skip_or_fail).
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from ranking.models import Assignment, AssignmentStatus, ScoresDue, SystemScore, WorkerRecord
from ranking.selectors import valid_judgments
from ranking.services import (
    CandidateScore,
    assignment_request,
    campaign_create,
    crowd_caught_up,
    screen_submit,
)
from ranking.work.assignments import assignment_next_screen
from tests import factories
from tests.celery_workers import celery_workers
from tests.judging import do_hit, ring_campaign, ring_group_campaign
from tests.processes import stop, until


@pytest.mark.django_db
def test_suite_runs_on_postgresql_and_redis_answers(real_postgres, real_redis):
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0]
    print(f"\ndatabase: {version}\nredis: {real_redis.info('server')['redis_version']}")
    assert connection.vendor == "postgresql"
    assert real_redis.ping() is True


@pytest.fixture
def celery_worker(transactional_db, real_postgres, real_redis):
    """A real `celery worker` process on the test database and the Redis broker, on a queue of its own."""
    with celery_workers() as workers:
        yield workers.start()


def test_a_real_worker_recomputes_scores_after_a_submit(celery_worker):
    proc, log = celery_worker
    researcher = factories.user("res", "researcher")
    judge = factories.user("ann", "annotator")
    project = factories.project(researcher, members=[judge])
    corpus, systems = factories.corpus_with_systems(
        project, sources=["He go ."], systems={"a": ["He goes ."], "b": ["He went ."]}
    )
    campaign = campaign_create(
        project=project, corpus=corpus, name="w", systems=systems, created_by=researcher, judgments_per_item=1
    )
    assignment = assignment_request(campaign=campaign, worker=judge)
    screen = assignment_next_screen(assignment)
    by_text = {c.text: c.pk for c in screen.candidates.all()}
    # The HIT's last screen commits, then on_commit sends task_campaign_scores to Redis; only the
    # worker process can run it.
    screen_submit(
        assignment=assignment,
        screen=screen,
        worker=judge,
        answers={
            by_text["He goes ."]: CandidateScore(score=90),
            by_text["He went ."]: CandidateScore(score=40),
        },
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and SystemScore.objects.filter(campaign=campaign).count() < 2:
        time.sleep(0.3)
    log.seek(0)
    worker_log = log.read()
    from tests.conftest import REAL_PARTS

    done = [line for line in worker_log.splitlines() if "succeeded" in line]
    REAL_PARTS["celery worker"] = (
        f"process pid {proc.pid}: {done[-1].strip() if done else 'no task finished'}"
    )
    scores = dict(SystemScore.objects.filter(campaign=campaign).values_list("system__name", "mean_score"))
    assert scores == {"a": 90.0, "b": 40.0}
    assert "ranking.tasks.task_campaign_scores" in worker_log and "succeeded" in worker_log
    # the recompute cleared its mark first (ranking.models.ScoresDue): the next submit sends another
    assert not ScoresDue.objects.filter(campaign=campaign).exists()


def _wait_for(log, text: str, count: int = 1, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        log.seek(0)
        seen = log.read()
        if seen.count(text) >= count:
            return seen
        time.sleep(0.3)
    log.seek(0)
    pytest.fail(f"{text!r} not seen {count} time(s) in the worker's log:\n{log.read()}")


def _children_serving_two_tasks(workers, limit_mb: str) -> list[str]:
    """The pool processes (ForkPoolWorker-N) that ran two tasks, one after the other, in a prefork
    worker of one child with CELERY_WORKER_MAX_MEMORY_MB=limit_mb."""
    from ranking.tasks import task_expire_assignments

    env = dict(workers.env, CELERY_WORKER_MAX_MEMORY_MB=limit_mb)
    args = ["--pool=prefork", "--concurrency=1", "-Q", workers.queue, "--without-gossip",
            "--without-mingle", "-n", f"{workers.queue}-{limit_mb}@%h"]  # fmt: skip
    proc, log = workers._launch("worker", args, "ready.", env)
    for n in (1, 2):
        task_expire_assignments.delay()
        seen = _wait_for(log, "succeeded", count=n)
    stop(proc)
    return re.findall(
        r"INFO/(ForkPoolWorker-\d+)\] Task ranking.tasks.task_expire_assignments\[\S+\] succeeded", seen
    )


def test_a_worker_child_past_the_memory_limit_is_replaced_after_its_task(
    transactional_db, real_postgres, real_redis
):
    """CELERY_WORKER_MAX_MEMORY_MB: a prefork child whose resident size is past the limit when a task
    ends makes way for a fresh child (the scorers' memos are capped by entries, not bytes); its task
    finishes, and the next task runs in the new child. 1 MB: every child is past it; with the default
    (1024 MB) one child serves both tasks."""
    from config.celery import app

    assert app.conf.worker_max_memory_per_child == 1024 * 1024  # KiB
    with celery_workers() as workers:
        assert _children_serving_two_tasks(workers, "1") == ["ForkPoolWorker-1", "ForkPoolWorker-2"]
        assert _children_serving_two_tasks(workers, "1024") == ["ForkPoolWorker-1", "ForkPoolWorker-1"]


def test_a_real_worker_holds_a_ring_of_two_accounts_copying_answers(celery_worker):
    """Issue 38: the submits save the judgments and send the crowd evidence on commit; only the
    worker process recounts it, finds the copy alike its original beyond chance and holds it."""
    _, log = celery_worker
    campaign, workers, answers = ring_campaign()
    for name, worker in workers.items():
        assert do_hit(campaign, worker, answers[name]).status == AssignmentStatus.SUBMITTED
    copy = WorkerRecord.objects.filter(campaign=campaign, worker=workers["copy"])
    mine = Assignment.objects.filter(hit__campaign=campaign, worker=workers["copy"])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (copy.get().crowd_due is not None or not copy.get().same_as):
        time.sleep(0.3)
    # each worker's HIT end sent one task, received and then succeeded in the worker's log
    worker_log = _wait_for(log, "ranking.tasks.task_crowd_evidence", count=2 * len(workers))
    assert copy.get().same_as == [workers["reader0"].pk] and copy.get().crowd_due is None
    assert mine.values_list("status", "hold_reason").get() == (AssignmentStatus.HELD, "same_person")
    original = Assignment.objects.get(hit__campaign=campaign, worker=workers["reader0"])
    assert (original.status, original.hold_reason) == (AssignmentStatus.SUBMITTED, "")
    assert "succeeded" in worker_log


def test_a_real_worker_holds_a_ring_of_three_as_one_group_that_counts_once(celery_worker):
    """Issue 41, the group hold: one person answers on "original" and copies it to two accounts, each
    with one pair swapped (each copy alike the original, not each other). The copies work first, with
    nobody to compare with yet; only the worker process's crowd task finds the pairs, and the
    group's refresh holds every account but its first (copy1), whoever worked last."""
    _, log = celery_worker
    campaign, workers, answers = ring_group_campaign()
    for name, worker in workers.items():
        assert do_hit(campaign, worker, answers[name]).status == AssignmentStatus.SUBMITTED
    _wait_for(log, "ranking.tasks.task_crowd_evidence", count=2 * len(workers))
    records = WorkerRecord.objects.filter(campaign=campaign)
    ids = {name: workers[name].pk for name in ("copy1", "copy2", "original")}

    def settled() -> bool:
        held = set(
            Assignment.objects.filter(
                hit__campaign=campaign, status=AssignmentStatus.HELD, hold_reason="same_person"
            ).values_list("worker_id", flat=True)
        )
        return not records.filter(crowd_due__isnull=False).exists() and held == {
            ids["copy2"],
            ids["original"],
        }

    until(settled, 60, "the group's second and third accounts held")
    assert sorted(records.get(worker=workers["original"]).same_as) == sorted([ids["copy1"], ids["copy2"]])
    assert records.get(worker=workers["copy2"]).same_as == [ids["original"]]  # not alike copy1
    assert all(records.get(worker=workers[f"reader{k}"]).same_as == [] for k in range(4))
    counted = valid_judgments(campaign).filter(judge_id__in=ids.values())
    assert set(counted.values_list("judge_id", flat=True)) == {ids["copy1"]}


def test_a_real_worker_recounts_the_records_the_periodic_catch_up_sends(celery_worker):
    """Issue 41: beat's catch-up (``crowd_caught_up``) marks every record whose screens others
    judged since it was counted and sends one crowd-evidence task each on commit; only the worker
    process recounts them, and a second catch-up finds nothing left to send."""
    _, log = celery_worker
    campaign, workers, answers = ring_campaign()
    for name, worker in workers.items():
        assert do_hit(campaign, worker, answers[name]).status == AssignmentStatus.SUBMITTED
    records = WorkerRecord.objects.filter(campaign=campaign)
    _wait_for(log, "ranking.tasks.task_crowd_evidence", count=2 * len(workers))
    counted = records.filter(crowd_due__isnull=True).count
    until(lambda: counted() == len(workers), 60, "every record's crowd evidence counted")
    # as if every record had been counted before the others judged its screens
    long_ago = timezone.now() - timedelta(hours=1)
    records.update(crowd_counted=long_ago)
    assert crowd_caught_up(older_than=timedelta(minutes=5)) == len(workers)
    _wait_for(log, "ranking.tasks.task_crowd_evidence", count=4 * len(workers))
    until(lambda: counted() == len(workers), 60, "every record recounted by the worker")
    assert not records.filter(Q(crowd_due__isnull=False) | Q(crowd_counted__lte=long_ago)).exists()
    assert records.get(worker=workers["copy"]).same_as == [workers["reader0"].pk]
    assert crowd_caught_up() == 0
