"""Relative ranking (Napoles et al. 2015, WMT): rank the outputs of a random draw of systems from best
(1) to worst, ties allowed; live results are TrueSkill over the pairwise expansion."""

from __future__ import annotations

from collections import defaultdict
from types import MappingProxyType

from django.conf import settings

from geceval.errors import GecInputError
from geceval.formats.judgments import expand_pairwise
from geceval.human.system_ranking import rank
from geceval.traps.hidden import ADDED_CORRECTION, ADDED_ERROR, UNDONE_CORRECTION
from ranking.models import Campaign
from ranking.protocols.base import CandidateScore, Protocol, whole
from ranking.rankings import campaign_rankings

INSTRUCTIONS = (
    "Rank the corrections of the original sentence from best (1) to worst. Judge grammaticality and "
    "fluency, and whether the meaning of the original is kept. Give two corrections the same rank when "
    "they are equally good."
)


class RelativeRanking(Protocol):
    name = "ranking"
    label = "Relative ranking"
    template = "ranking/work_rank.html"
    instructions = INSTRUCTIONS
    answer_field = "rank"
    missing_answer = "rank every output before submitting"
    min_systems = 2
    draws_systems = True
    shows_ranking = True
    # Added corrections beside the two kinds that make the trap worse (issue 41): a ranker who takes
    # the one lone edit between two near-copies for the error passes every added error and fails
    # these, and a careful ranker passes them more often than the other kinds.
    trap_kinds = MappingProxyType({ADDED_ERROR: 1, UNDONE_CORRECTION: 1, ADDED_CORRECTION: 1})

    def validate_answer(self, answer: CandidateScore, shown: int) -> None:
        if not whole(answer.rank) or not 1 <= answer.rank <= shown or answer.score is not None:
            raise GecInputError(f"ranks are whole numbers from 1 (best) to {shown}; ties are allowed")

    def trap_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool:
        """Ranked worse than the base (ranks have no points: ``margin`` does not apply)."""
        return trap.rank > base.rank

    def correction_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool:
        """A positive control (issue 41): the trap is its base with one correction most references
        make and no other candidate of the screen makes. Passed unless ranked below its base: a careful
        reader may rank the two level (a comma), not the corrected one worse."""
        return trap.rank <= base.rank

    def gold_relation(self, first: int, second: int) -> int:
        return (first > second) - (first < second)

    def live_scores(self, campaign: Campaign, wanted: dict) -> dict[int, dict]:
        """TrueSkill as the papers ran it (geceval.human.system_ranking), on the pairwise expansion of the valid rankings."""
        pairs = expand_pairwise(campaign_rankings(campaign))
        if not pairs:
            return {}
        result = rank(pairs, runs=settings.RANKING_LIVE_RUNS, seed=campaign.seed)
        by_name = {s.name: pk for pk, s in wanted.items()}
        counts: dict[str, int] = defaultdict(int)
        items: dict[str, set[str]] = defaultdict(set)
        for p in pairs:
            for name in (p.sys1, p.sys2):
                counts[name] += 1
                items[name].add(p.item)
        return {
            by_name[s.name]: {
                "mean_score": s.mu,
                "ratings": counts[s.name],
                "items": len(items[s.name]),
                "meaning_changed": 0,
                "rank_lo": s.rank_range[0],
                "rank_hi": s.rank_range[1],
                "cluster": s.cluster,
            }
            for s in result.systems
            if s.name in by_name
        }


RELATIVE_RANKING = RelativeRanking()
