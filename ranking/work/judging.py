"""What a judge's answer to a screen must look like, and whether it passed a trap (the protocol's
module, ``ranking.protocols``, decides both)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from geceval.traps.hidden import (  # normalise: outputs that differ only in white space are one item
    ADDED_ERROR,
    BETTER_KINDS,
    normalise,
)
from ranking.models import Candidate
from ranking.protocols import CandidateScore, protocol_get

__all__ = [
    "NO_TRAP",
    "CandidateScore",
    "TrapVerdict",
    "answers_from_form",
    "normalise",
    "trap_outcome",
    "trap_verdict",
    "validate_answers",
]


def validate_answers(
    protocol: str, candidates: Sequence[Candidate], answers: Mapping[int, CandidateScore]
) -> None:
    """Every candidate of the screen answered, nothing else, values in range; else GecInputError."""
    protocol_get(protocol).validate_answers(candidates, answers)


def answers_from_form(
    protocol: str, candidates: Sequence[Candidate], data: Mapping[str, str]
) -> dict[int, CandidateScore]:
    """Read a screen's form: fields are named by display position only (``score-0``, ``rank-2``,
    ``changed-1``), so nothing in a page identifies a candidate or tells a trap apart."""
    return protocol_get(protocol).answers_from_form(candidates, data)


@dataclass(frozen=True)
class TrapVerdict:
    """Whether a trap passed, and the worker's two answers it compared (score or rank)."""

    passed: bool | None
    base_answer: int | None = None
    trap_answer: int | None = None


NO_TRAP = TrapVerdict(None)


def trap_verdict(
    protocol: str, trap: CandidateScore, base: CandidateScore, margin: int, kind: str = ADDED_ERROR
) -> TrapVerdict:
    """The protocol's verdict on a trap of ``kind``: worse than its base, or for a positive control
    (``BETTER_KINDS``: a correction added) its correction not called an error."""
    chosen = protocol_get(protocol)
    field = chosen.answer_field
    judge = chosen.correction_passed if kind in BETTER_KINDS else chosen.trap_passed
    return TrapVerdict(judge(trap, base, margin), getattr(base, field), getattr(trap, field))


def trap_outcome(
    protocol: str,
    source_text: str,
    candidates: Sequence[Candidate],
    trap_candidate_ids: set[int],
    answers: Mapping[int, CandidateScore],
    margin: int = 1,
) -> TrapVerdict:
    """The paper's design (GMEG): a Source+error trap on the same screen as the source's copy, judged
    worse than it. No verdict without both on the screen."""
    trap = [c.pk for c in candidates if c.pk in trap_candidate_ids]
    source = [c.pk for c in candidates if normalise(c.text) == normalise(source_text)]
    if not trap or not source:
        return NO_TRAP
    return trap_verdict(protocol, answers[trap[0]], answers[source[0]], margin)
