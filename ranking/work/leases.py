"""Fair leases: a claimed HIT is held for a short lease that the worker's activity keeps renewing.

A claim holds its slot for ``ASSIGNMENT_LEASE_MINUTES`` (15 by default), not the campaign's whole
``assignment_minutes``: a visitor who claims and leaves gives the slot back after the lease. Each
submitted screen and each heartbeat of the open page (``assignment_heartbeat``) renews the lease,
never past ``started + assignment_minutes``, the campaign's hard limit for one HIT.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

from django.conf import settings
from django.db import connection
from django.utils import timezone

from ranking.models import Assignment, AssignmentStatus, Campaign


def lease_minutes(campaign: Campaign) -> int:
    lease = settings.ASSIGNMENT_LEASE_MINUTES
    return campaign.assignment_minutes if lease <= 0 else min(lease, campaign.assignment_minutes)


def lease_first_expiry(campaign: Campaign, now: datetime) -> datetime:
    """The deadline of a HIT claimed now."""
    return now + timedelta(minutes=lease_minutes(campaign))


def assignment_lease_extend(
    *, assignment: Assignment, campaign: Campaign, now: datetime | None = None
) -> datetime | None:
    """Renew an active, not yet overdue assignment's lease; returns its deadline (None if not active).

    One conditional UPDATE: an assignment that expired, was submitted or returned meanwhile is
    left alone, and a lease is never shortened. ``assignment`` leaves with the new deadline.
    """
    if assignment.status != AssignmentStatus.ACTIVE:
        return None
    now = now or timezone.now()
    if assignment.expires < now:
        return None
    cap = (assignment.started or now) + timedelta(minutes=campaign.assignment_minutes)
    new = min(now + timedelta(minutes=lease_minutes(campaign)), cap)
    if new <= assignment.expires:
        return assignment.expires
    if _renew(assignment.pk, now, new):
        assignment.expires = new
    return assignment.expires


@cache
def _renew_sql() -> str:
    q, meta = connection.ops.quote_name, Assignment._meta
    status, expires = (q(meta.get_field(f).column) for f in ("status", "expires"))
    return (
        f"UPDATE {q(meta.db_table)} SET {expires} = %s WHERE {q(meta.pk.column)} = %s "
        f"AND {status} = %s AND {expires} >= %s AND {expires} < %s"
    )


def _renew(pk: int, now: datetime, new: datetime) -> bool:
    """The conditional UPDATE, as a plain statement: each submit makes it, and the ORM's would cost
    several times its CPU (issue 22; ranking/work/reads.py says why the hot path is plain SQL)."""
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(_renew_sql(), [adapt(new), pk, AssignmentStatus.ACTIVE.value, adapt(now), adapt(new)])
        return cursor.rowcount > 0


def assignment_heartbeat(*, assignment: Assignment, now: datetime | None = None) -> datetime | None:
    """The worker's page is still open: renew the lease (see assignment_lease_extend)."""
    return assignment_lease_extend(assignment=assignment, campaign=assignment.hit.campaign, now=now)
