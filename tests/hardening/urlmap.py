"""Every URL pattern of the product, with its path parameters filled from a World's objects."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver, reverse


@dataclass(frozen=True)
class Route:
    name: str  # namespaced, e.g. "api:work-submit"
    params: tuple[str, ...]
    methods: tuple[str, ...]  # what the test sends: GET for pages, POST for state changes


def _params(pattern) -> tuple[str, ...]:
    text = str(pattern)
    names = re.findall(r"<(?:\w+:)?(\w+)>", text) + re.findall(r"\(\?P<(\w+)>", text)
    return tuple(dict.fromkeys(names))


def walk_routes() -> list[Route]:
    """Named routes of the resolver tree, recursively; the admin site and format-suffix twins excluded."""
    found: dict[str, Route] = {}

    def walk(patterns, namespace: str, inherited: tuple[str, ...]):
        for p in patterns:
            if isinstance(p, URLResolver):
                if str(p.pattern).startswith("admin/"):
                    continue
                ns = f"{namespace}{p.namespace}:" if p.namespace else namespace
                walk(p.url_patterns, ns, inherited + _params(p.pattern))
            elif isinstance(p, URLPattern) and p.name:
                params = tuple(dict.fromkeys(inherited + _params(p.pattern)))
                if "format" in params:
                    continue  # DRF's ".json" twin of a route: the same view
                methods = tuple(getattr(p.callback, "actions", {}) or ())
                name = f"{namespace}{p.name}"
                found.setdefault(name, Route(name, params, tuple(m.upper() for m in methods)))

    walk(get_resolver().url_patterns, "", ())
    return sorted(found.values(), key=lambda r: r.name)


def url_for(route: Route, values: dict[str, dict[str, object]]) -> str:
    kwargs = values.get(route.name, {})
    missing = set(route.params) - set(kwargs)
    assert not missing, f"no value for {missing} of {route.name}: add it to the test's PARAMS"
    return reverse(route.name, kwargs=kwargs)
