"""What every judgment protocol provides; PRWS and relative ranking are two modules beside this one."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rest_framework import serializers

from geceval.errors import GecInputError
from geceval.traps.hidden import ADDED_ERROR, UNDONE_CORRECTION
from ranking.models import Campaign, Candidate, Rating, Screen, ScreenJudgment
from ranking.protocols.files import APPRAISE_XML, WMT_CSV, JudgmentFormat


@dataclass(frozen=True)
class CandidateScore:
    """A PRWS score (0-100) or a rank (1 = best; equal ranks are ties) for one candidate."""

    score: int | None = None
    meaning_changed: bool = False
    rank: int | None = None
    labels: tuple[tuple[tuple, str], ...] = ()
    """Labels of parts of the candidate, as (the part's key, label): a protocol that judges parts (the
    edit-level protocol: each ERRANT edit) fills it and saves it with ``Protocol.details_save``."""


class WorkAnswerSerializer(serializers.Serializer):
    """One answer in the workers' API: a score or a rank for the candidate at ``position``."""

    position = serializers.IntegerField(min_value=0, max_value=4)
    score = serializers.IntegerField(
        min_value=0, max_value=100, required=False, allow_null=True, default=None
    )
    rank = serializers.IntegerField(min_value=1, max_value=5, required=False, allow_null=True, default=None)
    meaning_changed = serializers.BooleanField(default=False)


def whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Protocol(ABC):
    """A way of judging a screen. Subclass, set the attributes, implement the two abstract methods,
    and ``register`` an instance."""

    name: str = ""
    """Stored in ``Campaign.protocol`` (at most 16 characters)."""
    label: str = ""
    template: str = "ranking/work.html"
    """The worker's page for one screen."""
    instructions: str = ""
    """What workers read when the researcher writes none."""
    answer_field: str = "score"
    """The ``Rating`` column an answer fills: ``score`` or ``rank``."""
    missing_answer: str = "answer every output before submitting"
    screen_size: tuple[int, int] = (2, 5)
    """Outputs per screen a campaign may ask for (``max_candidates``)."""
    min_systems: int = 1
    draws_systems: bool = False
    """True: each screen shows a random draw of ``max_candidates`` systems (``screens_per_sentence``
    draws per sentence, or active selection); False: every distinct output, a screen at a time."""
    trap_reference_edits: bool = False
    """Hidden traps obey the edit-level rule of ``geceval.traps`` (``reference_edits``): an added error
    no reference and no other candidate makes, an undone correction a reference makes (issue 41)."""
    judges_edits: bool = False
    """Workers label each edit of a candidate besides judging it (the edit-level protocol): pages that
    tell researchers how a trap is judged mention the labels."""
    trap_kinds: Mapping[str, int] = MappingProxyType({ADDED_ERROR: 1, UNDONE_CORRECTION: 1})
    """The hidden-trap kinds this protocol's campaigns mix (``geceval.traps.hidden``), each with its
    weight: the planner makes next the kind furthest below its share."""
    shows_ranking: bool = False
    """Live results are TrueSkill ranks (rank ranges, clusters, pairwise counts)."""
    prws_ratings: bool = False
    """Answers are PRWS ratings (0-100): the PRWS summary and the per-segment PRWS exports read them."""
    api_answer_serializer: type[serializers.Serializer] = WorkAnswerSerializer
    judgment_formats: tuple[JudgmentFormat, ...] = (WMT_CSV, APPRAISE_XML)
    """The files its judgments export to, in the order pages list them (``ranking.protocols.files``)."""

    def answer_from_api(self, answer: Mapping) -> CandidateScore:
        """One validated ``api_answer_serializer`` item as an answer."""
        return CandidateScore(
            score=answer["score"], rank=answer["rank"], meaning_changed=answer["meaning_changed"]
        )

    def answers_from_api(
        self, screen: Screen, candidates: Sequence[Candidate], items: Mapping[int, Mapping]
    ) -> dict[int, CandidateScore]:
        """A screen's validated ``api_answer_serializer`` items, by candidate id (one per position
        shown: the view checked), as answers; ``screen_submit`` validates them as it does a form's.
        GecInputError for what only the screen can refuse (a protocol that judges parts: their number)."""
        return {pk: self.answer_from_api(item) for pk, item in items.items()}

    def answers_from_form(
        self, candidates: Sequence[Candidate], data: Mapping[str, str]
    ) -> dict[int, CandidateScore]:
        """Read a screen's form: fields are named by display position only (``score-0``, ``rank-2``,
        ``changed-1``), so nothing in a page identifies a candidate or tells a trap apart."""
        key = self.answer_field
        answers: dict[int, CandidateScore] = {}
        for candidate in candidates:
            raw = str(data.get(f"{key}-{candidate.position}", "")).strip()
            if raw == "":
                raise GecInputError(self.missing_answer)
            try:
                value = int(raw)
            except ValueError:
                raise GecInputError("answers are whole numbers") from None
            changed = data.get(f"changed-{candidate.position}") == "on"
            answers[candidate.pk] = CandidateScore(meaning_changed=changed, **{key: value})
        self.validate_answers(candidates, answers)
        return answers

    def validate_answers(
        self, candidates: Sequence[Candidate], answers: Mapping[int, CandidateScore]
    ) -> None:
        """Every candidate of the screen answered, nothing else, values in range; else GecInputError."""
        if set(answers) != {c.pk for c in candidates}:
            raise GecInputError("every output on the screen needs an answer, and only those")
        for answer in answers.values():
            self.validate_answer(answer, len(candidates))

    @abstractmethod
    def validate_answer(self, answer: CandidateScore, shown: int) -> None:
        """One answer's value in range for a screen of ``shown`` outputs; else GecInputError."""

    def trap_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool | None:
        """Whether the trap was judged worse than its base (by at least ``margin`` points where answers
        are points; a tie fails); None: no verdict."""
        return None

    def correction_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool | None:
        """A positive control's verdict (``geceval.traps.hidden.BETTER_KINDS``: the trap is its base with
        one correction the references agree on added); None: the protocol makes none."""
        return None

    def gold_relation(self, first: int, second: int) -> int:
        """Two answers (``answer_field`` values) of one screen: -1 first better, 0 equal, 1 second better."""
        return (first < second) - (first > second)

    @abstractmethod
    def live_scores(self, campaign: Campaign, wanted: dict) -> dict[int, dict]:
        """system id -> ``SystemScore`` fields, from the campaign's valid judgments."""

    # ------------------------------------------------------------------ hooks with a default
    # A protocol with its own tables (ranking.protocols.edits) overrides these; the callers never ask
    # which protocol they have.

    def screen_extra(self, screen: Screen, candidates: Sequence[Candidate]) -> dict[str, Any]:
        """More context for the worker's page of ``screen`` (its ``template`` reads it). Whatever it
        holds is shown to the worker: nothing in it may tell a trap apart."""
        return {}

    def api_candidate_fields(
        self, screen: Screen, candidates: Sequence[Candidate]
    ) -> dict[int, dict[str, Any]]:
        """candidate id -> more fields of that candidate in the workers' API (each declared, optional,
        in ``ranking.work.api.WorkCandidateSerializer``): what ``screen_extra`` gives the page, for a client.
        Whatever it holds is shown to the worker: nothing in it may tell a trap apart. The default
        costs no query (the API reads screens on the crowd's hot path)."""
        return {}

    def details_save(self, judgment: ScreenJudgment, answers: Mapping[int, CandidateScore]) -> None:
        """Save what the answers hold beyond a score or a rank (``CandidateScore.labels``), in the
        transaction that saved the judgment and its ``Rating`` rows; raise to roll it all back."""
        return None

    def alike_details(self, screen_ids: Any) -> dict[tuple[int, int, int], str]:
        """(screen, judge, candidate) -> the rest of a judge's answer to a candidate, as one string, that
        two accounts of one person copy along with the score or rank (issue 41: the one-person check
        compares both). ``screen_ids``: ids or a subquery. Empty: the score or rank is the whole answer."""
        return {}

    def answers_load(self, judge_id: int, candidate_ids: Sequence[int]) -> dict[int, CandidateScore]:
        """The judge's saved answers to these candidates (a hidden trap's verdict, given once both its
        screens are judged), as ``answers_from_form`` read them."""
        return {
            candidate: CandidateScore(score=score, rank=rank)
            for candidate, score, rank in Rating.objects.filter(
                judgment__judge_id=judge_id, candidate_id__in=candidate_ids
            ).values_list("candidate_id", "score", "rank")
        }

    def run_panels(self, run: Any) -> list[dict[str, Any]]:
        """Panels for an analysis run's page: ``{"template": ..., **context}`` each, included in order."""
        return []

    human_scores_offered: Mapping[str, str] = {}
    """Human scores per system the protocol's judgments give besides the rankings (name -> label),
    which a meta-evaluation may correlate the metrics with instead of its human run's score."""

    def human_scores(self, campaign: Campaign, name: str) -> dict[str, float]:
        """System -> the named human score (one of ``human_scores_offered``) on the campaign's valid
        judgments."""
        raise GecInputError(f"{self.label} gives no human score named {name!r}")
