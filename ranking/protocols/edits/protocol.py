"""The edit-level protocol (issue 24): each correction is shown with its ERRANT edits against the
source as highlighted spans; the worker marks each edit good, bad or neutral, then ranks the
corrections (1 = best, ties allowed), as in relative ranking.

Form fields are named by display position and edit order only (``edit-2-0``, ``rank-2``); the workers'
API lists each candidate's edits in that order and takes one label per edit, in order. A trap (a
Source+error beside the source, or a hidden trap beside its base) passes when every edit it has that its
base has not (the errors it added) is marked bad *and* it is ranked below its base, or level with it
when it has such an edit (the labels then say the worker saw the error).

The rankings are relative ranking's (TrueSkill live, WMT CSV and Appraise XML exports); the labels
export as JSONL (``edit-jsonl``) and give each system an edit-level score on an analysis run's page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from rest_framework import serializers

from geceval.errors import GecInputError
from geceval.traps.hidden import ADDED_CORRECTION, ADDED_ERROR, UNDONE_CORRECTION
from ranking.models import Campaign, Candidate, Rating, Screen, ScreenJudgment
from ranking.protocols.base import CandidateScore
from ranking.protocols.edits.annotation import EditSpan, edits_for_texts
from ranking.protocols.edits.exports import EDIT_JSONL, campaign_edit_scores, edit_scores_panel
from ranking.protocols.edits.models import EditLabel, EditLabelChoice
from ranking.protocols.files import APPRAISE_XML, WMT_CSV
from ranking.protocols.relative import RelativeRanking

LABELS = tuple(c.value for c in EditLabelChoice)
EDIT_SHARE = "edit_share"
NEEDS_LABELS = (
    "label every change: a list of good, bad or neutral, one per change of the correction in the "
    "order listed (empty for a correction without changes)"
)

INSTRUCTIONS = (
    "Each correction of the original sentence is shown with its changes highlighted. Mark each change "
    "good (it fixes an error or makes the sentence better), bad (it adds an error or changes the "
    "meaning) or neutral (neither). Then rank the corrections from best (1) to worst; give two "
    "corrections the same rank when they are equally good. Keys: g, b and n mark the change in focus, "
    "a digit ranks the correction in focus."
)


class EditAnswerSerializer(serializers.Serializer):
    """One answer of an edit-level screen in the workers' API: the rank of the correction at
    ``position`` and one label per edit of it, in the order the screen lists its ``edits``."""

    position = serializers.IntegerField(min_value=0, max_value=4)
    rank = serializers.IntegerField(
        min_value=1,
        max_value=5,
        error_messages={"required": "rank every correction", "null": "rank every correction"},
    )
    labels = serializers.ListField(
        child=serializers.ChoiceField(
            choices=LABELS,
            error_messages={"invalid_choice": 'a change is marked good, bad or neutral, not "{input}"'},
        ),
        error_messages={
            "required": NEEDS_LABELS,
            "null": NEEDS_LABELS,
            "not_a_list": NEEDS_LABELS,
        },
        help_text="good, bad or neutral for each of the correction's edits, in the order listed "
        "(an empty list for a correction without edits)",
    )


def _changes(n: int) -> str:
    return "no changes" if n == 0 else "1 change" if n == 1 else f"{n} changes"


def _segments(text: str, edits: Sequence[EditSpan]) -> list[dict]:
    """The correction as plain runs and edits, left to right, for the page (escaped by the template)."""
    tokens = text.split()
    out: list[dict] = []
    at = 0
    for e in edits:
        if e.c_start > at:
            out.append({"text": " ".join(tokens[at : e.c_start])})
        out.append({"edit": e, "new": " ".join(tokens[e.c_start : e.c_end]), "old": e.o_text})
        at = e.c_end
    if at < len(tokens):
        out.append({"text": " ".join(tokens[at:])})
    return out


class EditLevel(RelativeRanking):
    name = "edits"
    label = "Edit-level labels and ranking"
    template = "ranking/work_edits.html"
    instructions = INSTRUCTIONS
    missing_answer = "label every change and rank every correction before submitting"
    judgment_formats = (EDIT_JSONL, WMT_CSV, APPRAISE_XML)
    api_answer_serializer = EditAnswerSerializer
    # A careful worker who marks an edit good when a reference makes it passes every trap (issue 41).
    trap_reference_edits = True
    judges_edits = True
    # Added corrections beside the two kinds that make the trap worse (issue 41): a worker who calls
    # every lone edit an error passes every added error and fails these.
    trap_kinds = MappingProxyType({ADDED_ERROR: 1, UNDONE_CORRECTION: 1, ADDED_CORRECTION: 1})

    def candidate_edits(self, screen: Screen, candidates: Sequence[Candidate]) -> dict[int, list[EditSpan]]:
        """candidate id -> its stored edits (computed the first time the text is shown)."""
        by_text = edits_for_texts(screen.sentence, [c.text for c in candidates])  # in screen order: ids too
        return {c.pk: by_text[c.text] for c in candidates}

    def screen_extra(self, screen: Screen, candidates: Sequence[Candidate]) -> dict[str, Any]:
        edits = self.candidate_edits(screen, candidates)
        return {
            "edit_rows": [(c, _segments(c.text, edits[c.pk]), len(edits[c.pk])) for c in candidates],
            "edit_labels": [(value, value.capitalize(), value[0]) for value in LABELS],
        }

    def api_candidate_fields(
        self, screen: Screen, candidates: Sequence[Candidate]
    ) -> dict[int, dict[str, Any]]:
        """Each candidate's edits as the page shows them: order, source span, original and correction
        (no ERRANT type: the page shows none)."""
        edits = self.candidate_edits(screen, candidates)
        return {
            c.pk: {
                "edits": [
                    {
                        "index": e.index,
                        "span": [e.o_start, e.o_end],
                        "original": e.o_text,
                        "correction": e.c_text,
                    }
                    for e in edits[c.pk]
                ]
            }
            for c in candidates
        }

    def answer_from_api(self, answer: Mapping, edits: Sequence[EditSpan] = ()) -> CandidateScore:
        """One validated ``EditAnswerSerializer`` item: its labels, in order, name ``edits`` (the
        candidate's, in order) as the form's ``edit-<position>-<index>`` fields do."""
        labels = answer["labels"]
        if len(labels) != len(edits):
            raise GecInputError(
                f"the correction at position {answer['position']} has {_changes(len(edits))}: "
                f"give one label per change, in the order listed (you gave {len(labels)})"
            )
        return CandidateScore(
            rank=answer["rank"],
            labels=tuple(((e.index, *e.key), label) for e, label in zip(edits, labels, strict=True)),
        )

    def answers_from_api(
        self, screen: Screen, candidates: Sequence[Candidate], items: Mapping[int, Mapping]
    ) -> dict[int, CandidateScore]:
        if not items:
            return {}
        edits = self.candidate_edits(screen, candidates)
        return {c.pk: self.answer_from_api(items[c.pk], edits[c.pk]) for c in candidates if c.pk in items}

    def answers_from_form(
        self, candidates: Sequence[Candidate], data: Mapping[str, str]
    ) -> dict[int, CandidateScore]:
        if not candidates:
            raise GecInputError("this screen has no corrections")
        screen = Screen.objects.select_related("sentence").get(pk=candidates[0].screen_id)
        edits = self.candidate_edits(screen, candidates)
        answers: dict[int, CandidateScore] = {}
        for c in candidates:
            raw = str(data.get(f"rank-{c.position}", "")).strip()
            if raw == "":
                raise GecInputError(self.missing_answer)
            try:
                rank = int(raw)
            except ValueError:
                raise GecInputError("ranks are whole numbers") from None
            labels = []
            for e in edits[c.pk]:
                label = str(data.get(f"edit-{c.position}-{e.index}", "")).strip()
                if label == "":
                    raise GecInputError(self.missing_answer)
                labels.append(((e.index, *e.key), label))
            answers[c.pk] = CandidateScore(rank=rank, labels=tuple(labels))
        self.validate_answers(candidates, answers)
        return answers

    def validate_answers(
        self, candidates: Sequence[Candidate], answers: Mapping[int, CandidateScore]
    ) -> None:
        super().validate_answers(candidates, answers)
        if not candidates:
            return
        screen = Screen.objects.select_related("sentence").get(pk=candidates[0].screen_id)
        edits = self.candidate_edits(screen, candidates)
        for c in candidates:
            expected = sorted((e.index, *e.key) for e in edits[c.pk])
            given = answers[c.pk].labels
            if sorted(key for key, _ in given) != expected:
                raise GecInputError("every change of every correction needs one label, and only those")
            if any(label not in LABELS for _, label in given):
                raise GecInputError("a change is marked good, bad or neutral")

    def trap_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool:
        """Every edit the base has not (the added errors) marked bad, and the trap ranked below its
        base, or level with it when there is such an edit to mark.

        A tie passes on the labels: marking the inserted error bad is the evidence of reading, and a
        careful ranker whose tolerance calls two texts a few GLEU+ points apart equal ranks the trap
        level with its base (issue 41: on the server, a third of careful-fluency's failed traps were
        such ties, with the error marked bad). A worker who ties everything and calls everything bad
        still fails every undone correction (no added edit: the rank alone) and every added correction.

        ERRANT aligns the trap with the source afresh, so an inserted error can cut one of the base's
        edits in pieces: base "We know all" -> "We all know" is one edit (1-3 "all know"), the trap
        "We all tnow" gives a deletion of "know" (1-2) and the insertion "tnow" (3-3). A piece of a
        base edit the trap no longer makes whole (its span inside that edit's span, its words among
        that edit's words: here the deletion) is the base's correction, not an added error: a careful
        reader marks it good, and the rule does not ask for bad (issue 41, found by bench/bots.py).
        The inserted words ("tnow") are not among the base edit's words and must still be bad."""
        added = added_labels(trap, base)
        marked = all(label == EditLabelChoice.BAD for label in added)
        return marked and (trap.rank > base.rank or (trap.rank == base.rank and bool(added)))

    def correction_passed(self, trap: CandidateScore, base: CandidateScore, margin: int = 1) -> bool:
        """A positive control (issue 41): the trap is its base with one correction most references make
        and no other candidate of the screen makes, a lone edit. Passed when that edit (every edit the
        trap has that its base has not, as ``trap_passed`` finds them) is not marked bad and the trap is
        not ranked below its base: a careful reader may call a small correction neutral or rank the two
        level, but not call it an error. A worker who takes lone edits for errors fails."""
        added = added_labels(trap, base)
        return trap.rank <= base.rank and all(label != EditLabelChoice.BAD for label in added)

    def details_save(self, judgment: ScreenJudgment, answers: Mapping[int, CandidateScore]) -> None:
        candidates = list(Candidate.objects.filter(pk__in=list(answers)).select_related("screen__sentence"))
        if not candidates:
            return
        edits = self.candidate_edits(candidates[0].screen, candidates)
        rows = []
        for c in candidates:
            by_index = {e.index: e for e in edits[c.pk]}
            for key, label in answers[c.pk].labels:
                edit = by_index.get(key[0])
                if edit is None or (edit.index, *edit.key) != tuple(key):
                    raise GecInputError("a label names a change that is not on the screen")
                rows.append(EditLabel(judgment=judgment, candidate=c, edit_id=edit.pk, label=label))
        EditLabel.objects.bulk_create(rows)

    def answers_load(self, judge_id: int, candidate_ids: Sequence[int]) -> dict[int, CandidateScore]:
        ratings = Rating.objects.filter(judgment__judge_id=judge_id, candidate_id__in=candidate_ids)
        labels = EditLabel.objects.filter(judgment__judge_id=judge_id, candidate_id__in=candidate_ids)
        per_candidate: dict[int, list] = {c: [] for c in candidate_ids}
        for cid, index, o_start, o_end, c_text, label in labels.order_by("edit__index").values_list(
            "candidate_id", "edit__index", "edit__o_start", "edit__o_end", "edit__c_text", "label"
        ):
            per_candidate[cid].append(((index, o_start, o_end, c_text), label))
        return {
            cid: CandidateScore(score=score, rank=rank, labels=tuple(per_candidate.get(cid, ())))
            for cid, score, rank in ratings.values_list("candidate_id", "score", "rank")
        }

    def alike_details(self, screen_ids: Any) -> dict[tuple[int, int, int], str]:
        """Each judge's labels of a candidate's edits in edit order, one letter each ("gbn"): careful
        people who rank alike rarely label every edit alike (issue 41). One query."""
        out: dict[tuple[int, int, int], str] = {}
        rows = EditLabel.objects.filter(judgment__screen_id__in=screen_ids).order_by("edit__index")
        for screen_id, judge_id, candidate_id, label in rows.values_list(
            "judgment__screen_id", "judgment__judge_id", "candidate_id", "label"
        ):
            key = (screen_id, judge_id, candidate_id)
            out[key] = out.get(key, "") + label[0]
        return out

    def run_panels(self, run: Any) -> list[dict[str, Any]]:
        return [edit_scores_panel(run.campaign)]

    # Edit-based human evaluation (as SEEDA-E in Kobayashi et al. 2024): a system's human score is
    # built from the edit labels rather than from the sentence rankings.
    human_scores_offered = {EDIT_SHARE: "Share of each system's edits marked good (edit-level labels)"}

    def human_scores(self, campaign: Campaign, name: str) -> dict[str, float]:
        if name != EDIT_SHARE:
            return super().human_scores(campaign, name)
        return {s.system: s.share for s in campaign_edit_scores(campaign)}


EDIT_LEVEL = EditLevel()


def added_labels(trap: CandidateScore, base: CandidateScore) -> list[str]:
    """The labels of the edits the trap has that its base has not, a piece of a base edit that ERRANT
    cut out of the trap aside (``EditLevel.trap_passed``)."""
    base_edits = {key[1:] for key, _ in base.labels}
    trap_edits = {key[1:] for key, _ in trap.labels}
    broken = [e for e in base_edits if e not in trap_edits]  # base edits the trap cuts or undoes

    def piece_of_base(edit: tuple) -> bool:
        start, end, words = edit[0], edit[1], str(edit[2]).split()
        return any(b[0] <= start and end <= b[1] and _sub_multiset(words, str(b[2]).split()) for b in broken)

    return [label for key, label in trap.labels if key[1:] not in base_edits and not piece_of_base(key[1:])]


def _sub_multiset(words: list[str], of: list[str]) -> bool:
    """Every word of ``words`` among ``of``, as often (an empty list, a deletion, always is)."""
    pool = list(of)
    for w in words:
        if w not in pool:
            return False
        pool.remove(w)
    return True
