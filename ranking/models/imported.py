"""The compact stored form of imported judgments: one row per (judgment, system) entry.

A collected campaign keeps a screen, its candidates, an assignment, a judgment
and a rating per answer (about ten rows per judgment). Imported files of
pairwise rankings and PRWS ratings carry none of what those rows are for (no
texts, no HITs, no traps), so a large import stores only what analyses read:
the sentence, the judge, the system and the rank or score, with the judgment's
number in the campaign. ``ranking.rankings.iter_screen_rankings`` reads these
rows as it reads collected ones, so every analysis and export works on both.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotate.models import Sentence, System

__all__ = ["ImportedEntry"]


class ImportedEntry(models.Model):
    """One system's rank (1-5) or score (0-100) in one imported judgment."""

    # No foreign-key constraints in the database: PostgreSQL checks its deferred ones row by row at
    # commit (11.5 s of a 17 s import of 200,000 rankings). The ids are the import's own, found or made
    # in the same transaction; deletes still cascade through the ORM (one DELETE per related object).
    # One index only, (campaign, judgment), which is how every reader asks: an index per foreign key
    # doubled the table's size (466 MB of indexes for 474 MB of rows at 4.5M entries) and COPY's work.
    # Deleting a sentence, system or user that imported entries name scans the table (rare).
    campaign = models.ForeignKey(
        "ranking.Campaign",
        on_delete=models.CASCADE,
        related_name="imported_entries",
        db_constraint=False,
        db_index=False,
    )
    judgment = models.PositiveIntegerField(help_text="the judgment's number in the campaign (0-based)")
    sentence = models.ForeignKey(
        Sentence, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    judge = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    system = models.ForeignKey(
        System, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    meaning_changed = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["campaign", "judgment"], name="imported_entry_judgment")]
        constraints = [
            models.CheckConstraint(
                condition=(Q(score__isnull=False, score__gte=0, score__lte=100, rank__isnull=True))
                | (Q(rank__isnull=False, rank__gte=1, rank__lte=5, score__isnull=True)),
                name="imported_entry_score_or_rank",
            ),
        ]

    def __str__(self) -> str:
        value = f"rank {self.rank}" if self.rank is not None else f"score {self.score}"
        return f"judgment {self.judgment} of campaign {self.campaign_id}: {value}"
