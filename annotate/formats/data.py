"""Plain data of a corpus as the file layouts see it: sentences plus named, line-aligned systems.

Readers turn files into a :class:`CorpusData`, writers turn one into files, and
the services move it in and out of the database. Nothing here touches the ORM,
so every layout is tested on plain data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from annotate.services import MAX_SYSTEMS, SentenceRecord
from geceval.errors import GecInputError

REFERENCE = "reference"
MODEL = "model"
SOURCE = "source"
SOURCE_ERROR = "source+error"
SYSTEM_KINDS = ("model", "source", "reference", "source+error")

_REF_NAME = re.compile(r"^ref(\d+)$")


@dataclass
class SystemData:
    """One system's texts, ``lines[i]`` for sentence ``i``."""

    name: str
    kind: str
    lines: list[str]


@dataclass
class CorpusData:
    sentences: list[SentenceRecord]
    systems: list[SystemData] = field(default_factory=list)
    tokenized: bool = False
    warnings: list[str] = field(default_factory=list)  # one line each, for the importer to show

    @property
    def source(self) -> list[str]:
        return [s.text for s in self.sentences]

    def references(self) -> list[SystemData]:
        """Reference systems in natural name order (ref2 before ref10)."""
        return sorted((s for s in self.systems if s.kind == REFERENCE), key=lambda s: natural_key(s.name))

    def others(self) -> list[SystemData]:
        """Non-reference systems in natural name order."""
        return sorted((s for s in self.systems if s.kind != REFERENCE), key=lambda s: natural_key(s.name))

    def check(self, where: str = "<corpus>") -> None:
        """Every system covers every sentence; names are unique and kinds known."""
        if not self.sentences:
            raise GecInputError("the corpus has no sentences", path=where)

        if len(self.systems) > MAX_SYSTEMS:
            raise GecInputError(f"more than {MAX_SYSTEMS} systems (reference and output files)", path=where)
        seen: set[str] = set()
        for s in self.systems:
            if not s.name.strip():
                raise GecInputError("a system has no name", path=where)
            if s.name in seen:
                raise GecInputError(f"system name {s.name!r} repeats", path=where)
            seen.add(s.name)
            if s.kind not in SYSTEM_KINDS:
                raise GecInputError(f"system {s.name!r} has unknown kind {s.kind!r}", path=where)
            if len(s.lines) != len(self.sentences):
                raise GecInputError(
                    f"system {s.name!r} has {len(s.lines)} lines but the source has {len(self.sentences)}",
                    path=where,
                )


def natural_key(name: str) -> tuple:
    """Sort key reading digit runs as numbers: ``ref2`` < ``ref10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name) if p)


def reference_ids(references: list[SystemData]) -> list[int]:
    """M2 annotator id of each reference: ``k`` for a system named ``ref<k>``, else the next free id.

    An M2 file imported as ``ref0``, ``ref1``... keeps its annotator ids, and
    references added later (e.g. from a rewrite campaign) come after them.
    """
    taken: set[int] = set()
    ids: list[int | None] = []
    for ref in references:
        m = _REF_NAME.match(ref.name)
        k = int(m.group(1)) if m else None
        if k is not None and k not in taken:
            taken.add(k)
            ids.append(k)
        else:
            ids.append(None)
    out: list[int] = []
    next_id = max(taken, default=-1) + 1
    for k in ids:
        if k is None:
            k, next_id = next_id, next_id + 1
        out.append(k)
    return out
