"""Gold screens of a campaign (issue 41): screens the researcher answered, whose copies are placed in
other HITs and scored like traps (``ranking.quality.gold_copies``). Imported by the ranking.models package so
Django finds the model; no worker's page or API reads it."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ranking.models.campaigns import Screen

__all__ = ["GoldScreen"]


class GoldScreen(models.Model):
    """The expected answer of one screen: the researcher's (``marked`` empty), or a copy's (``marked``:
    the researcher's screen it copies, its expected answers carried over to the copy's candidates)."""

    screen = models.OneToOneField(Screen, on_delete=models.CASCADE, related_name="gold")
    expected = models.JSONField(help_text="candidate id -> the expected score or rank")
    marked = models.ForeignKey("self", on_delete=models.CASCADE, null=True, blank=True, related_name="copies")
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"gold answer of screen {self.screen_id}"
