"""Systems and their outputs, judgment campaigns, screens, ratings and results."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import Corpus, Project, Sentence


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
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["corpus", "name"]
        constraints = [
            models.UniqueConstraint(fields=["corpus", "name"], name="system_unique_name_per_corpus"),
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in SystemKind]), name="system_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Output(models.Model):
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="outputs")
    text = models.TextField(blank=True)  # an empty line is a valid output

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["system", "sentence"], name="output_one_per_system_sentence")
        ]

    def __str__(self) -> str:
        return f"{self.system_id}:{self.sentence_id}"


class Protocol(models.TextChoices):
    PRWS = "prws", "PRWS sliders (GMEG)"
    RANKING = "ranking", "Relative ranking"


class CampaignStatus(models.TextChoices):
    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


class Campaign(models.Model):
    """A judgment campaign over one corpus and some of its systems."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="campaigns")
    corpus = models.ForeignKey(Corpus, on_delete=models.PROTECT, related_name="campaigns")
    name = models.CharField(max_length=200)
    protocol = models.CharField(max_length=16, choices=Protocol.choices, default=Protocol.PRWS)
    systems = models.ManyToManyField(System, related_name="campaigns")
    status = models.CharField(max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.ACTIVE)
    judgments_per_item = models.PositiveSmallIntegerField(default=8)
    max_candidates = models.PositiveSmallIntegerField(default=5, help_text="corrections per screen")
    instructions = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_campaigns"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="campaign_unique_name_per_project"),
            models.CheckConstraint(
                condition=Q(judgments_per_item__gte=1), name="campaign_judgments_positive"
            ),
            models.CheckConstraint(
                condition=Q(max_candidates__gte=2) & Q(max_candidates__lte=5),
                name="campaign_candidates_2_to_5",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Screen(models.Model):
    """What a judge sees at once: one source sentence and up to five distinct corrections."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="screens")
    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="screens")
    index = models.PositiveSmallIntegerField(default=0, help_text="screens of one sentence when >5 texts")

    class Meta:
        ordering = ["campaign", "sentence__position", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "sentence", "index"], name="screen_unique_per_sentence"
            )
        ]

    def __str__(self) -> str:
        return f"screen {self.pk}"


class Candidate(models.Model):
    """One distinct text on a screen; it stands for every output with that text."""

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


class ScreenJudgment(models.Model):
    """One judge's submission of one screen. Resubmitting is a no-op (unique constraint)."""

    screen = models.ForeignKey(Screen, on_delete=models.CASCADE, related_name="judgments")
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="screen_judgments"
    )
    created = models.DateTimeField(auto_now_add=True)
    seconds = models.FloatField(null=True, blank=True, help_text="time on the screen")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["screen", "judge"], name="judgment_one_per_judge_screen"),
            models.CheckConstraint(
                condition=Q(seconds__gte=0) | Q(seconds__isnull=True), name="judgment_seconds_ok"
            ),
        ]

    def __str__(self) -> str:
        return f"judgment {self.pk} of screen {self.screen_id}"


class Rating(models.Model):
    """A PRWS slider value (0-100) for one candidate, with the "meaning changed" box."""

    judgment = models.ForeignKey(ScreenJudgment, on_delete=models.CASCADE, related_name="ratings")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="ratings")
    score = models.PositiveSmallIntegerField()
    meaning_changed = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judgment", "candidate"], name="rating_one_per_candidate"),
            models.CheckConstraint(condition=Q(score__gte=0) & Q(score__lte=100), name="rating_score_0_100"),
        ]

    def __str__(self) -> str:
        return f"{self.score} for candidate {self.candidate_id}"


class SystemScore(models.Model):
    """Per-system PRWS mean for a campaign, recomputed by a Celery task from the ratings."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="system_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="scores")
    mean_score = models.FloatField()
    ratings = models.PositiveIntegerField()
    items = models.PositiveIntegerField()
    meaning_changed = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-mean_score"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "system"], name="system_score_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.system_id}: {self.mean_score:.2f}"
