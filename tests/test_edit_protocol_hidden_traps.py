"""Hidden traps in an edit-level campaign (GMEG dev FCE, as the hidden-trap tests): the trap sits beside
its base on a screen, and its verdict, given once the worker judged both, reads the saved labels and
ranks back through the protocol (``Protocol.answers_load``)."""

from __future__ import annotations

import pytest

from ranking.models import Control, ControlKind, ScreenJudgment
from ranking.protocols import CandidateScore, protocol_get
from ranking.selectors import screen_candidates
from tests import factories as f

pytestmark = pytest.mark.django_db


def _edit_campaign(tmp_path, name: str, *, judgments_per_item: int = 1):
    """An edit-level campaign of GMEG dev FCE with hidden traps at 0.2, as every test here judges it."""
    return f.gmeg_fce_trap_campaign(tmp_path, "edits", name, judgments_per_item=judgments_per_item)


def _traps(campaign) -> dict[int, tuple[int, str]]:
    """trap candidate id -> (its base's candidate id, the trap's kind)."""
    return {
        trap: (base, kind)
        for trap, base, kind in Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .values_list("trap_id", "base_id", "kind")
    }


def _work(campaign, worker, *, careful: bool, max_screens: int = 40) -> None:
    """Careful: every edit of a trap that its base has not is marked bad and the trap ranked last
    (an added correction: marked good and ranked first); every other edit good and every other
    correction ranked first. Careless: all good, all first."""
    protocol = protocol_get("edits")
    traps = _traps(campaign) if careful else {}

    def answer(screen, candidates):
        edits = protocol.candidate_edits(screen, candidates)
        answers = []
        for c in candidates:
            base, kind = traps.get(c.pk, (None, None))
            worse = base is not None and kind != ControlKind.ADDED_CORRECTION
            base_keys = {e.key for e in edits.get(base, [])}
            labels = tuple(
                ((e.index, *e.key), "bad" if worse and e.key not in base_keys else "good")
                for e in edits[c.pk]
            )
            answers.append(CandidateScore(rank=len(candidates) if worse else 1, labels=labels))
        return answers

    f.work_hits(campaign, worker, answer, max_screens=max_screens)


def test_hidden_traps_need_their_added_edits_marked_bad_and_a_lower_rank(tmp_path):
    campaign = _edit_campaign(tmp_path, "edits with hidden traps", judgments_per_item=2)
    careful, careless = (f.user(name, "annotator") for name in ("careful", "careless"))
    campaign.project.members.add(careful, careless)
    _work(campaign, careful, careful=True)
    _work(campaign, careless, careful=False)
    verdicts = {worker: _verdicts(worker) for worker in (careful, careless)}
    assert len(verdicts[careful]) >= 2 and {v for _, v in verdicts[careful]} == {True}
    # "everything good, all level" passes a positive control (a correction added): the kinds that
    # make the trap worse catch it
    worse = [v for kind, v in verdicts[careless] if kind != ControlKind.ADDED_CORRECTION]
    assert len(worse) >= 2 and set(worse) == {False}


def _verdicts(worker) -> list[tuple[str, bool]]:
    """(trap kind, passed) of the worker's trap verdicts."""
    return list(
        ScreenJudgment.objects.filter(judge=worker, trap_passed__isnull=False).values_list(
            "screen__control__kind", "trap_passed"
        )
    )


def test_every_edit_level_trap_is_wrong_by_the_references_edits(tmp_path):
    """Issue 41: a careful worker who marks an edit good when a reference makes it passes every trap.
    So each added error is an edit (against the source) no reference and no other candidate of its
    screen makes, each undone correction one a reference makes, and the trap has more errors against
    its closest reference than its base; a PRWS campaign of the same corpus keeps GLEU+'s rule alone."""
    from annotate.selectors import corpus_references
    from geceval.traps.hidden import reference_edit_check, reference_errors

    campaign = _edit_campaign(tmp_path, "edits with the reference rule")
    traps = list(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .select_related("base", "trap", "screen__sentence")
    )
    assert len(traps) >= 10
    refs = corpus_references(campaign.corpus_id, [c.screen.sentence_id for c in traps])
    for c in traps:
        source, references = c.screen.sentence.text, refs[c.screen.sentence_id]
        others = list(c.screen.candidates.exclude(pk=c.trap_id).values_list("text", flat=True))
        assert reference_edit_check(c.base.text, c.trap.text, c.kind, source, references, others), c.trap.text
        trap_errors = reference_errors(source, references, c.trap.text)
        base_errors = reference_errors(source, references, c.base.text)
        if c.kind == ControlKind.ADDED_CORRECTION:  # a positive control: better than its base
            assert trap_errors < base_errors
        else:
            assert trap_errors > base_errors


def _agreement_answers(screen) -> dict:
    """The "agreement" bot of bench/bot_strategies.py: an edit another candidate of the screen also
    makes is good, a lone edit bad; each correction 50 points, 5 up per shared edit and 10 down per
    lone one, ranked by that (equal values share a rank). Answers keyed as the server keys them."""
    protocol = protocol_get("edits")
    candidates = screen_candidates(screen)
    edits = protocol.candidate_edits(screen, candidates)
    shared = {
        c.pk: [any(e.key in {x.key for x in edits[o.pk]} for o in candidates if o != c) for e in edits[c.pk]]
        for c in candidates
    }
    values = {pk: 50 + sum(5 if s else -10 for s in flags) for pk, flags in shared.items()}
    order = sorted(set(values.values()), reverse=True)
    return {
        c.pk: CandidateScore(
            rank=order.index(values[c.pk]) + 1,
            labels=tuple(
                ((e.index, *e.key), "good" if s else "bad")
                for e, s in zip(edits[c.pk], shared[c.pk], strict=True)
            ),
        )
        for c in candidates
    }


def test_added_corrections_catch_the_worker_who_calls_every_lone_edit_an_error(tmp_path):
    """Issue 41: on the edit-level protocol every added error is a lone edit, so a worker who calls lone
    edits bad passed its traps (0.64-0.85 on the server). A third of the edit-level traps now add a
    correction most references make and no candidate of the screen makes: a lone edit that is good.
    Judged by the server's verdict on every trap of a GMEG dev FCE campaign (each screen as the worker
    sees it), that worker fails every one of them, and under 60% of the traps in all; a careful worker
    passes them (the first test)."""
    from ranking.work.judging import trap_verdict

    campaign = _edit_campaign(tmp_path, "edits with added corrections")
    traps = list(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .select_related("screen__sentence")
    )
    kinds = [c.kind for c in traps]
    share = kinds.count(ControlKind.ADDED_CORRECTION) / len(kinds)
    assert len(kinds) >= 30 and 0.25 <= share <= 0.42, (len(kinds), share)
    verdicts = []
    for c in traps:
        answers = _agreement_answers(c.screen)
        verdicts.append(
            (c.kind, trap_verdict("edits", answers[c.trap_id], answers[c.base_id], 1, c.kind).passed)
        )
    corrections = [v for kind, v in verdicts if kind == ControlKind.ADDED_CORRECTION]
    added_errors = [v for kind, v in verdicts if kind == ControlKind.ADDED_ERROR]
    assert len(corrections) >= 10 and not any(corrections)
    assert sum(added_errors) / len(added_errors) >= 0.8  # why they were needed
    assert sum(v for _, v in verdicts) / len(verdicts) < 0.6, sum(v for _, v in verdicts) / len(verdicts)
