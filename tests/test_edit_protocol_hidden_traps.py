"""Hidden traps in an edit-level campaign (GMEG dev FCE, as the hidden-trap tests): the trap sits beside
its base on a screen, and its verdict, given once the worker judged both, reads the saved labels and
ranks back through the protocol (``Protocol.answers_load``)."""

from __future__ import annotations

import pytest

from ranking.models import Control, ControlKind, ScreenJudgment
from ranking.protocols import CandidateScore, protocol_get
from ranking.selectors import screen_candidates
from ranking.services import NoWork, assignment_request, campaign_create, screen_submit
from ranking.work.assignments import assignment_next_screen
from tests import factories as f

pytestmark = pytest.mark.django_db

SYSTEMS = ("amu", "lstm", "marian", "nus")


def _work(campaign, worker, *, careful: bool, max_screens: int = 40) -> None:
    """Careful: every edit of a trap that its base has not is marked bad and the trap ranked last;
    every other edit good and every other correction ranked first. Careless: all good, all first."""
    protocol = protocol_get("edits")
    traps = dict(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .values_list("trap_id", "base_id")
    )
    done = 0
    while done < max_screens:
        try:
            assignment = assignment_request(campaign=campaign, worker=worker)
        except NoWork:
            return
        while (screen := assignment_next_screen(assignment)) is not None and done < max_screens:
            candidates = screen_candidates(screen)
            edits = protocol.candidate_edits(screen, candidates)
            answers = {}
            for c in candidates:
                base = traps.get(c.pk) if careful else None
                base_keys = {e.key for e in edits.get(base, [])}
                labels = tuple(
                    ((e.index, *e.key), "bad" if base and e.key not in base_keys else "good")
                    for e in edits[c.pk]
                )
                answers[c.pk] = CandidateScore(rank=len(candidates) if base else 1, labels=labels)
            screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers)
            done += 1
            if assignment.status != "active":
                break


def test_hidden_traps_need_their_added_edits_marked_bad_and_a_lower_rank(tmp_path):
    corpus = f.gmeg_fce_corpus(tmp_path, SYSTEMS)
    campaign = campaign_create(
        project=corpus.project,
        corpus=corpus,
        name="edits with hidden traps",
        systems=list(corpus.systems.filter(name__in=SYSTEMS)),
        created_by=corpus.project.owner,
        protocol="edits",
        max_candidates=4,
        judgments_per_item=2,
        screens_per_hit=20,
        trap_rate=0.2,
        trap_secret="fixed secret for the tests",
    )
    careful, careless = (f.user(name, "annotator") for name in ("careful", "careless"))
    campaign.project.members.add(careful, careless)
    _work(campaign, careful, careful=True)
    _work(campaign, careless, careful=False)
    verdicts = {
        worker: list(
            ScreenJudgment.objects.filter(judge=worker, trap_passed__isnull=False).values_list(
                "trap_passed", flat=True
            )
        )
        for worker in (careful, careless)
    }
    assert len(verdicts[careful]) >= 2 and set(verdicts[careful]) == {True}
    assert len(verdicts[careless]) >= 2 and set(verdicts[careless]) == {False}


def test_every_edit_level_trap_is_wrong_by_the_references_edits(tmp_path):
    """Issue 41: a careful worker who marks an edit good when a reference makes it passes every trap.
    So each added error is an edit (against the source) no reference and no other candidate of its
    screen makes, each undone correction one a reference makes, and the trap has more errors against
    its closest reference than its base; a PRWS campaign of the same corpus keeps GLEU+'s rule alone."""
    from annotate.selectors import corpus_references
    from geceval.traps.hidden import reference_edit_check, reference_errors

    corpus = f.gmeg_fce_corpus(tmp_path, SYSTEMS)
    campaign = campaign_create(
        project=corpus.project,
        corpus=corpus,
        name="edits with the reference rule",
        systems=list(corpus.systems.filter(name__in=SYSTEMS)),
        created_by=corpus.project.owner,
        protocol="edits",
        max_candidates=4,
        judgments_per_item=1,
        screens_per_hit=20,
        trap_rate=0.2,
        trap_secret="fixed secret for the tests",
    )
    traps = list(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind=ControlKind.REPEAT)
        .select_related("base", "trap", "screen__sentence")
    )
    assert len(traps) >= 10
    refs = corpus_references(corpus.pk, [c.screen.sentence_id for c in traps])
    for c in traps:
        source, references = c.screen.sentence.text, refs[c.screen.sentence_id]
        others = list(c.screen.candidates.exclude(pk=c.trap_id).values_list("text", flat=True))
        assert reference_edit_check(c.base.text, c.trap.text, c.kind, source, references, others), c.trap.text
        assert reference_errors(source, references, c.trap.text) > reference_errors(
            source, references, c.base.text
        )
