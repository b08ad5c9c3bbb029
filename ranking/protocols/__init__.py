"""Judgment protocols as plug-ins: one module per protocol, and the registry the rest of the code asks.

``protocol_get(campaign.protocol)`` answers how a screen is parsed, validated, trapped, scored live,
exported and shown; nothing outside this package compares protocol names. A new protocol is a
``Protocol`` subclass passed to ``register``: ``Campaign.protocol`` has no ``choices``, so it needs
no migration.
"""

from __future__ import annotations

from geceval.errors import GecInputError
from ranking.protocols.base import CandidateScore, Protocol, WorkAnswerSerializer
from ranking.protocols.edits.protocol import EDIT_LEVEL
from ranking.protocols.prws import PRWS
from ranking.protocols.relative import RELATIVE_RANKING

DEFAULT_PROTOCOL = PRWS.name

_registry: dict[str, Protocol] = {}


def register(protocol: Protocol) -> Protocol:
    if not protocol.name or len(protocol.name) > 16:
        raise ValueError("a protocol's name is 1 to 16 characters")
    if _registry.get(protocol.name, protocol) is not protocol:
        raise ValueError(f"another protocol is registered as {protocol.name!r}")
    _registry[protocol.name] = protocol
    return protocol


def unregister(name: str) -> None:
    _registry.pop(name, None)


def protocol_get(name: str) -> Protocol:
    """The registered protocol of that name; GecInputError for any other name."""
    try:
        return _registry[name]
    except (KeyError, TypeError):
        raise GecInputError(f"unknown protocol {name!r}") from None


def human_score_choices() -> list[tuple[str, str]]:
    """Every registered protocol's extra human scores (``Protocol.human_scores_offered``)."""
    return [item for p in _registry.values() for item in p.human_scores_offered.items()]


def protocol_choices() -> list[tuple[str, str]]:
    """(name, label) of every registered protocol, for forms and serializers."""
    return [(p.name, p.label) for p in _registry.values()]


register(PRWS)
register(RELATIVE_RANKING)
register(EDIT_LEVEL)

__all__ = [
    "DEFAULT_PROTOCOL",
    "CandidateScore",
    "Protocol",
    "WorkAnswerSerializer",
    "protocol_choices",
    "protocol_get",
    "register",
    "unregister",
]
