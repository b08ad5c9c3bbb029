"""PRWS (GMEG): a 0-100 slider per output, and 'meaning changed'; a system's score is the mean over
sentences of the sentence's mean rating."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Avg, Count, Q

from geceval.errors import GecInputError
from ranking.models import Campaign
from ranking.protocols.base import CandidateScore, Protocol, whole
from ranking.selectors import valid_ratings

PRWS_TIE_MARGIN = 10
"""Gold agreement: two PRWS scores less than this apart count as equal (two judges rarely give the
same number)."""

INSTRUCTIONS = (
    "Rate how grammatical and fluent each correction is, from completely ungrammatical or garbled (0) "
    "to perfect (100). Judge each sentence on its own; identical corrections are shown once. Tick "
    "'meaning changed' if a correction no longer means what the original sentence meant."
)


class Prws(Protocol):
    name = "prws"
    label = "PRWS sliders (GMEG)"
    template = "ranking/work.html"
    instructions = INSTRUCTIONS
    answer_field = "score"
    missing_answer = "move every slider before submitting"
    prws_ratings = True

    def validate_answer(self, answer: CandidateScore, shown: int) -> None:
        if not whole(answer.score) or not 0 <= answer.score <= 100 or answer.rank is not None:
            raise GecInputError("scores are whole numbers from 0 to 100")

    def trap_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool:
        return base.score - trap.score >= max(1, margin)

    def gold_relation(self, first: int, second: int) -> int:
        diff = first - second
        return 0 if abs(diff) < PRWS_TIE_MARGIN else (-1 if diff > 0 else 1)

    def live_scores(self, campaign: Campaign, wanted: dict) -> dict[int, dict]:
        """A rating of a collapsed candidate counts for every system that produced its text."""
        rows = (
            valid_ratings(campaign)
            .filter(score__isnull=False)
            .values("candidate__outputs__system_id", "candidate__screen__sentence_id")
            .annotate(mean=Avg("score"), n=Count("id"), changed=Count("id", filter=Q(meaning_changed=True)))
        )
        per_system: dict[int, list[tuple[float, int, int]]] = defaultdict(list)
        for row in rows:
            if row["candidate__outputs__system_id"] in wanted:
                per_system[row["candidate__outputs__system_id"]].append(
                    (row["mean"], row["n"], row["changed"])
                )
        return {
            system_id: {
                "mean_score": sum(m for m, _, _ in segs) / len(segs),
                "ratings": sum(n for _, n, _ in segs),
                "items": len(segs),
                "meaning_changed": sum(c for _, _, c in segs),
                "rank_lo": None,
                "rank_hi": None,
                "cluster": None,
            }
            for system_id, segs in per_system.items()
        }


PRWS = Prws()
