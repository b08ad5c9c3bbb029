"""Small helpers for untrusted data in views: reading ids from requests, writing cells to CSV."""

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


def csv_cell(value: object) -> object:
    """A CSV cell that a spreadsheet will not run as a formula (text came from uploads and workers).

    Text starting with = + - @ or a control character gets a leading quote;
    numbers, including negative ones, pass unchanged.
    """
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value
