"""``{{ text|shown:tokenized }}``: sentence text as people read it, on every page (annotate.rewrites.tokens.shown)."""

from __future__ import annotations

from django import template

from annotate.rewrites.tokens import shown as shown_text

register = template.Library()


@register.filter(name="shown")
def shown(text: str | None, tokenized: bool) -> str:
    return shown_text(text or "", bool(tokenized))
