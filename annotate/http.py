"""Small helpers for untrusted data in views: reading ids from requests, writing cells to CSV."""

from __future__ import annotations

import ipaddress
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
    """The client's address as the trusted proxies saw it; REMOTE_ADDR without any.

    ``TRUSTED_PROXY_COUNT`` proxies (nginx, a load balancer) each append the address they received
    the request from to X-Forwarded-For (``LOGIN_CLIENT_IP_HEADER``, default ``HTTP_X_FORWARDED_FOR``),
    after whatever the client sent. The client's address is therefore the entry the outermost one wrote,
    the ``TRUSTED_PROXY_COUNT``-th from the right; entries left of it are the client's own words
    (issue 36: the first entry was taken, so every guess could claim a new address). A header set by
    ``LOGIN_CLIENT_IP_HEADER`` alone (e.g. HTTP_X_REAL_IP) counts as one proxy: its right-most entry.
    A header with fewer entries than proxies, or not an IP address, gives REMOTE_ADDR.
    Used by the login limiter and the crowd pages' per-address limits.
    """
    remote = request.META.get("REMOTE_ADDR", "")[:64]
    proxies = settings.TRUSTED_PROXY_COUNT
    header = settings.LOGIN_CLIENT_IP_HEADER or ("HTTP_X_FORWARDED_FOR" if proxies > 0 else "")
    if not header:
        return remote
    entries = [entry.strip() for entry in request.META.get(header, "").split(",")]
    entries = [entry for entry in entries if entry]
    proxies = max(1, proxies)
    if len(entries) < proxies:
        return remote
    try:
        return str(ipaddress.ip_address(entries[-proxies]))
    except ValueError:
        return remote


def address_group(address: str) -> str:
    """The key a per-address limit counts ``address`` under: an IPv6 address by its /64 network (one
    subscriber is given a whole /64, so each of its 2**64 addresses would otherwise get its own
    limit), an IPv4 address (also one mapped into IPv6) as itself; anything else as given."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
