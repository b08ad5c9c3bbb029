"""Plain records and limits every corpus import shares (no ORM): what a sentence row holds and the
bounds a file is checked against while it streams (``annotate.streaming``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_LINE_CHARS = 10_000
MAX_SENTENCES = 1_000_000
MAX_SYSTEMS = 200


@dataclass
class SentenceRecord:
    text: str
    domain: str = ""
    document_id: str = ""
    paragraph_position: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
