"""Judgment campaigns, HITs, screens, ratings and results (systems and outputs live in annotate)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotate.models import Corpus, Output, Project, Sentence, System
from geceval.errors import GecInputError
from geceval.human import worker_checks as checks
from geceval.traps.inserter import ERROR_TYPES
from ranking.statuses import (
    HOLD_REASON_VALID,
    LIVE_ASSIGNMENT,
    AssignmentStatus,
    HoldReason,
)

_ONE_TYPE = "(" + "|".join(ERROR_TYPES) + ")"
_ERROR_TYPES_LIST = f"^({_ONE_TYPE}(,{_ONE_TYPE})*)?$"
"""A comma-separated list of known error types, or nothing."""


class CampaignStatus(models.TextChoices):
    """The life cycle (ranking.services.life_cycle): a draft is launched or piloted, paused and
    resumed, closed and reopened. Workers get new HITs only from an active or pilot campaign."""

    DRAFT = "draft"
    PILOT = "pilot"
    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


LIVE_CAMPAIGN_STATUSES = (CampaignStatus.ACTIVE, CampaignStatus.PILOT)
"""Statuses in which a campaign hands out new HITs."""


class CampaignOrigin(models.TextChoices):
    COLLECTED = "collected", "collected here"
    IMPORTED = "imported", "imported from past crowd results"


class TrapDesign(models.TextChoices):
    HIDDEN = "hidden", "hidden traps (erroneous copies of judged outputs)"
    PAPER = "paper", "the GMEG paper's design (Source+error beside the source)"


class Campaign(models.Model):
    """A judgment campaign over one corpus (or one domain of it) and some of its systems.

    Judgments imported from earlier campaigns (MTurk CSV, Appraise XML, WMT CSV,
    PRWS CSV) are stored as a closed campaign of origin ``imported``, so every
    analysis reads one shape of data.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="campaigns")
    corpus = models.ForeignKey(Corpus, on_delete=models.PROTECT, related_name="campaigns")
    name = models.CharField(max_length=200)
    protocol = models.CharField(
        max_length=16, default="prws", help_text="a registered protocol's name (ranking.protocols)"
    )
    systems = models.ManyToManyField(System, related_name="campaigns")
    domain = models.CharField(max_length=100, blank=True, help_text="only sentences of this domain")
    reference = models.ForeignKey(
        System,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="shown beside the source",
    )
    status = models.CharField(max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.ACTIVE)
    origin = models.CharField(max_length=16, choices=CampaignOrigin.choices, default=CampaignOrigin.COLLECTED)
    item_key = models.CharField(
        max_length=300,
        blank=True,
        help_text="imported from Appraise XML: how its items named sentences (src-id and base, or id)",
    )
    # not a smallint: an imported campaign records how often its most judged item was judged, which
    # a past-results file may put past 32,767 (a crowd campaign's form caps it at 50)
    judgments_per_item = models.PositiveIntegerField(default=8, help_text="distinct valid judges per item")
    max_candidates = models.PositiveSmallIntegerField(default=5, help_text="outputs per screen")
    screens_per_sentence = models.PositiveSmallIntegerField(
        default=1, help_text="ranking: random draws per sentence"
    )
    show_changes = models.BooleanField(
        default=False,
        help_text="judgment screens offer each correction's word diff against the original (the d key)",
    )
    active_selection = models.BooleanField(
        default=False, help_text="ranking: TrueSkill picks each screen's systems from the judgments so far"
    )
    preview_sentence = models.ForeignKey(
        Sentence,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="the example a platform's preview shows (never judged, stored or counted); "
        "null: the built-in example",
    )
    screens_per_hit = models.PositiveSmallIntegerField(default=20)
    assignment_minutes = models.PositiveIntegerField(
        default=60, help_text="an unfinished HIT returns to the pool"
    )
    separate_domains = models.BooleanField(default=False, help_text="no worker gets two domains on one day")
    trap_system = models.ForeignKey(
        System,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        limit_choices_to={"kind": "source+error"},
    )
    trap_design = models.CharField(max_length=8, choices=TrapDesign.choices, default=TrapDesign.HIDDEN)
    trap_rate = models.FloatField(
        default=0.0,
        help_text="hidden: trap screens per judged screen of a HIT; paper: share of screens with Source+error",
    )
    trap_margin = models.PositiveSmallIntegerField(
        default=1, help_text="PRWS points a trap must be rated below its base to pass"
    )
    trap_min_drop = models.FloatField(
        default=0.25, help_text="sentence GLEU+ a generated trap must lose against its base (with references)"
    )
    trap_error_types = models.CharField(
        max_length=120,
        blank=True,
        default="",
        help_text="errors a generated trap may add, comma-separated names of geceval.insert_errors.ERROR_TYPES "
        "(blank: every type)",
    )
    trap_errors = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="errors added per generated trap, 1 or 2 (null: 1 or 2, drawn per trap)",
    )
    repeat_rate = models.FloatField(
        default=0.0, help_text="exact repeats of a judged screen per judged screen of a HIT (consistency)"
    )
    trap_secret = models.CharField(
        max_length=64,
        blank=True,
        editable=False,
        help_text="seeds trap generation and placement; server-side only, never shown or exported",
    )
    trap_threshold = models.FloatField(
        default=checks.DEFAULT_TRAP_THRESHOLD, help_text="a worker must pass at least this share of traps"
    )
    trap_min_seen = models.PositiveSmallIntegerField(
        default=checks.DEFAULT_TRAP_MIN_SEEN, help_text="traps seen before exclusion applies"
    )
    min_seconds = models.FloatField(
        default=5.0, help_text="screens faster than this are flagged too fast (with the speed rule off)"
    )
    # Speed is evidence (issue 35): a too-fast screen is a failed trap, too fast a HIT held (services.holds).
    speed_rule = models.BooleanField(
        default=False,
        help_text="a screen answered faster than its minimum plausible time counts as a failed trap; a HIT "
        "finished in under half its screens' minimum is held (on for campaigns made on the form or the API)",
    )
    speed_base_seconds = models.FloatField(default=2.0, help_text="speed rule: seconds every screen needs")
    # The sample judged (issue 40, services.campaign_checks.campaign_sentences): a line range of the
    # corpus (or domain), then its first ``sample_size`` sentences or a seeded random draw of them.
    sample_first_line = models.PositiveIntegerField(
        null=True, blank=True, help_text="first corpus line judged, from 1 (empty: the first)"
    )
    sample_last_line = models.PositiveIntegerField(
        null=True, blank=True, help_text="last corpus line judged, from 1 (empty: the last)"
    )
    sample_size = models.PositiveIntegerField(
        null=True, blank=True, help_text="sentences judged from the range (empty: every one)"
    )
    sample_seed = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="with a size: a random sample drawn with this seed (empty: the range's first sentences)",
    )
    # The pilot check (issue 40, services.holds): a worker whose first HIT looks scripted is held.
    pilot_hold = models.BooleanField(
        default=False,
        help_text="a worker whose first HIT has near-constant answers or screens under the minimum time is "
        "held until their evidence clears or the researcher decides (on for campaigns made on the form or the API)",
    )
    speed_seconds_per_word = models.FloatField(
        default=0.05, help_text="speed rule: seconds more per word shown (the source and every candidate)"
    )
    # Which evidence excludes a worker (issue 17; geceval.human.worker_checks); every signal is shown either way.
    exclude_by_pass_rate = models.BooleanField(default=True, help_text="trap pass rate below the threshold")
    exclude_by_mann_whitney = models.BooleanField(
        default=True,
        help_text=f"traps not rated worse than their bases (Appraise's test, from {checks.MANN_WHITNEY_MIN_TRAPS} scored traps, {checks.MANN_WHITNEY_MIN_RANKED_TRAPS} ranked)",
    )
    exclude_by_consistency = models.BooleanField(
        default=False, help_text="repeated screens answered far apart"
    )
    exclude_by_flat = models.BooleanField(
        default=False, help_text="near-constant answers, or answers that follow display position"
    )
    exclude_by_agreement = models.BooleanField(
        default=False,
        help_text="agreement with the other workers far below the campaign's (held for the researcher either way)",
    )
    gold_threshold = models.FloatField(
        default=0.7, help_text="share of pairwise preferences a worker must share with the gold answers"
    )
    gold_rate = models.FloatField(
        default=0.0, help_text="copies of the researcher's gold screens per judged screen of each HIT"
    )
    reward_per_hit = models.DecimalField(max_digits=8, decimal_places=2, default=0)
    budget = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    qualification = models.ForeignKey(
        "annotate.Qualification",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="judgment_campaigns",
        help_text="workers must have passed this screening first",
    )
    seed = models.IntegerField(default=0)
    instructions = models.TextField(blank=True)
    study = models.JSONField(
        default=dict,
        blank=True,
        help_text="the study document last applied to the campaign (python manage.py study apply); "
        "empty for one made in the browser or through the API (study export writes its document)",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="created_campaigns",
        null=True,
        blank=True,
        help_text="None for a judgment set imported into a project that has no owner.",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="campaign_unique_name_per_project"),
            models.CheckConstraint(
                condition=Q(judgments_per_item__gte=1), name="campaign_judgments_positive"
            ),
            # the protocol narrows it (PRWS and ranking: 2 to 5; a one-output protocol: 1)
            models.CheckConstraint(
                condition=Q(max_candidates__gte=1) & Q(max_candidates__lte=5),
                name="campaign_candidates_1_to_5",
            ),
            models.CheckConstraint(
                condition=Q(screens_per_hit__gte=1), name="campaign_screens_per_hit_positive"
            ),
            models.CheckConstraint(
                condition=Q(trap_rate__gte=0) & Q(trap_rate__lte=1), name="campaign_trap_rate_0_1"
            ),
            models.CheckConstraint(
                condition=Q(repeat_rate__gte=0) & Q(repeat_rate__lte=1), name="campaign_repeat_rate_0_1"
            ),
            models.CheckConstraint(
                condition=Q(gold_rate__gte=0) & Q(gold_rate__lte=1), name="campaign_gold_rate_0_1"
            ),
            models.CheckConstraint(
                condition=Q(trap_design__in=[d.value for d in TrapDesign]), name="campaign_trap_design_valid"
            ),
            models.CheckConstraint(
                condition=Q(trap_errors__isnull=True) | Q(trap_errors__in=[1, 2]),
                name="campaign_trap_errors_1_2",
            ),
            models.CheckConstraint(
                condition=Q(trap_error_types__regex=_ERROR_TYPES_LIST), name="campaign_trap_error_types_known"
            ),
            models.CheckConstraint(
                condition=Q(trap_threshold__gte=0) & Q(trap_threshold__lte=1),
                name="campaign_trap_threshold_0_1",
            ),
            models.CheckConstraint(
                condition=Q(assignment_minutes__gte=1), name="campaign_assignment_minutes"
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in CampaignStatus]), name="campaign_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(speed_base_seconds__gte=0)
                & Q(speed_base_seconds__lte=600)
                & Q(speed_seconds_per_word__gte=0)
                & Q(speed_seconds_per_word__lte=10),
                name="campaign_speed_rule_range",
            ),
            models.CheckConstraint(
                condition=(Q(sample_first_line__isnull=True) | Q(sample_first_line__gte=1))
                & (
                    Q(sample_first_line__isnull=True)
                    | Q(sample_last_line__isnull=True)
                    | Q(sample_first_line__lte=F("sample_last_line"))
                )
                & (Q(sample_size__isnull=True) | Q(sample_size__gte=1))
                & (Q(sample_seed__isnull=True) | Q(sample_size__isnull=False)),
                name="campaign_sample_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def trap_types(self) -> tuple[str, ...] | None:
        """The error types a generated trap may add (None: every type)."""
        return tuple(self.trap_error_types.split(",")) if self.trap_error_types else None

    def get_protocol_display(self) -> str:
        """The protocol's label, as Django's ``choices`` would give it (templates call this)."""
        # Lazy: the registry's modules import these models.
        from ranking.protocols import protocol_get

        try:
            return protocol_get(self.protocol).label
        except GecInputError:
            return self.protocol


class Hit(models.Model):
    """A fixed bundle of screens; ``judgments_per_item`` workers each do all of it.

    A qualification HIT holds copies of a few screens that an expert answered
    first (the gold); a worker must agree with the gold well enough before
    getting real HITs. It never enters results.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="hits")
    index = models.PositiveIntegerField()
    domain = models.CharField(max_length=100, blank=True)
    qualification = models.BooleanField(default=False)

    class Meta:
        ordering = ["campaign", "index"]
        constraints = [models.UniqueConstraint(fields=["campaign", "index"], name="hit_unique_index")]

    def __str__(self) -> str:
        return f"HIT {self.index} of {self.campaign_id}"


class Screen(models.Model):
    """What a judge sees at once: one source sentence and up to five distinct outputs."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="screens")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="screens")
    index = models.PositiveSmallIntegerField(default=0, help_text="screens of one sentence")
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, null=True, blank=True, related_name="screens")
    hit_position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["campaign", "hit_id", "hit_position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "sentence", "index"], name="screen_unique_per_sentence"
            ),
            models.UniqueConstraint(fields=["hit", "hit_position"], name="screen_unique_hit_position"),
        ]

    def __str__(self) -> str:
        return f"screen {self.pk}"


class Candidate(models.Model):
    """One distinct text on a screen; it stands for every output with that text.

    Whether it is a trap is derived from its outputs' systems and never stored
    on the candidate, so nothing rendered from it can tell.
    """

    screen = models.ForeignKey(Screen, on_delete=models.CASCADE, related_name="candidates")
    position = models.PositiveSmallIntegerField(help_text="shuffled display order")
    text = models.TextField(blank=True)
    outputs = models.ManyToManyField(Output, related_name="candidates")

    class Meta:
        ordering = ["screen", "position"]
        constraints = [
            models.UniqueConstraint(fields=["screen", "position"], name="candidate_unique_position"),
        ]

    def __str__(self) -> str:
        return f"candidate {self.pk}"


class ControlKind(models.TextChoices):
    ADDED_ERROR = "added_error", "trap: 1-2 errors added to the base"
    UNDONE_CORRECTION = "undone_correction", "trap: one of the base's corrections undone"
    ADDED_CORRECTION = "added_correction", "trap: a correction the references agree on added"
    REPEAT = "repeat", "repeat: the same screen again"
    GOLD = "gold", "gold: a copy of a screen the researcher answered"


COPIED_KINDS = (
    ControlKind.ADDED_ERROR,
    ControlKind.UNDONE_CORRECTION,
    ControlKind.ADDED_CORRECTION,
    ControlKind.GOLD,
)
"""Controls that copy a screen of another HIT (a trap's donor, a gold screen): a worker is never handed
a HIT that shows again a sentence they saw in another HIT beside one of these (issue 41; the claim's
``ranking.work.reads._copies_seen_sql``). A repeat copies a screen of its own HIT: nothing new."""


class Control(models.Model):
    """A quality-control screen of a hidden-trap campaign: either a repeat, an exact copy in the same
    HIT of a judged screen (``original``), for the consistency check; or a trap, a copy of a judged
    screen of another HIT in which an erroneous version (``trap``) of one candidate (``base``) took
    another candidate's place, so base and trap are judged side by side on this screen. A trap's
    ``original`` is a screen of its own HIT whose judgment its verdict waits for (issue 41: no screen
    of the HIT is a near-copy of a trap's; ``ranking.quality.controls``). A trap of one candidate
    (PRWS) has no room for its base: it copies ``original``, in the same HIT, and replaces the base
    there. A gold copy (issue 41) is an exact copy of a screen of another HIT that the researcher
    answered (``GoldScreen``); its ``original`` is a screen of its own HIT its verdict waits for. No
    worker is handed two HITs that show one sentence beside a trap or gold copy (``COPIED_KINDS``). Kept in a table
    of its own that no worker's page or API reads; control screens never count in results
    (``ranking.selectors.valid_judgment``).
    """

    screen = models.OneToOneField(Screen, on_delete=models.CASCADE, related_name="control")
    original = models.ForeignKey(Screen, on_delete=models.CASCADE, related_name="copies")
    kind = models.CharField(max_length=20, choices=ControlKind.choices)
    base = models.ForeignKey(Candidate, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    trap = models.OneToOneField(
        Candidate, on_delete=models.CASCADE, null=True, blank=True, related_name="trap_control"
    )
    base_quality = models.FloatField(null=True, blank=True, help_text="sentence GLEU+ of the base")
    trap_quality = models.FloatField(null=True, blank=True, help_text="sentence GLEU+ of the trap")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(screen=models.F("original")), name="control_not_itself"),
            models.CheckConstraint(
                condition=(Q(kind__in=["repeat", "gold"], base__isnull=True, trap__isnull=True))
                | (~Q(kind__in=["repeat", "gold"]) & Q(base__isnull=False, trap__isnull=False)),
                name="control_trap_has_base",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} control of screen {self.original_id}"


class Assignment(models.Model):
    """One worker doing one HIT. A live assignment (active or submitted) holds one of the HIT's slots."""

    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    slot = models.PositiveSmallIntegerField()
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.ACTIVE
    )
    started = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()
    submitted = models.DateTimeField(null=True, blank=True)
    gold = models.BooleanField(default=False, help_text="an expert's answers to a qualification HIT")
    hold_reason = models.CharField(
        max_length=16,
        choices=HoldReason.choices,
        blank=True,
        default="",
        help_text="why it is held (or was dropped); kept while excluded, so inclusion holds it again",
    )

    class Meta:
        ordering = ["-started"]
        constraints = [
            # A worker never gets the same HIT (hence the same item) twice.
            models.UniqueConstraint(fields=["hit", "worker"], name="assignment_one_per_worker_hit"),
            # Two workers asking at once can never hold the same slot.
            models.UniqueConstraint(
                fields=["hit", "slot"], condition=LIVE_ASSIGNMENT, name="assignment_live_slot"
            ),
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in AssignmentStatus]), name="assignment_status_valid"
            ),
            models.CheckConstraint(condition=HOLD_REASON_VALID, name="assignment_hold_reason_valid"),
        ]
        indexes = [models.Index(fields=["status", "expires"])]

    def __str__(self) -> str:
        return f"assignment {self.pk} ({self.status})"


class ScreenJudgment(models.Model):
    """One judge's submission of one screen. Resubmitting is a no-op (unique constraint).

    It counts in results only while its assignment is submitted (not expired,
    returned or excluded).
    """

    screen = models.ForeignKey(Screen, on_delete=models.CASCADE, related_name="judgments")
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="judgments")
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="screen_judgments"
    )
    created = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(
        null=True, blank=True, help_text="server time on the screen (null: no valid stamp)"
    )
    client_seconds = models.FloatField(
        null=True, blank=True, help_text="time the worker's client reported: kept, never used for checks"
    )
    min_seconds = models.FloatField(
        null=True,
        blank=True,
        help_text="the screen's minimum plausible time under the campaign's speed rule (null: rule off)",
    )
    trap_passed = models.BooleanField(null=True, help_text="null: no trap on the screen (or no verdict yet)")
    trap_base_answer = models.SmallIntegerField(
        null=True, blank=True, help_text="the worker's score or rank of the trap's base"
    )
    trap_answer = models.SmallIntegerField(
        null=True, blank=True, help_text="the worker's score or rank of the trap"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["screen", "judge"], name="judgment_one_per_judge_screen"),
            models.CheckConstraint(
                condition=Q(seconds__gte=0) | Q(seconds__isnull=True), name="judgment_seconds_ok"
            ),
            models.CheckConstraint(
                condition=Q(min_seconds__gte=0) | Q(min_seconds__isnull=True), name="judgment_min_seconds_ok"
            ),
        ]

    def __str__(self) -> str:
        return f"judgment {self.pk} of screen {self.screen_id}"


class Rating(models.Model):
    """A PRWS slider value (0-100) or a rank (1 = best, ties allowed) for one candidate."""

    judgment = models.ForeignKey(ScreenJudgment, on_delete=models.CASCADE, related_name="ratings")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="ratings")
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    meaning_changed = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judgment", "candidate"], name="rating_one_per_candidate"),
            models.CheckConstraint(
                condition=(Q(score__isnull=False, score__gte=0, score__lte=100, rank__isnull=True))
                | (Q(rank__isnull=False, rank__gte=1, rank__lte=5, score__isnull=True)),
                name="rating_score_or_rank",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.score if self.rank is None else f'rank {self.rank}'} for candidate {self.candidate_id}"
