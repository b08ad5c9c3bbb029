"""Fair leases: a claimed HIT is held for a short lease that the worker's activity keeps renewing.

A claim holds its slot for ``ASSIGNMENT_LEASE_MINUTES`` (15 by default), not the campaign's whole
``assignment_minutes``: a visitor who claims and leaves gives the slot back after the lease. Each
submitted screen and each heartbeat of the open page (``assignment_heartbeat``) renews the lease,
never past ``started + assignment_minutes``, the campaign's hard limit for one HIT.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
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


def _renew(pk: int, now: datetime, new: datetime) -> bool:
    """The conditional UPDATE: only an active assignment whose lease runs from ``now`` to before ``new``."""
    active = Assignment.objects.filter(
        pk=pk, status=AssignmentStatus.ACTIVE, expires__gte=now, expires__lt=new
    )
    return active.update(expires=new) > 0


def assignment_heartbeat(*, assignment: Assignment, now: datetime | None = None) -> datetime | None:
    """The worker's page is still open: renew the lease (see assignment_lease_extend)."""
    return assignment_lease_extend(assignment=assignment, campaign=assignment.hit.campaign, now=now)
