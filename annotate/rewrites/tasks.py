"""Celery wrappers: ids in, the service does the work; re-running is harmless."""

from __future__ import annotations

from celery import shared_task

from annotate.models import QualificationAnswer, QualificationStatus
from annotate.rewrites.qualifications import qualification_grade


@shared_task(name="annotate.rewrites.tasks.task_qualification_grade")
def task_qualification_grade(*, attempt_id: int) -> int:

    return qualification_grade(attempt_id=attempt_id)


@shared_task(name="annotate.rewrites.tasks.task_grade_pending_qualifications")
def task_grade_pending_qualifications() -> int:
    """Periodic (beat): grade answers whose grading task was lost (e.g. the broker was down)."""

    pending = (
        QualificationAnswer.objects.filter(gleu__isnull=True, attempt__status=QualificationStatus.SUBMITTED)
        .values_list("attempt_id", flat=True)
        .distinct()
    )
    return sum(qualification_grade(attempt_id=attempt_id) for attempt_id in pending)
