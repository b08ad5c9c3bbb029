"""What a judge's answer to a screen must look like, and whether it passed a trap."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from geceval.errors import GecInputError
from ranking.models import Candidate, Protocol


@dataclass(frozen=True)
class CandidateScore:
    """A PRWS score (0-100) or a rank (1 = best; equal ranks are ties) for one candidate."""

    score: int | None = None
    meaning_changed: bool = False
    rank: int | None = None


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_answers(
    protocol: str, candidates: Sequence[Candidate], answers: Mapping[int, CandidateScore]
) -> None:
    """Every candidate of the screen answered, nothing else, values in range; else GecInputError."""
    if set(answers) != {c.pk for c in candidates}:
        raise GecInputError("every output on the screen needs an answer, and only those")
    if protocol == Protocol.PRWS:
        for a in answers.values():
            if not _whole(a.score) or not 0 <= a.score <= 100 or a.rank is not None:
                raise GecInputError("scores are whole numbers from 0 to 100")
    else:
        for a in answers.values():
            if not _whole(a.rank) or not 1 <= a.rank <= len(candidates) or a.score is not None:
                raise GecInputError(
                    f"ranks are whole numbers from 1 (best) to {len(candidates)}; ties are allowed"
                )


def answers_from_form(
    protocol: str, candidates: Sequence[Candidate], data: Mapping[str, str]
) -> dict[int, CandidateScore]:
    """Read a screen's form: fields are named by display position only (``score-0``, ``rank-2``,
    ``changed-1``), so nothing in a page identifies a candidate or tells a trap apart."""
    key = "score" if protocol == Protocol.PRWS else "rank"
    answers: dict[int, CandidateScore] = {}
    for candidate in candidates:
        raw = str(data.get(f"{key}-{candidate.position}", "")).strip()
        if raw == "":
            raise GecInputError(
                "move every slider before submitting"
                if key == "score"
                else "rank every output before submitting"
            )
        try:
            value = int(raw)
        except ValueError:
            raise GecInputError("answers are whole numbers") from None
        changed = data.get(f"changed-{candidate.position}") == "on"
        answers[candidate.pk] = CandidateScore(meaning_changed=changed, **{key: value})
    validate_answers(protocol, candidates, answers)
    return answers


def normalise(text: str) -> str:
    """Outputs that differ only in white space are one item to a judge."""
    return " ".join(text.split())


def trap_outcome(
    protocol: str,
    source_text: str,
    candidates: Sequence[Candidate],
    trap_candidate_ids: set[int],
    answers: Mapping[int, CandidateScore],
) -> bool | None:
    """None without a trap; else whether the trap was judged strictly worse than the source (a tie fails)."""
    trap = [c.pk for c in candidates if c.pk in trap_candidate_ids]
    source = [c.pk for c in candidates if normalise(c.text) == normalise(source_text)]
    if not trap or not source:
        return None
    t, s = answers[trap[0]], answers[source[0]]
    if protocol == Protocol.PRWS:
        return t.score < s.score
    return t.rank > s.rank
