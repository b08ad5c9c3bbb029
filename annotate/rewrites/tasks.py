"""Celery wrappers: ids in, the service does the work; re-running is harmless."""

from __future__ import annotations

from celery import shared_task


@shared_task
def task_qualification_grade(*, attempt_id: int) -> int:
    from annotate.rewrites.qualifications import qualification_grade

    return qualification_grade(attempt_id=attempt_id)
