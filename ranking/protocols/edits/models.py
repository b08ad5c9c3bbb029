"""The edit-level protocol's tables: each distinct correction's ERRANT edits (computed once, stored), and
each judge's label of each edit. Nothing here says which correction is a trap."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from annotate.models import Sentence
from ranking.models import Candidate, ScreenJudgment

__all__ = ["Edit", "EditLabel", "EditLabelChoice", "EditedText"]


class EditLabelChoice(models.TextChoices):
    GOOD = "good"
    BAD = "bad"
    NEUTRAL = "neutral"


class EditedText(models.Model):
    """One correction of one sentence, as ERRANT sees it against the sentence (its edits below).

    Keyed by the text's SHA-256: a candidate, a trap or an output with that text share it, so the
    edits of a text are computed once whatever shows it."""

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="edited_texts")
    digest = models.CharField(max_length=64, help_text="SHA-256 of text")
    text = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["sentence", "digest"], name="edited_text_one_per_sentence_text"),
        ]

    def __str__(self) -> str:
        return f"edits of a correction of sentence {self.sentence_id}"


class Edit(models.Model):
    """One ERRANT edit: source tokens [o_start, o_end) become ``c_text`` (tokens [c_start, c_end) of
    the correction)."""

    edited = models.ForeignKey(EditedText, on_delete=models.CASCADE, related_name="edits")
    index = models.PositiveSmallIntegerField(help_text="left to right")
    o_start = models.PositiveIntegerField()
    o_end = models.PositiveIntegerField()
    o_text = models.TextField(blank=True)
    c_start = models.PositiveIntegerField()
    c_end = models.PositiveIntegerField()
    c_text = models.TextField(blank=True)
    error_type = models.CharField(max_length=32, help_text="ERRANT's type, e.g. R:VERB:SVA")

    class Meta:
        ordering = ["edited", "index"]
        constraints = [
            models.UniqueConstraint(fields=["edited", "index"], name="edit_unique_index"),
            models.CheckConstraint(
                condition=Q(o_start__lte=F("o_end")) & Q(c_start__lte=F("c_end")), name="edit_spans_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.error_type} {self.o_start}-{self.o_end}"


class EditLabel(models.Model):
    """A judge's label of one edit of one candidate of the judged screen."""

    judgment = models.ForeignKey(ScreenJudgment, on_delete=models.CASCADE, related_name="edit_labels")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="edit_labels")
    edit = models.ForeignKey(Edit, on_delete=models.CASCADE, related_name="labels")
    label = models.CharField(max_length=8, choices=EditLabelChoice.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judgment", "candidate", "edit"], name="edit_label_one_per_edit_judgment"
            ),
            models.CheckConstraint(
                condition=Q(label__in=[c.value for c in EditLabelChoice]), name="edit_label_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label} for edit {self.edit_id}"
