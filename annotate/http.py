"""Small helpers for reading untrusted request data in views."""

from __future__ import annotations

from collections.abc import Mapping

from django.http import Http404


def id_field(data: Mapping[str, str], name: str) -> int | None:
    """A positive integer id from a form field, or None: never let free text reach an ORM lookup."""
    raw = str(data.get(name, "")).strip()
    return int(raw) if raw.isdigit() and len(raw) <= 18 else None


def id_field_or_404(data: Mapping[str, str], name: str) -> int:
    value = id_field(data, name)
    if value is None:
        raise Http404(f"no such {name}")
    return value
