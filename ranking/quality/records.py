"""What is computed from a campaign's judgments: each worker's trap record and evidence, each
system's score (imported by ranking.models so Django finds them)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import System
from ranking.models.campaigns import Campaign

__all__ = ["PilotDoubt", "ScoresDue", "SystemScore", "WorkerOverride", "WorkerRecord"]


class WorkerOverride(models.TextChoices):
    NONE = "", "automatic"
    INCLUDE = "include", "always include"
    EXCLUDE = "exclude", "always exclude"


class PilotDoubt(models.TextChoices):
    """Why a worker is held by the pilot check (issue 40: ``ranking.quality.holds``)."""

    NONE = "", "not held"
    CONSTANT = "constant", "near-constant answers in their first HIT"
    FAST = "fast", "screens of their first HIT under the minimum plausible time"


class WorkerRecord(models.Model):
    """A worker's trap record and evidence in a campaign, recomputed from their judgments after each
    submit with a trap verdict or on a repeat (``ranking.quality.exclusion.worker_record_refresh``);
    the evidence from the rest of the crowd by a task sent on commit (``crowd_due``, issue 38)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="worker_records")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    traps_seen = models.PositiveIntegerField(
        default=0, help_text="trap verdicts, and screens answered under their minimum (the speed rule)"
    )
    traps_passed = models.PositiveIntegerField(
        default=0, help_text="traps passed in no less than the minimum"
    )
    too_fast = models.PositiveIntegerField(
        default=0, help_text="screens answered under their minimum time (speed rule), each a failed trap"
    )
    gold_seen = models.PositiveIntegerField(
        default=0, help_text="copies of the researcher's gold screens judged (counted among traps_seen)"
    )
    gold_passed = models.PositiveIntegerField(
        default=0, help_text="gold copies answered as the researcher expected (counted among traps_passed)"
    )
    trap_kinds = models.JSONField(
        default=dict,
        blank=True,
        help_text="per kind of hidden trap (added error, undone correction, added correction): "
        "[seen, passed], gold copies aside (issue 41: a kind failed every time excludes)",
    )
    excluded = models.BooleanField(default=False)
    override = models.CharField(max_length=8, choices=WorkerOverride.choices, blank=True, default="")
    qualified = models.BooleanField(null=True, help_text="passed the campaign's gold test (null: not taken)")
    gold_agreement = models.FloatField(null=True, blank=True)
    mann_whitney_p = models.FloatField(
        null=True, blank=True, help_text="bases rated better than traps (null: <10)"
    )
    repeats_seen = models.PositiveIntegerField(default=0)
    repeat_distance = models.FloatField(
        null=True, blank=True, help_text="repeats: PRWS mean points apart; ranking: share of pairs flipped"
    )
    inconsistent = models.BooleanField(default=False)
    flat_reason = models.CharField(
        max_length=8, blank=True, default="", help_text="constant, position or empty"
    )
    score_spread = models.FloatField(
        null=True, blank=True, help_text="PRWS: standard deviation of the scores"
    )
    position_rho = models.FloatField(null=True, blank=True, help_text="Spearman rho of answer and position")
    pilot_doubt = models.CharField(
        max_length=8,
        choices=PilotDoubt.choices,
        blank=True,
        default="",
        help_text="the pilot check holds every finished HIT of the worker while this is set",
    )
    agreement = models.FloatField(
        null=True,
        blank=True,
        help_text="agreement with the crowd: r of the worker's answers and the other workers' mean on the "
        "same screens (null: too few shared screens)",
    )
    drift_from = models.DateTimeField(
        null=True,
        blank=True,
        help_text="the recent traps fail while the total passes: when the failing stretch began",
    )
    agreement_drift_from = models.DateTimeField(
        null=True,
        blank=True,
        help_text="the recent screens agree far below the other workers' while the total does not: "
        "when that stretch began",
    )
    agreement_screens = models.PositiveIntegerField(default=0, help_text="screens shared with other workers")
    agreement_low = models.BooleanField(
        default=False, help_text="agreement far below the campaign's other workers'"
    )
    agreement_family = models.PositiveIntegerField(
        default=0,
        help_text="other accounts whose answers agree with this worker's at r 0.7 or more, and 0.3 more "
        "than it agrees with everyone, left out of the crowd its agreement is measured against (one "
        "program's accounts would vouch for each other)",
    )
    agreement_vouches = models.BooleanField(
        default=False,
        help_text="agreement with the others at least half the median worker's (0.25 at least), not drifting, no twin: the "
        "pass-rate rule allows this worker a tenth under the campaign's threshold",
    )
    same_as = models.JSONField(
        default=list,
        blank=True,
        help_text="ids of workers whose answers on shared screens are alike beyond chance (one person)",
    )
    crowd_due = models.DateTimeField(
        null=True,
        blank=True,
        help_text="since when the crowd evidence (agreement, one person, agreement drift) waits for its "
        "task (null: up to date); a submit recounts the worker's own evidence only",
    )
    crowd_counted = models.DateTimeField(
        null=True,
        blank=True,
        help_text="when the crowd evidence was last counted (its reads began): other workers' "
        "judgments of the worker's screens saved since are not in it yet (null: never counted)",
    )
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "worker"], name="worker_record_unique"),
            models.CheckConstraint(
                condition=Q(pilot_doubt__in=[d.value for d in PilotDoubt]), name="worker_pilot_doubt_valid"
            ),
            models.CheckConstraint(
                condition=Q(traps_passed__lte=models.F("traps_seen")), name="worker_traps_ok"
            ),
            models.CheckConstraint(
                condition=Q(gold_passed__lte=models.F("gold_seen"), gold_seen__lte=models.F("traps_seen")),
                name="worker_gold_ok",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.worker_id} in {self.campaign_id}"

    @property
    def pass_rate(self) -> float | None:
        return self.traps_passed / self.traps_seen if self.traps_seen else None


class SystemScore(models.Model):
    """Per-system result of a campaign, recomputed by a Celery task from the valid judgments.

    PRWS: mean of sentence means (0-100). Ranking: TrueSkill mean mu with its
    95% rank range and cluster.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="system_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="scores")
    mean_score = models.FloatField()
    ratings = models.PositiveIntegerField()
    items = models.PositiveIntegerField()
    meaning_changed = models.PositiveIntegerField(default=0)
    rank_lo = models.PositiveSmallIntegerField(null=True, blank=True)
    rank_hi = models.PositiveSmallIntegerField(null=True, blank=True)
    cluster = models.PositiveSmallIntegerField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-mean_score"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "system"], name="system_score_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.system_id}: {self.mean_score:.2f}"


class ScoresDue(models.Model):
    """A campaign whose results wait for a recompute already sent (``ranking.services.results``): while
    its row exists no other is sent, so a crowd submitting faster than a recompute runs queues one task
    per campaign, not one per submit. The task deletes the row before it reads; beat's repair deletes it
    too, so a task lost with the broker down does not keep the next ones from being sent."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, primary_key=True, related_name="+")
    since = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"campaign {self.campaign_id}: results due since {self.since:%Y-%m-%d %H:%M:%S}"
