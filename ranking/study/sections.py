"""Parts of a study file that higher apps own (the crowd app's entry, consent and welcome), registered
at start-up as protocols are: ranking reads them through this registry and never imports those apps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ranking.models import Campaign


@dataclass(frozen=True)
class StudySection:
    name: str
    """The study file's key."""
    schema: dict[str, Any]
    """The JSON Schema of the section (an object)."""
    read: Callable[[Campaign], dict[str, Any]]
    """The campaign's values, every key of the schema, JSON-ready."""
    write: Callable[[Campaign, dict[str, Any]], None]
    """Store the given values (a subset of the schema's keys) on the campaign."""
    after_launch: bool = True
    """May change once the campaign has been launched."""
    differs: Callable[[Campaign, dict[str, Any]], list[str]] | None = None
    """The keys whose wanted values (every key, defaults filled in) mean something else than the
    campaign's; None: compared as ``read`` gives them."""


_sections: dict[str, StudySection] = {}


def section_register(section: StudySection) -> StudySection:
    _sections[section.name] = section
    return section


def sections() -> list[StudySection]:
    return [_sections[name] for name in sorted(_sections)]
