"""Hidden controls while workers judge (``ranking.quality.controls`` plans and saves them): which HITs
the claim skips because a copy would sit beside its original, and each trap's verdict once the worker
has judged both its screens."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q

from ranking.models import COPIED_KINDS, Campaign, Control, ControlKind, Screen, ScreenJudgment, TrapDesign
from ranking.protocols import protocol_get
from ranking.quality.gold_copies import gold_verdicts
from ranking.work.judging import trap_verdict


def hits_with_copies_seen(*, campaign_id: int, worker_id: int):
    """Ids of the campaign's HITs that show a sentence the worker was shown in another HIT where one of
    the two screens is a copy of the other's kind (``COPIED_KINDS``: a trap's copy of its donor
    screen, a gold copy or the gold screen it copies). Comparing the two would show the copy (issue
    41), so the claim skips these HITs: the ORM twin of the claim's plain-SQL subquery
    (``ranking.work.reads._copies_seen_sql``; tests/test_work_reads.py holds them equal)."""
    copied = Q(control__kind__in=COPIED_KINDS)
    seen = Screen.objects.filter(
        campaign_id=campaign_id, sentence=OuterRef("sentence"), hit__assignments__worker_id=worker_id
    ).exclude(hit=OuterRef("hit"))
    return (
        Screen.objects.filter(campaign_id=campaign_id, hit__isnull=False)
        .filter((copied & Exists(seen)) | Exists(seen.filter(copied)))
        .values_list("hit_id", flat=True)
        .distinct()
    )


def has_controls(campaign: Campaign) -> bool:
    hidden = campaign.trap_design == TrapDesign.HIDDEN and bool(campaign.trap_rate or campaign.repeat_rate)
    return hidden or campaign.gold_rate > 0  # gold copies (issue 41) in either design


def controls_judged(*, campaign: Campaign, screen_id: int, worker_id: int) -> bool:
    """In the transaction that saved the worker's judgment of a screen: the verdict of each hidden
    trap of which the worker has now judged both the control and its original (so the base and the
    trap too), stored on the control screen's judgment with the two answers compared. True when this
    judgment completed a trap or a repeat (the worker's record needs a refresh)."""
    controls = list(
        Control.objects.filter(Q(screen_id=screen_id) | Q(original_id=screen_id)).values_list(
            "screen_id", "original_id", "kind", "base_id", "trap_id"
        )
    )
    if not controls:
        return False
    # Every control waits for its original too, even a trap whose base is on the copy: the
    # verdict's work (and so the response's time) then falls on whichever of the two is judged
    # second, never on the control itself (issue 35).
    needs = {(copy, original): (copy, kind, base, trap) for copy, original, kind, base, trap in controls}
    screens = {s for pair in needs for s in pair} - {screen_id}
    judged = {screen_id} | set(
        ScreenJudgment.objects.filter(judge_id=worker_id, screen_id__in=screens).values_list(
            "screen_id", flat=True
        )
    )
    complete = [c for pair, c in needs.items() if set(pair) <= judged]
    traps = [c for c in complete if c[1] not in (ControlKind.REPEAT, ControlKind.GOLD)]
    gold = [c[0] for c in complete if c[1] == ControlKind.GOLD]
    if gold:
        gold_verdicts(campaign, worker_id, gold)
    if traps:
        answers = protocol_get(campaign.protocol).answers_load(worker_id, [x for c in traps for x in c[2:]])
        for copy, kind, base, trap in traps:
            verdict = trap_verdict(
                campaign.protocol, answers[trap], answers[base], campaign.trap_margin, kind
            )
            ScreenJudgment.objects.filter(screen_id=copy, judge_id=worker_id).update(
                trap_passed=verdict.passed,
                trap_base_answer=verdict.base_answer,
                trap_answer=verdict.trap_answer,
            )
    return bool(complete)
