"""Projects, corpora, sentences, systems and their outputs, rewrites and qualifications.

Text is stored exactly as imported (tokenisation, trailing spaces) so that an
export reproduces the input byte for byte.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q

SYSTEM_TAGS_PATTERN = r"^((classic|fluent|input)( (classic|fluent|input))*)?$"  # metaeval_2024.TAGS
TAGS_VALID = RegexValidator(SYSTEM_TAGS_PATTERN, "Tags are classic, fluent and input, separated by spaces.")
TAGS_HELP = "meta-evaluation subsets (Kobayashi et al. 2024): classic, fluent, input; space-separated"


class Role(models.TextChoices):
    """Django groups of the same names carry the permissions (see migration 0002) and choose the nav's
    pages; a member's role in a project, which is what opens it, is a ``ProjectRole``."""

    ANNOTATOR = "annotator"
    EXPERT = "expert"
    RESEARCHER = "researcher"
    ADMIN = "admin"


class Project(models.Model):
    """A research team's space: corpora, systems and campaigns belong to one project."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_projects",
        null=True,
        blank=True,
        help_text="None when a command created the project with no one to own it yet.",
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="projects", blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Corpus(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="corpora")
    name = models.CharField(max_length=200)
    language = models.CharField(max_length=16, default="en")
    description = models.TextField(blank=True)
    tokenized = models.BooleanField(
        default=False, help_text="Text is whitespace-tokenised (JFLEG, CoNLL): shown detokenised to people."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "name"]
        verbose_name_plural = "corpora"
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="corpus_unique_name_per_project")
        ]

    def __str__(self) -> str:
        return self.name


class Sentence(models.Model):
    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="sentences")
    position = models.PositiveIntegerField(help_text="0-based line number in the corpus")
    text = models.TextField()
    domain = models.CharField(max_length=100, blank=True)
    document_id = models.CharField(max_length=200, blank=True)
    paragraph_position = models.PositiveIntegerField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["corpus", "position"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "position"], name="sentence_unique_position"),
            models.CheckConstraint(condition=Q(position__gte=0), name="sentence_position_nonnegative"),
        ]
        indexes = [models.Index(fields=["corpus", "document_id", "paragraph_position"])]

    def __str__(self) -> str:
        return f"{self.corpus_id}:{self.position}"


# --------------------------------------------------------------------------- rewrite collection


class SystemKind(models.TextChoices):
    MODEL = "model", "Model output"
    SOURCE = "source", "Source (unchanged input)"
    REFERENCE = "reference", "Human reference"
    SOURCE_ERROR = "source+error", "Source+error (trap)"


class System(models.Model):
    """A set of outputs over one corpus: a GEC system, the source, a reference or the trap."""

    corpus = models.ForeignKey(Corpus, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=SystemKind.choices, default=SystemKind.MODEL)
    tags = models.CharField(
        max_length=32, blank=True, default="", validators=[TAGS_VALID], help_text=TAGS_HELP
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "ranking_system"  # created by the ranking app; moved here with its rows (issue 14)
        ordering = ["corpus", "name"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "name"], name="system_unique_name_per_corpus"),
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in SystemKind]), name="system_kind_valid"
            ),
            models.CheckConstraint(condition=Q(tags__regex=SYSTEM_TAGS_PATTERN), name="system_tags_valid"),
        ]

    def __str__(self) -> str:
        return self.name

    def tag_set(self) -> frozenset[str]:
        return frozenset(self.tags.split())


class Output(models.Model):
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="outputs")
    text = models.TextField(blank=True)  # an empty line is a valid output

    class Meta:
        db_table = "ranking_output"  # created by the ranking app; moved here with its rows (issue 14)
        constraints = [
            models.UniqueConstraint(fields=["system", "sentence"], name="output_one_per_system_sentence")
        ]

    def __str__(self) -> str:
        return f"{self.system_id}:{self.sentence_id}"


class RewritePreset(models.TextChoices):
    """What a rewrite campaign asks for: Sakaguchi et al. 2016's minimal or fluency edits, JFLEG's
    fluency rewrites, or GMEG's with the paragraph as context."""

    MINIMAL = "minimal", "Minimal edits"
    FLUENCY = "fluency", "Fluency edits"
    JFLEG = "jfleg", "JFLEG"
    GMEG = "gmeg", "GMEG (paragraph context)"


class RewriteCampaignStatus(models.TextChoices):
    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


class Qualification(models.Model):
    """A screening test: a worker rewrites the sample sentences; an expert accepts or rejects them."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="qualifications")
    name = models.CharField(max_length=200)
    instructions = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_qualifications"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="qualification_unique_name_per_project")
        ]

    def __str__(self) -> str:
        return self.name


class QualificationSample(models.Model):
    """One of the (usually 5) sentences a worker rewrites; graded against the corpus's references."""

    qualification = models.ForeignKey(Qualification, on_delete=models.CASCADE, related_name="samples")
    sentence = models.ForeignKey(Sentence, on_delete=models.PROTECT, related_name="qualification_samples")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["qualification", "position"]
        constraints = [
            models.UniqueConstraint(fields=["qualification", "sentence"], name="qualification_sample_unique"),
        ]

    def __str__(self) -> str:
        return f"sample {self.position} of {self.qualification_id}"


class QualificationStatus(models.TextChoices):
    IN_PROGRESS = "in_progress", "In progress"
    SUBMITTED = "submitted", "Awaiting review"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class QualificationAttempt(models.Model):
    """A worker's record for one qualification: one row per worker, its status is the decision."""

    qualification = models.ForeignKey(Qualification, on_delete=models.CASCADE, related_name="attempts")
    worker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="qualification_attempts"
    )
    status = models.CharField(
        max_length=16, choices=QualificationStatus.choices, default=QualificationStatus.IN_PROGRESS
    )
    retry_allowed = models.BooleanField(default=False, help_text="a rejected worker may try again")
    tries = models.PositiveSmallIntegerField(default=1)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="qualification_reviews",
    )
    reviewed = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    submitted = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["qualification", "created"]
        constraints = [
            models.UniqueConstraint(fields=["qualification", "worker"], name="qualification_attempt_unique"),
            models.CheckConstraint(
                condition=~Q(reviewer=models.F("worker")) | Q(reviewer__isnull=True),
                name="qualification_not_self_reviewed",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.worker_id} on {self.qualification_id}: {self.status}"


class QualificationAnswer(models.Model):
    attempt = models.ForeignKey(QualificationAttempt, on_delete=models.CASCADE, related_name="answers")
    sample = models.ForeignKey(QualificationSample, on_delete=models.CASCADE, related_name="answers")
    text = models.TextField()
    gleu = models.FloatField(null=True, blank=True, help_text="sentence GLEU+ against the references")
    errant_f05 = models.FloatField(null=True, blank=True, help_text="ERRANT F0.5 against the references")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["attempt", "sample__position"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "sample"], name="qualification_answer_unique"),
        ]

    def __str__(self) -> str:
        return f"answer {self.pk}"


class RewriteCampaign(models.Model):
    """Collect N independent rewrites of each sentence of a corpus (or of a domain / line range)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="rewrite_campaigns")
    corpus = models.ForeignKey(Corpus, on_delete=models.PROTECT, related_name="rewrite_campaigns")
    name = models.CharField(max_length=200)
    preset = models.CharField(max_length=16, choices=RewritePreset.choices, default=RewritePreset.MINIMAL)
    instructions = models.TextField()
    rewrites_per_sentence = models.PositiveSmallIntegerField(default=4)
    ask_difficulty = models.BooleanField(default=False)
    require_review = models.BooleanField(default=False)
    pay_per_sentence = models.DecimalField(max_digits=8, decimal_places=2, default=0)
    status = models.CharField(
        max_length=16, choices=RewriteCampaignStatus.choices, default=RewriteCampaignStatus.ACTIVE
    )
    domain = models.CharField(max_length=100, blank=True, help_text="only sentences of this domain")
    first_position = models.PositiveIntegerField(null=True, blank=True)
    last_position = models.PositiveIntegerField(null=True, blank=True)
    groups = models.ManyToManyField(
        "auth.Group", through="RewriteCampaignGroup", related_name="rewrite_campaigns", blank=True
    )
    qualification = models.ForeignKey(
        Qualification, on_delete=models.PROTECT, null=True, blank=True, related_name="rewrite_campaigns"
    )
    far_length_ratio = models.FloatField(
        default=3.0,
        help_text="a rewrite this many times longer (or shorter) than its sentence, in tokens, goes to review",
    )
    far_edit_rate = models.FloatField(
        default=0.8,
        help_text="a rewrite changing more than this share of the sentence's tokens goes to review",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_rewrite_campaigns"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="rewrite_campaign_unique_name"),
            models.CheckConstraint(
                condition=Q(rewrites_per_sentence__gte=1) & Q(rewrites_per_sentence__lte=50),
                name="rewrite_campaign_n_1_to_50",
            ),
            models.CheckConstraint(condition=Q(pay_per_sentence__gte=0), name="rewrite_campaign_pay_ok"),
            models.CheckConstraint(
                condition=Q(far_length_ratio__gt=1) & Q(far_edit_rate__gt=0) & Q(far_edit_rate__lte=1),
                name="rewrite_campaign_far_thresholds_ok",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class RewriteCampaignGroup(models.Model):
    """A group allowed on a campaign; with ``rewrites_per_sentence`` it gets its own slots (2x2x2 design)."""

    campaign = models.ForeignKey(RewriteCampaign, on_delete=models.CASCADE, related_name="group_links")
    group = models.ForeignKey("auth.Group", on_delete=models.PROTECT, related_name="+")
    rewrites_per_sentence = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "group"], name="rewrite_campaign_group_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.group_id} on {self.campaign_id}"


class RewriteFlag(models.TextChoices):
    """Why an annotator could not rewrite a sentence as it stands."""

    NONE = "", "None"
    MERGE = "merge", "Merge with the next sentence"
    FRAGMENT = "fragment", "Fragment"
    NOT_ANNOTATABLE = "not_annotatable", "Not annotatable"


class RewriteStatus(models.TextChoices):
    SUBMITTED = "submitted"
    ACCEPTED = "accepted"
    EDITED = "edited"
    REJECTED = "rejected"


class Rewrite(models.Model):
    """One annotator's rewrite of one sentence. Resubmitting cannot make a second one (unique)."""

    campaign = models.ForeignKey(RewriteCampaign, on_delete=models.CASCADE, related_name="rewrites")
    sentence = models.ForeignKey(Sentence, on_delete=models.PROTECT, related_name="rewrites")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="rewrites")
    text = models.TextField(
        blank=True, help_text="as saved: re-tokenised like the source; empty when flagged"
    )
    flag = models.CharField(max_length=16, choices=RewriteFlag.choices, default=RewriteFlag.NONE, blank=True)
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=RewriteStatus.choices, default=RewriteStatus.SUBMITTED)
    reviewed_text = models.TextField(blank=True, help_text="the expert's edited version")
    review_reason = models.TextField(blank=True, help_text="why the expert rejected it (shown to its author)")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="reviewed_rewrites",
    )
    reviewed = models.DateTimeField(null=True, blank=True)
    review_claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    review_claimed_at = models.DateTimeField(null=True, blank=True)
    group = models.CharField(max_length=150, blank=True, help_text="the annotator group of the slot")
    seconds = models.FloatField(null=True, blank=True)
    far_from_sentence = models.BooleanField(
        default=False, help_text="flagged 'far from its sentence': counts only once an expert reviewed it"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "sentence__position", "created"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "sentence", "annotator"], name="rewrite_one_per_annotator_sentence"
            ),
            models.CheckConstraint(
                condition=Q(difficulty__isnull=True) | (Q(difficulty__gte=1) & Q(difficulty__lte=5)),
                name="rewrite_difficulty_1_to_5",
            ),
            models.CheckConstraint(
                condition=(Q(flag="") & ~Q(text="")) | (~Q(flag="") & Q(text="")),
                name="rewrite_flag_xor_text",
            ),
            models.CheckConstraint(
                condition=~Q(reviewer=models.F("annotator")) | Q(reviewer__isnull=True),
                name="rewrite_not_self_reviewed",
            ),
            models.CheckConstraint(
                condition=Q(seconds__gte=0) | Q(seconds__isnull=True), name="rewrite_seconds_ok"
            ),
            models.CheckConstraint(
                condition=Q(far_from_sentence=False) | Q(status="submitted") | Q(reviewer__isnull=False),
                name="rewrite_far_counts_only_reviewed",
            ),
        ]

    def __str__(self) -> str:
        return f"rewrite {self.pk} of {self.sentence_id}"


class RewriteSlot(models.Model):
    """One of the N places for a rewrite of a sentence. Workers claim slots; a claim expires.

    A slot is free when it has no rewrite and no live claim. ``(campaign,
    sentence, claimed_by)`` is unique so one worker never holds two slots of a
    sentence; claims take the row with ``select_for_update(skip_locked=True)``.
    """

    campaign = models.ForeignKey(RewriteCampaign, on_delete=models.CASCADE, related_name="slots")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="rewrite_slots")
    index = models.PositiveSmallIntegerField()
    group = models.ForeignKey("auth.Group", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rewrite_slots",
    )
    claimed_at = models.DateTimeField(null=True, blank=True)
    rewrite = models.OneToOneField(
        Rewrite, on_delete=models.SET_NULL, null=True, blank=True, related_name="slot"
    )

    class Meta:
        ordering = ["campaign", "sentence__position", "index"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "sentence", "index"], name="rewrite_slot_unique"),
            models.UniqueConstraint(
                fields=["campaign", "sentence", "claimed_by"],
                condition=Q(claimed_by__isnull=False),
                name="rewrite_slot_one_claim_per_worker_sentence",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "rewrite", "claimed_at"])]

    def __str__(self) -> str:
        return f"slot {self.index} of {self.sentence_id}"


class RewriteDraft(models.Model):
    """Server-side autosave of the edit box: survives a closed tab or an expired session."""

    campaign = models.ForeignKey(RewriteCampaign, on_delete=models.CASCADE, related_name="drafts")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(blank=True)
    flag = models.CharField(max_length=16, choices=RewriteFlag.choices, default=RewriteFlag.NONE, blank=True)
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    seconds = models.FloatField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "sentence", "annotator"], name="rewrite_draft_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"draft {self.pk}"


class RewriteSkip(models.Model):
    """A worker skipped this sentence: they are not offered it again in this campaign."""

    campaign = models.ForeignKey(RewriteCampaign, on_delete=models.CASCADE, related_name="skips")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "sentence", "annotator"], name="rewrite_skip_unique"),
        ]

    def __str__(self) -> str:
        return f"skip {self.pk}"


# Defined in their own modules to keep this one short; imported here so Django registers them.
from annotate.accounts.models import AccountLoginThrottle, LoginCounter  # noqa: E402, F401
from annotate.jobs.models import ImportJob, ImportJobStatus  # noqa: E402, F401
from annotate.projects.models import ProjectInvitation, ProjectRole  # noqa: E402, F401
