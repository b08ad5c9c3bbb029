"""Small helpers for untrusted data in views: reading ids from requests, writing cells to CSV."""

from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings
from django.http import Http404, HttpRequest


def parse_id(raw: object) -> int | None:
    """An integer id from untrusted text, or None. ASCII digits only: ``str.isdigit`` also accepts
    "²" and other digits ``int()`` refuses; at most 18 of them: a bigint, and ``int()`` refuses more
    than 4300."""
    text = str(raw).strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def id_field(data: Mapping[str, str], name: str) -> int | None:
    """A positive integer id from a form field, or None: never let free text reach an ORM lookup."""
    return parse_id(data.get(name, ""))


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


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or the header the TLS proxy sets (LOGIN_CLIENT_IP_HEADER, e.g. HTTP_X_REAL_IP).

    Used by the login limiter and the crowd pages' per-address limits; never a header clients can forge.
    """
    header = settings.LOGIN_CLIENT_IP_HEADER
    if header and request.META.get(header):
        return request.META[header].split(",")[0].strip()[:64]
    return request.META.get("REMOTE_ADDR", "")[:64]
