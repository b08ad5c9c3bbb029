"""Projects, corpora and sentences.

Text is stored exactly as imported (tokenisation, trailing spaces) so that an
export reproduces the input byte for byte.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Role(models.TextChoices):
    """Django groups of the same names carry the permissions (see migration 0002)."""

    ANNOTATOR = "annotator"
    EXPERT = "expert"
    RESEARCHER = "researcher"
    ADMIN = "admin"


class Project(models.Model):
    """A research team's space: corpora, systems and campaigns belong to one project."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_projects"
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
