"""Crowd platforms: worker identities, invite links, platform sessions, MTurk HITs, audit log, bonuses.

The HIT/assignment model stays ranking's (Hit, Assignment, ScreenJudgment);
these tables only say who a worker is on which platform, how they arrived,
what the platform was asked to do and what it answered.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ranking.models import Assignment, Campaign


class Platform(models.TextChoices):
    INVITE = "invite", "Invite link"
    PROLIFIC = "prolific", "Prolific"
    MTURK = "mturk", "Amazon Mechanical Turk"
    IMPORTED = "imported", "Imported judgments"


class CrowdWorker(models.Model):
    """A worker identity on one platform, mapped to one Django user (no password).

    (platform, external_id) is unique: an MTurk WorkerId or a Prolific PID
    always maps to the same user, so ranking's unique (hit, worker) stops the
    same person from taking a HIT twice through that platform. Across
    platforms the ids are unrelated; two identities are one user only when a
    researcher links them (same ``user``).
    """

    platform = models.CharField(max_length=16, choices=Platform.choices)
    external_id = models.CharField(max_length=200)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="crowd_ids")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "external_id"], name="crowd_worker_unique_id"),
            models.CheckConstraint(
                condition=Q(platform__in=[p.value for p in Platform]), name="crowd_worker_platform_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.platform}:{self.external_id}"


class CrowdSettings(models.Model):
    """Per campaign: welcome and consent texts, completion codes, HITs per visit, fees and minimum wage."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="crowd_settings")
    welcome_text = models.TextField(
        blank=True, help_text="shown first, above the consent (e.g. who runs the study)"
    )
    consent_text = models.TextField(blank=True, help_text="shown before the first task; workers must agree")
    completion_code = models.CharField(max_length=64, blank=True, help_text="shown at the end (invite links)")
    prolific_completed_code = models.CharField(max_length=64, blank=True)
    prolific_screened_out_code = models.CharField(max_length=64, blank=True)
    prolific_study_id = models.CharField(
        max_length=64,
        blank=True,
        help_text="the campaign's Prolific study: a submission is confirmed only when Prolific names this "
        "study (empty: Prolific work stays held until set, or released by the researcher)",
    )
    hits_per_visit = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        default=None,
        help_text="HITs before the end page; 0 = no limit; empty: the platform's default (invite links: no "
        "limit, Prolific: 1; MTurk is always 1): crowd.services.sessions.visit_hit_limit",
    )
    fee_percent = models.DecimalField(
        max_digits=5, decimal_places=2, default=0, help_text="platform fee on rewards and bonuses"
    )
    min_hourly_wage = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    mturk_qualification_type_id = models.CharField(
        max_length=64, blank=True, help_text="MTurk qualification granted to workers who passed our screening"
    )
    # Issue 40: the per-address limits of issue 18 are the campaign's to see and set (the server's
    # LIVE_ASSIGNMENTS_PER_ADDRESS and INVITE_IDENTITIES_PER_ADDRESS_PER_DAY are the defaults).
    live_per_address = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="live HITs one network address may hold at once (empty: the server default; 0: no limit)",
    )
    identities_per_address_day = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="new people a reusable link admits from one network address a day (empty: the server "
        "default; 0: no limit)",
    )
    shared_network = models.BooleanField(
        default=False,
        help_text="a lab or a classroom behind one address: the address limits are off, a reusable link "
        "admits at most `seats` people, one per browser",
    )
    seats = models.PositiveIntegerField(
        null=True, blank=True, help_text="shared network: people a reusable link admits in all"
    )

    class Meta:
        verbose_name_plural = "crowd settings"
        constraints = [
            models.CheckConstraint(
                condition=Q(shared_network=False) | Q(seats__gte=1), name="crowd_shared_network_has_seats"
            ),
            models.CheckConstraint(
                condition=Q(fee_percent__gte=0) & Q(fee_percent__lte=100), name="crowd_fee_percent_0_100"
            ),
        ]

    def __str__(self) -> str:
        return f"crowd settings of {self.campaign_id}"


class InviteLink(models.Model):
    """A link into a campaign. Single-use: one worker identity, resumed on each visit.
    Reusable: each new visitor gets an identity (remembered by a first-party cookie)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invite_links")
    code = models.CharField(max_length=40, unique=True)
    reusable = models.BooleanField(default=False)
    label = models.CharField(max_length=200, blank=True)
    worker = models.ForeignKey(
        CrowdWorker, on_delete=models.PROTECT, null=True, blank=True, related_name="invites"
    )
    uses = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(reusable=True, worker__isnull=True) | Q(reusable=False),
                name="invite_reusable_has_no_worker",
            )
        ]

    def __str__(self) -> str:
        return f"invite {self.pk} of {self.campaign_id}"


class CrowdSession(models.Model):
    """One arrival of a worker in a campaign through a platform (a Prolific session, an MTurk
    assignment, an invite visit). Its signed id in the URL carries the session: no cookies.

    One of our assignments belongs to one session (a unique index on the assignments table,
    migration 0006): two browsers never work on, nor submit into, the same HIT."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="crowd_sessions")
    worker = models.ForeignKey(CrowdWorker, on_delete=models.PROTECT, related_name="sessions")
    platform = models.CharField(max_length=16, choices=Platform.choices)
    external_session = models.CharField(
        max_length=200, blank=True, help_text="Prolific SESSION_ID, MTurk assignmentId, invite code"
    )
    study = models.CharField(max_length=200, blank=True, help_text="Prolific STUDY_ID or MTurk hitId")
    submit_to = models.URLField(blank=True, help_text="MTurk turkSubmitTo")
    assignments = models.ManyToManyField(Assignment, blank=True, related_name="crowd_sessions")
    consented = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    confirmed = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when the platform confirmed the submission (MTurk GetAssignment, Prolific's submission); "
        "until then the session's finished HITs are held (MTurk and Prolific only)",
    )
    outcome = models.CharField(
        max_length=16, blank=True, help_text="completed | screened-out | no-work | superseded"
    )
    client_address = models.CharField(
        max_length=64, blank=True, help_text="the address of the request that last claimed a HIT"
    )
    browser = models.CharField(
        max_length=32, blank=True, help_text="the random id of the browser that opened it (a signed cookie)"
    )
    browser_proven = models.BooleanField(
        default=False,
        help_text="that browser sent its cookie back (in MTurk's iframe it may not): from then on only "
        "the cookie, never the client address, tells it apart",
    )
    created = models.DateTimeField(auto_now_add=True)
    last_active = models.DateTimeField(
        null=True,
        blank=True,
        help_text="the server's time of the session's last page view, heartbeat or submit (null: none since "
        "it was made): a visit idle for less than a lease is live (crowd/services/entry.py)",
    )

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["campaign", "client_address"], name="crowd_session_address"),
            models.Index(fields=["campaign", "browser"], name="crowd_session_browser"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "platform", "external_session"],
                condition=~Q(external_session="") & ~Q(platform="invite"),
                name="crowd_session_unique_external",
            )
        ]

    def __str__(self) -> str:
        return f"session {self.pk} ({self.platform})"


class MturkHit(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="mturk_hits")
    hit_id = models.CharField(max_length=64, unique=True)
    hit_type_id = models.CharField(max_length=64)
    sandbox = models.BooleanField(default=True)
    max_assignments = models.PositiveIntegerField()
    reward = models.DecimalField(max_digits=8, decimal_places=2)
    expired = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.hit_id


class MturkAssignment(models.Model):
    """An MTurk assignment as last synced from ListAssignmentsForHIT, and its review."""

    hit = models.ForeignKey(MturkHit, on_delete=models.CASCADE, related_name="assignments")
    assignment_id = models.CharField(max_length=64, unique=True)
    worker_id = models.CharField(max_length=64)
    status = models.CharField(max_length=16, help_text="Submitted | Approved | Rejected")
    submitted = models.DateTimeField(null=True, blank=True)
    synced = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.assignment_id


class Review(models.Model):
    """The researcher's decision on one of our assignments, as paid (or not) on the platform."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="crowd_review")
    approved = models.BooleanField()
    feedback = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{'approved' if self.approved else 'rejected'} {self.assignment_id}"


class Bonus(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="crowd_bonuses")
    worker = models.ForeignKey(CrowdWorker, on_delete=models.PROTECT, related_name="bonuses")
    amount = models.DecimalField(max_digits=8, decimal_places=2)
    reason = models.TextField(blank=True)
    request_token = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "bonuses"
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="crowd_bonus_positive")]

    def __str__(self) -> str:
        return f"{self.amount} to {self.worker_id}"


class PlatformCall(models.Model):
    """Audit log: every requester call to a platform with its parameters and response.

    ``request_token`` names the operation (e.g. ``approve-<assignment id>``);
    a successful call with the same token is never repeated.
    """

    platform = models.CharField(max_length=16, choices=Platform.choices)
    operation = models.CharField(max_length=64)
    request_token = models.CharField(max_length=64)
    campaign = models.ForeignKey(
        Campaign, on_delete=models.SET_NULL, null=True, blank=True, related_name="platform_calls"
    )
    params = models.JSONField(default=dict)
    response = models.JSONField(default=dict)
    ok = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    sandbox = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "request_token"], condition=Q(ok=True), name="platform_call_once"
            )
        ]
        indexes = [models.Index(fields=["platform", "request_token"])]

    def __str__(self) -> str:
        return f"{self.platform} {self.operation} {self.request_token}"
