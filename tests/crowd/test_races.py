"""Two arrivals at once (PostgreSQL): one identity per platform id, one session per MTurk assignment."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from crowd.models import CrowdSession, CrowdWorker
from crowd.services.sessions import mturk_open
from crowd.services.workers import crowd_worker_get_or_create
from tests.factories import crowd_campaign

pytestmark = pytest.mark.django_db(transaction=True)


def run_at_once(fn, n=4):
    barrier = threading.Barrier(n)
    results, errors = [], []

    def target():
        try:
            barrier.wait()
            results.append(fn())
        except Exception as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=target) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def test_the_same_worker_arriving_four_times_at_once_gets_one_identity(real_postgres):
    results, errors = run_at_once(
        lambda: crowd_worker_get_or_create(platform="prolific", external_id="pidX").pk
    )
    assert errors == []
    assert len(set(results)) == 1 and CrowdWorker.objects.count() == 1


def test_one_mturk_assignment_opened_four_times_at_once_is_one_session(real_postgres):
    _, _, campaign = crowd_campaign()
    results, errors = run_at_once(
        lambda: (
            mturk_open(
                campaign=campaign,
                worker_id="AW1",
                assignment_id="ASG1",
                hit_id="H1",
                submit_to="https://workersandbox.mturk.com",
            ).pk
        )
    )
    assert errors == []
    assert len(set(results)) == 1 and CrowdSession.objects.count() == 1


def test_one_mturk_assignment_presented_by_four_browsers_at_once_is_one_browsers(real_postgres):
    """Issue 35: the assignment belongs to the first browser; the three others are refused."""
    from itertools import count

    from crowd.services.entry import Browser, EntryRefused, mturk_enter

    _, _, campaign = crowd_campaign()
    numbers = count()

    def enter():
        n = next(numbers)
        browser = Browser(id=f"{n:032x}", returned=True, address=f"203.0.113.{n}")
        try:
            return mturk_enter(
                campaign=campaign,
                worker_id="AW1",
                assignment_id="ASG1",
                hit_id="H1",
                submit_to="https://workersandbox.mturk.com",
                browser=browser,
            ).browser
        except EntryRefused as refused:
            return refused.status

    results, errors = run_at_once(enter)
    assert errors == []
    assert results.count(409) == 3
    (session,) = CrowdSession.objects.all()
    assert [r for r in results if r != 409] == [session.browser]
