"""Added corrections in a relative-ranking campaign (issue 41): a third of its hidden traps are its
base with one correction most references make and no other candidate of the copy makes. On GMEG dev
FCE, on PostgreSQL, through the real build, claim and submit paths: a careful ranker passes every
kind, a ranker who ties everything fails the two kinds that make the trap worse, and a ranker who
takes the one lone edit between two near-copies for the error (the "agreement" judge, the ranking
half of bench/bot_strategies.py's) fails every added correction, which the kind rule excludes."""

from __future__ import annotations

import pytest

from annotate.selectors import corpus_references
from geceval.human.worker_checks import kind_never_passed
from geceval.traps.hidden import reference_edit_check, sentence_gleu
from ranking.models import Control, ControlKind, ScreenJudgment
from ranking.protocols import CandidateScore, protocol_get
from ranking.selectors import screen_candidates
from ranking.work.judging import trap_verdict
from tests import factories as f

pytestmark = pytest.mark.django_db


def _campaign(tmp_path, *, judgments_per_item: int = 1):
    return f.gmeg_fce_trap_campaign(
        tmp_path, "ranking", "ranking with added corrections", judgments_per_item=judgments_per_item
    )


def _controls(campaign) -> list[Control]:
    return list(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .select_related("base", "trap", "screen__sentence")
    )


def test_a_third_of_the_traps_add_a_correction_the_references_agree_on_and_no_other_candidate_makes(
    tmp_path,
):
    campaign = _campaign(tmp_path)
    controls = _controls(campaign)
    kinds = [c.kind for c in controls]
    share = kinds.count(ControlKind.ADDED_CORRECTION) / len(kinds)
    assert len(kinds) >= 30 and 0.25 <= share <= 0.42, (len(kinds), share)
    refs = corpus_references(campaign.corpus_id, [c.screen.sentence_id for c in controls])
    for c in controls:
        if c.kind != ControlKind.ADDED_CORRECTION:
            continue
        source, references = c.screen.sentence.text, refs[c.screen.sentence_id]
        others = list(c.screen.candidates.exclude(pk=c.trap_id).values_list("text", flat=True))
        assert reference_edit_check(c.base.text, c.trap.text, c.kind, source, references, others)
        assert sentence_gleu(source, references, c.trap.text) > sentence_gleu(source, references, c.base.text)


def _verdicts(worker) -> list[tuple[str, bool]]:
    return list(
        ScreenJudgment.objects.filter(judge=worker, trap_passed__isnull=False).values_list(
            "screen__control__kind", "trap_passed"
        )
    )


def test_a_careful_ranker_passes_every_kind_and_one_who_ties_everything_fails_the_others(tmp_path):
    campaign = _campaign(tmp_path, judgments_per_item=2)
    traps = {c.trap_id: c.kind for c in _controls(campaign)}
    careful, level = (f.user(name, "annotator") for name in ("careful", "level"))
    campaign.project.members.add(careful, level)

    def knows(screen, candidates):
        # a trap that makes its base worse last, an added correction first, the rest between
        kinds = [traps.get(c.pk) for c in candidates]
        rest = 2 if ControlKind.ADDED_CORRECTION in kinds else 1
        return [1 if k == ControlKind.ADDED_CORRECTION else len(candidates) if k else rest for k in kinds]

    f.work_hits(campaign, careful, knows)
    f.work_hits(campaign, level, lambda screen, candidates: [1] * len(candidates))
    mine = _verdicts(careful)
    assert {k for k, _ in mine} == {
        ControlKind.ADDED_ERROR,
        ControlKind.UNDONE_CORRECTION,
        ControlKind.ADDED_CORRECTION,
    }
    assert all(v for _, v in mine), mine
    ties = _verdicts(level)
    assert {k for k, _ in ties} == {k for k, _ in mine}, ties  # every kind met before its exclusion
    assert all(v for k, v in ties if k == ControlKind.ADDED_CORRECTION)
    assert not any(v for k, v in ties if k != ControlKind.ADDED_CORRECTION)


def _agreement_ranks(screen, candidates) -> list[int]:
    """The agreement judge's ranks, on the ERRANT edits the edit-level screens show: 50 points, 5 up
    per edit another candidate also makes and 10 down per lone one; equal values share a rank."""
    edits = protocol_get("edits").candidate_edits(screen, candidates)
    keys = {c.pk: {e.key for e in edits[c.pk]} for c in candidates}
    values = [
        50 + sum(5 if any(e in keys[o.pk] for o in candidates if o != c) else -10 for e in keys[c.pk])
        for c in candidates
    ]
    order = sorted(set(values), reverse=True)
    return [order.index(v) + 1 for v in values]


def test_the_ranker_who_takes_the_lone_edit_for_the_error_fails_every_added_correction(tmp_path):
    """It passes two thirds of the added errors and undone corrections (a lone edit the base has not,
    or a shared edit the trap lost), enough for the pass-rate rule on those kinds alone (on the
    server it was excluded 45-65% of the time within 20 traps); it fails every added
    correction, a lone edit that is good, so the kind rule (``kind_never_passed``) excludes it."""
    campaign = _campaign(tmp_path)
    verdicts = []
    for c in _controls(campaign):
        candidates = screen_candidates(c.screen)
        ranks = dict(
            zip(
                [x.pk for x in candidates],
                _agreement_ranks(c.screen, candidates),
                strict=True,
            )
        )
        answer = {pk: CandidateScore(rank=r) for pk, r in ranks.items()}
        verdicts.append(
            (c.kind, trap_verdict("ranking", answer[c.trap_id], answer[c.base_id], 1, c.kind).passed)
        )
    corrections = [v for k, v in verdicts if k == ControlKind.ADDED_CORRECTION]
    worse = [v for k, v in verdicts if k != ControlKind.ADDED_CORRECTION]
    assert len(corrections) >= 10 and not any(corrections)
    # why the kind is needed: on the other two it passes what the pass-rate rule asks (0.66 here)
    assert sum(worse) / len(worse) >= 0.6, sum(worse) / len(worse)
    counts = {
        k: (sum(1 for x, _ in verdicts if x == k), sum(v for x, v in verdicts if x == k)) for k, _ in verdicts
    }
    assert kind_never_passed(counts) == ControlKind.ADDED_CORRECTION
