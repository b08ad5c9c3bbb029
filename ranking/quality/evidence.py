"""A worker's evidence in a campaign (issue 17): their answers read from the database, the statistics
of ``geceval.human.worker_checks`` computed on them, and the researcher's choice of which evidence excludes."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q

from geceval.human.crowd_evidence import (
    AGREEMENT_DRIFT_MIN_OTHERS,
    agreement_drift_start,
    family,
    fence,
    leave_one_out,
    same_person,
    vouches,
)
from geceval.human.drift import drift_start
from geceval.human.worker_checks import ANSWERS, consistency, flatness, trap_test
from geceval.traps.hidden import ALL_KINDS
from ranking.models import Campaign, ControlKind, ScreenJudgment, WorkerRecord
from ranking.protocols import protocol_get
from ranking.quality.holds import TOO_FAST_JUDGMENT
from ranking.statuses import JUDGMENT_NOT_EVIDENCE
from ranking.work.judging import normalise
from ranking.work.reads import (
    crowd_answers,
    other_records,
    worker_judged,
    worker_ratings,
    worker_trap_times,
    worker_trap_verdicts,
)


def evidence_recount(record: WorkerRecord, *, crowd: bool = True) -> None:
    """Recount ``record`` (its campaign and worker loaded) from the worker's judgments; not saved.

    Two queries: the trap verdicts with the answers they compared, and every rating of the worker in
    the campaign with whether its screen is a repeat (for consistency and flat scoring). ``crowd``:
    the evidence from the rest of the crowd too (``_crowd_recount``); without it those fields keep
    what the last full recount found (a submit leaves them to a task, issue 38)."""
    campaign = record.campaign
    traps = worker_trap_verdicts(campaign_id=campaign.pk, worker_id=record.worker_id)
    record.traps_seen, record.traps_passed = len(traps), sum(passed for passed, *_ in traps)
    kinds: dict[str, list[int]] = {}
    for passed, _, _, kind in traps:
        if kind in ALL_KINDS:  # hidden traps only: a gold copy is the researcher's answer, not a kind
            kinds.setdefault(kind, [0, 0])[0] += 1
            kinds[kind][1] += passed
    record.trap_kinds = kinds
    _gold_recount(record)
    _speed_recount(record)
    _drift_recount(record)
    answer = protocol_get(campaign.protocol).answer_field
    if answer not in ANSWERS:  # a protocol without comparable answers: the pass rate is all there is
        return
    paired = [(base, trap) for _, base, trap, _ in traps if base is not None and trap is not None]
    record.mann_whitney_p = trap_test([b for b, _ in paired], [t for _, t in paired], answer=answer)
    screens, repeats = _worker_answers(campaign, record.worker_id, answer)
    same = consistency(
        [_matched(screens[copy], screens[original]) for copy, original in repeats if original in screens],
        answer=answer,
    )
    record.repeats_seen, record.repeat_distance, record.inconsistent = (
        same.repeats,
        same.distance,
        same.inconsistent,
    )
    flat = flatness([[(pos, value) for pos, _, value in s] for s in screens.values()], answer=answer)
    record.flat_reason, record.score_spread, record.position_rho = flat.reason, flat.spread, flat.position_rho
    if crowd:
        _crowd_recount(record, answer)


def crowd_evidence_kept(campaign: Campaign) -> bool:
    """Whether the campaign's protocol has answers to compare with the crowd's (``_crowd_recount``)."""
    return protocol_get(campaign.protocol).answer_field in ANSWERS


def _crowd_recount(record: WorkerRecord, answer: str) -> None:
    """Issue 41: the worker against the rest of the crowd on the screens they share (qualification
    tests aside, only work that is its worker's evidence): agreement with the others' mean (leaving
    out workers already excluded), far below the campaign's other figures or not, and the workers
    whose answers are alike this one's beyond chance (with the rest of each answer the protocol
    keeps, ``alike_details``: the edit-level labels). Two plain statements (``ranking.work.reads``), a
    third when drift is looked for, one more query with edit labels."""
    campaign_id, worker_id = record.campaign.pk, record.worker_id
    rows = crowd_answers(campaign_id=campaign_id, worker_id=worker_id, answer=answer)
    answers: dict[int, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for screen_id, judge_id, candidate_id, value in rows:
        answers[screen_id][judge_id][candidate_id] = float(value)
    # only the screens read above are looked up in the details: any others would not be used
    details = protocol_get(record.campaign.protocol).alike_details(list(answers))
    others = other_records(campaign_id=campaign_id, worker_id=worker_id)
    excluded = {pk for pk, out, _ in others if out}
    kept = {s: {j: a for j, a in by.items() if j not in excluded} for s, by in answers.items()}
    # accounts that answer much like this one (one program's, or a person's others) are left out of
    # the crowd it is measured against: they would vouch for it (``crowd_evidence.family``)
    agreement = leave_one_out(kept, worker_id)
    close = family(kept, worker_id, everyone=agreement)
    record.agreement_family = len(close)
    if close:
        kept = {s: {j: a for j, a in by.items() if j not in close} for s, by in kept.items()}
        agreement = leave_one_out(kept, worker_id)
    record.agreement, record.agreement_screens = agreement.r, agreement.screens
    figures = [r for _, out, r in others if not out and r is not None]
    everyone = [*figures, agreement.r] if agreement.r is not None else None  # this figure with the others
    line = fence(everyone) if everyone else None
    record.agreement_low = line is not None and agreement.r < line
    record.agreement_drift_from = None
    if line is not None and not record.agreement_low:  # drift: the recent screens alone
        judged = [
            (s, at) for s, at in worker_judged(campaign_id=campaign_id, worker_id=worker_id) if s in kept
        ]
        # a screen counts once it has as many other judges as the campaign can give, up to the
        # core's AGREEMENT_DRIFT_MIN_OTHERS
        others_needed = min(AGREEMENT_DRIFT_MIN_OTHERS, record.campaign.judgments_per_item - 1)
        start = agreement_drift_start(kept, worker_id, [s for s, _ in judged], line, min_others=others_needed)
        record.agreement_drift_from = None if start is None else judged[start][1]
    alike = answers
    if details:  # the edit-level protocol: a rank and its edit labels are alike only together
        alike = {
            s: {j: {c: (v, details.get((s, j, c), "")) for c, v in a.items()} for j, a in by.items()}
            for s, by in answers.items()
        }
    # a copy with a little noise added is a copy too (near-identical screens): slider scores within
    # a point or two, ranks and edit labels with one pair ordered or one edit labelled otherwise
    record.same_as = [
        t.other for t in same_person(alike, worker_id, scores=answer == "score", ranks=answer == "rank")
    ]
    # an account alike another is not vouched for: copies agree with each other, and the group's first
    # account, which keeps counting, would owe its vouching to its own copies
    record.agreement_vouches = (
        not record.same_as
        and record.agreement_drift_from is None
        and everyone is not None
        and vouches(agreement.r, everyone)
    )


def _gold_recount(record: WorkerRecord) -> None:
    """Issue 41: of the trap verdicts, those of copies of the researcher's gold screens (shown apart in
    the record). One query, and none while the campaign places no gold copies."""
    record.gold_seen = record.gold_passed = 0
    if not record.campaign.gold_rate:
        return
    counts = (
        ScreenJudgment.objects.filter(
            judge_id=record.worker_id,
            screen__campaign_id=record.campaign.pk,
            screen__control__kind=ControlKind.GOLD,
            trap_passed__isnull=False,
        )
        .exclude(JUDGMENT_NOT_EVIDENCE)
        .aggregate(seen=Count("pk"), passed=Count("pk", filter=Q(trap_passed=True)))
    )
    record.gold_seen, record.gold_passed = counts["seen"], counts["passed"]


def _drift_recount(record: WorkerRecord) -> None:
    """Issue 41: the trap verdicts in the order given, over a sliding window (``geceval.human.drift``); when
    the recent ones fail, ``drift_from`` is when the first failure of the failing stretch was saved.
    One plain statement."""
    verdicts = worker_trap_times(campaign_id=record.campaign.pk, worker_id=record.worker_id)
    start = drift_start([passed for passed, _ in verdicts], threshold=record.campaign.trap_threshold)
    record.drift_from = None if start is None else verdicts[start][1]


def _speed_recount(record: WorkerRecord) -> None:
    """The speed rule (issue 35): a screen answered under its minimum counts as a failed trap: one
    more trap seen (none passed) on a screen without a verdict, a pass taken back on a trap passed.
    Only from assignments that are the worker's evidence (``ranking.statuses.NOT_EVIDENCE``). One query, and none while the campaign's rule is off."""
    record.too_fast = 0
    if not record.campaign.speed_rule:
        return
    verdicts = (
        ScreenJudgment.objects.filter(
            TOO_FAST_JUDGMENT, judge_id=record.worker_id, screen__campaign_id=record.campaign.pk
        )
        .exclude(screen__hit__qualification=True)
        .exclude(JUDGMENT_NOT_EVIDENCE)
        .values_list("trap_passed", flat=True)
    )
    for passed in verdicts:
        record.too_fast += 1
        if passed is None:
            record.traps_seen += 1
        elif passed:
            record.traps_passed -= 1


def _worker_answers(
    campaign: Campaign, worker_id: int, answer: str
) -> tuple[dict[int, list[tuple[int, str, float]]], list[tuple[int, int]]]:
    """Per judged screen (qualification tests aside): (position, text, answer) of each candidate; and
    the (repeat screen, its original) pairs the worker judged."""
    rows = worker_ratings(campaign_id=campaign.pk, worker_id=worker_id, answer=answer)
    screens: dict[int, list[tuple[int, str, float]]] = defaultdict(list)
    repeats: set[tuple[int, int]] = set()
    for screen_id, kind, original_id, position, text, value in rows:
        screens[screen_id].append((position, text, value))
        if kind == ControlKind.REPEAT:
            repeats.add((screen_id, original_id))
    return screens, sorted(repeats)


def _matched(copy: list[tuple[int, str, float]], original: list[tuple[int, str, float]]) -> list:
    """(answer on the original, answer on the copy) for each candidate text shown on both."""
    first = {normalise(text): value for _, text, value in original}
    return [(first[key], value) for _, text, value in copy if (key := normalise(text)) in first]


def campaign_workers_with_judgments(campaign: Campaign) -> list[AbstractBaseUser]:
    """Workers who judged in the campaign or have a record in it."""
    users = get_user_model().objects.filter(
        Q(screen_judgments__screen__campaign=campaign) | Q(pk__in=campaign.worker_records.values("worker_id"))
    )
    return list(users.distinct().order_by("pk"))
