"""Evidence against a crowd worker, beyond the trap pass rate (issue 17): plain data in, plain data out.

Three signals, each computed from one worker's own answers in one campaign:

- Appraise's test: a one-sided Mann-Whitney U of the worker's answers to the bases of traps against
  their answers to the traps. A worker who reads rates bases better; the worker is kept when p < 0.05.
  It says nothing before ``MANN_WHITNEY_MIN_TRAPS`` scored or ``MANN_WHITNEY_MIN_RANKED_TRAPS`` ranked
  traps (too few answers for the test to mean much).
- Consistency: the same screen shown twice (a repeat) should get the same answers. PRWS: the mean
  absolute difference, in points, between the two scores of each candidate; ranking: the share of
  candidate pairs ordered one way on the first showing and the other way on the second.
- Flat scoring: near-constant answers (PRWS: scores with a standard deviation under 5 points; ranking:
  every screen all tied), or answers that follow the display position (|Spearman rho| >= 0.8).

``answer`` names what the numbers are, as the protocols' ``answer_field`` does: ``"score"`` (higher is
better) or ``"rank"`` (lower is better).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from scipy.stats import mannwhitneyu, spearmanr

from geceval.errors import GecInputError

MANN_WHITNEY_MIN_TRAPS = 15
"""Scored traps a worker must have answered before Appraise's test is computed (Appraise waits for 10).
Simulated on the real GMEG FCE traps with the default rules (bench/trap_rules.py, 2,000 workers a
row), a careful worker who rates with 15 points of noise is excluded within 20 traps 1.1% of the time
when the test starts at 10, 0.35% at 12 and 0.10% at 15, a random one 99.0%, 98.9% and 98.1%: unpaired
scores of bases of every quality make the test noisy for a reader at 10."""
MANN_WHITNEY_MIN_RANKED_TRAPS = 12
"""The same for ranks. A careful ranker is excluded mostly by the pass rate (a trap tied with its
base fails), so waiting longer costs more than it saves: careful 1.15%, 0.75%, 0.20% at 10, 12, 15,
random 98.1%, 97.85%, 96.45% (at 20, 94.6%: the goal is 95%)."""
MANN_WHITNEY_ALPHA = 0.05
"""A worker is kept when their bases are rated better than their traps at this level."""

MIN_REPEATS = 2
"""Repeats a worker must have answered before the consistency flag can be raised."""
MAX_REPEAT_POINTS = 30.0
"""PRWS: mean |difference| above which repeats are far apart. A careful worker with 15 points of noise
per rating differs by about 17 on average; a random one (uniform 0-100) by about 33."""
MAX_REPEAT_FLIPS = 0.5
"""Ranking: share of candidate pairs ordered the other way on the repeat above which the worker is
inconsistent. A random ranker flips about half of the pairs it orders; a careful one fewer."""

MIN_FLAT_RATINGS = 20
"""Ratings needed before flat scoring is judged."""
FLAT_SCORE_SD = 5.0
"""PRWS: scores whose standard deviation is below this many points are near-constant."""
POSITION_RHO = 0.8
"""|Spearman rho| between answer and display position at or above which answers follow the position."""

PILOT_MIN_RATINGS = 6
"""Ratings of a worker's first HIT needed before its scores can be called near-constant (issue 40's
pilot check: one HIT is all there is, so the bar is lower than ``MIN_FLAT_RATINGS``; a hold, unlike an
exclusion, is undone when later evidence clears the worker)."""
PILOT_FAST_SHARE = 0.25
"""Share of a worker's first HIT's screens under their minimum plausible time at or above which the
worker is held (a careful reader of the bot benchmark takes about three times the minimum)."""

ANSWERS = ("score", "rank")

DEFAULT_TRAP_THRESHOLD = 0.6
"""The pass-rate rule's default: a worker must pass at least this share of traps (campaigns, the API
and the form start here; docs/hardening.md says why not 0.7)."""
DEFAULT_TRAP_MIN_SEEN = 10
"""Traps a worker must have seen before the pass-rate rule applies."""
VOUCH_MARGIN = 0.1
"""How far under the campaign's trap threshold a worker the crowd vouches for may pass traps before
the pass-rate rule excludes them (``Evidence.crowd_vouches``: agreement with the others at least half
the median worker's and 0.25, no twin, ``geceval.human.crowd_evidence.vouches``). Twenty traps tell a reader at 77% from
a random ranker at 50% only so well: the 0.6 rule, checked at every trap from the 10th, excludes the
first 15% of the time and keeps the second 11%; at 0.5 the first 3% and the second 36%. The crowd
separates them (random answers agree at r about 0, the careful models at 0.38-0.75, real MTurk workers
at 0.33-0.59), so a worker between the two lines is judged by it."""
KIND_MIN_SEEN = 4
"""Traps of one kind (an added error, an undone correction, an added correction) a worker must have
failed, every one of them, before that alone excludes them under the pass-rate rule (issue 41). A
reader fails a kind now and then, a heuristic that does not read fails one kind every time: the
"agreement" judge (lone edits bad) every added correction, "fewer edits is better" every undone and
added correction, while its total passes. A careful reader who passes a kind 80% of the time fails
its first four 0.16% of the time (0.2^4), one at 56% (careful-fluency's undone corrections on the
server) 3.7%; the rule also waits for the pass-rate rule's ``trap_min_seen`` traps in all."""


ADDED_CORRECTION = "added_correction"
"""The kind name ``geceval.traps.hidden`` gives the positive control (this layer may not import that
one; ``tests/core/test_worker_checks.py`` checks the two agree)."""
CORRECTION_MIN_SEEN = 3
"""``KIND_MIN_SEEN`` for added corrections, the positive controls (issue 41). Careful people pass them
more often than any other kind: Napoles et al. 2015's experts ranked 37 of 39 natural ones above their
base and Sakaguchi et al. 2016's MTurk workers 20 of 21 (``tests/core/test_traps_real_judges.py``),
our careful models 84-87% (run ad1); a reader at 84% fails their first three 0.4% of the time. A
campaign whose references are judged makes few of them (an eighth of the traps on GMEG dev FCE), so
the agreement judge, which fails every one, met four in 20 traps about a quarter of the time."""


def kind_never_passed(
    kinds: Mapping[str, tuple[int, int]],
    *,
    min_seen: int = KIND_MIN_SEEN,
    correction_min_seen: int = CORRECTION_MIN_SEEN,
) -> str:
    """The kind of trap (sorted first, for a stable answer) of which the worker failed every one of at
    least ``min_seen`` (``correction_min_seen`` of added corrections), or "". ``kinds``: kind ->
    (seen, passed)."""
    for kind in sorted(kinds):
        seen, passed = kinds[kind]
        if seen >= (correction_min_seen if kind == ADDED_CORRECTION else min_seen) and passed == 0:
            return kind
    return ""


def _check_answer(answer: str) -> None:
    if answer not in ANSWERS:
        raise GecInputError(f"unknown answer kind {answer!r} (expected one of {', '.join(ANSWERS)})")


def mann_whitney_min_traps(answer: str) -> int:
    """Traps needed before Appraise's test says anything, for ``answer`` "score" or "rank"."""
    _check_answer(answer)
    return MANN_WHITNEY_MIN_TRAPS if answer == "score" else MANN_WHITNEY_MIN_RANKED_TRAPS


def trap_test(base_answers: Sequence[float], trap_answers: Sequence[float], *, answer: str) -> float | None:
    """Appraise's p-value that the worker rates bases better than their traps (one-sided Mann-Whitney U).

    None until ``mann_whitney_min_traps(answer)`` traps were answered. Answers that are all equal give p = 1:
    no evidence that the worker tells a base from its trap.
    """
    _check_answer(answer)
    if len(base_answers) != len(trap_answers):
        raise GecInputError("each trap needs the answer to its base")
    if len(trap_answers) < mann_whitney_min_traps(answer):
        return None
    # Scores: bases higher is better; ranks: bases lower is better.
    alternative = "greater" if answer == "score" else "less"
    p = float(mannwhitneyu(base_answers, trap_answers, alternative=alternative).pvalue)
    return 1.0 if math.isnan(p) else p


def trap_test_passed(p: float | None) -> bool | None:
    """Kept (True), failed (False), or not judged yet (None)."""
    return None if p is None else p < MANN_WHITNEY_ALPHA


@dataclass(frozen=True)
class Consistency:
    """How far apart a worker's answers to the same screens were: ``distance`` is in PRWS points or a
    share of flipped pairs (None without a repeat); ``inconsistent`` needs ``MIN_REPEATS``."""

    repeats: int
    distance: float | None
    inconsistent: bool


def consistency(repeats: Sequence[Sequence[tuple[float, float]]], *, answer: str) -> Consistency:
    """``repeats``: per repeated screen, (first answer, second answer) for each candidate text shown on
    both. A repeat with no candidate in common is ignored."""
    _check_answer(answer)
    repeats = [r for r in repeats if r]
    if not repeats:
        return Consistency(repeats=0, distance=None, inconsistent=False)
    if answer == "score":
        differences = [abs(a - b) for r in repeats for a, b in r]
        distance = sum(differences) / len(differences)
        limit = MAX_REPEAT_POINTS
    else:
        pairs = flips = 0
        for r in repeats:
            for (a1, a2), (b1, b2) in combinations(r, 2):
                pairs += 1
                # flipped: strictly one way the first time, strictly the other way the second
                flips += (a1 - b1) * (a2 - b2) < 0
        distance = flips / pairs if pairs else 0.0
        limit = MAX_REPEAT_FLIPS
    return Consistency(
        repeats=len(repeats), distance=distance, inconsistent=len(repeats) >= MIN_REPEATS and distance > limit
    )


@dataclass(frozen=True)
class Flatness:
    """Flat scoring: ``reason`` is ``"constant"``, ``"position"`` or ``""`` (not flat, or too few
    ratings to say). ``spread`` is the scores' standard deviation (PRWS; None for ranking),
    ``position_rho`` Spearman's rho of answer against display position (None when undefined)."""

    ratings: int
    spread: float | None
    position_rho: float | None
    reason: str


def flatness(
    screens: Sequence[Sequence[tuple[int, float]]], *, answer: str, min_ratings: int = MIN_FLAT_RATINGS
) -> Flatness:
    """``screens``: per judged screen, (display position, answer) for each candidate; nothing is
    called flat under ``min_ratings`` ratings."""
    _check_answer(answer)
    flat = [(p, a) for s in screens for p, a in s]
    n = len(flat)
    spread = statistics.pstdev([a for _, a in flat]) if answer == "score" and n >= 2 else None
    rho = _position_rho(flat)
    reason = ""
    if n >= min_ratings:
        if answer == "score":
            constant = spread is not None and spread < FLAT_SCORE_SD
        else:
            constant = all(len({a for _, a in s}) == 1 for s in screens if s)
        if constant:
            reason = "constant"
        elif rho is not None and abs(rho) >= POSITION_RHO:
            reason = "position"
    return Flatness(ratings=n, spread=spread, position_rho=rho, reason=reason)


def first_hit_doubt(
    screens: Sequence[Sequence[tuple[int, float]]], *, answer: str | None, too_fast: int
) -> str:
    """Why a worker's first HIT looks like a script's (issue 40): ``"fast"`` when at least
    ``PILOT_FAST_SHARE`` of its screens were answered under their minimum plausible time (``too_fast``
    of ``len(screens)``), ``"constant"`` when its answers are near-constant (``flatness`` from
    ``PILOT_MIN_RATINGS`` ratings), ``""`` otherwise. ``screens``: per judged screen of the HIT,
    (display position, answer) for each candidate; ``answer`` None: a protocol without comparable
    answers, where only speed says anything."""
    if screens and too_fast / len(screens) >= PILOT_FAST_SHARE:
        return "fast"
    if answer is not None:
        _check_answer(answer)
        if flatness(screens, answer=answer, min_ratings=PILOT_MIN_RATINGS).reason == "constant":
            return "constant"
    return ""


def _position_rho(flat: list[tuple[int, float]]) -> float | None:
    if len(flat) < 3 or len({p for p, _ in flat}) < 2 or len({a for _, a in flat}) < 2:
        return None  # undefined: one of the two is constant
    return float(spearmanr([p for p, _ in flat], [a for _, a in flat]).statistic)


@dataclass(frozen=True)
class Rules:
    """Which signals exclude a worker (the researcher's choice per campaign) and the pass-rate rule's
    own settings."""

    pass_rate: bool = True
    mann_whitney: bool = True
    consistency: bool = False
    flat: bool = False
    agreement: bool = False
    """Agreement with the crowd far below the campaign's (``geceval.human.crowd_evidence``, issue 41)."""
    trap_threshold: float = DEFAULT_TRAP_THRESHOLD
    trap_min_seen: int = DEFAULT_TRAP_MIN_SEEN


@dataclass(frozen=True)
class Evidence:
    """One worker's signals, as stored in their record."""

    traps_seen: int = 0
    traps_passed: int = 0
    mann_whitney_p: float | None = None
    inconsistent: bool = False
    flat_reason: str = ""
    agreement_low: bool = False
    drifting: bool = False
    """The recent traps fail while the total passes (``geceval.human.drift``)."""
    agreement_drifting: bool = False
    """The recent screens agree far below the crowd while the total does not
    (``geceval.human.crowd_evidence.agreement_drift_start``)."""
    kind_failed: str = ""
    """A kind of trap every one of which the worker failed (``kind_never_passed``), or ""."""
    crowd_vouches: bool = False
    """The worker's answers agree with the others' as a reader's do
    (``geceval.human.crowd_evidence.vouches``), and do not drift: the pass rate may fall
    ``VOUCH_MARGIN`` under the threshold."""


KIND_FAILED = "every trap of one kind failed"
"""The reason ``kind_never_passed`` gives, under the pass-rate rule (the record names the kind)."""
RECENT_TRAPS = "recent trap pass rate"
"""The reason a drifting worker is excluded: only their work since the drift began is removed."""
RECENT_AGREEMENT = "recent answers far from the other workers'"
"""The same for drift over agreement with the crowd (the agreement rule's)."""
RECENT = (RECENT_TRAPS, RECENT_AGREEMENT)


def pass_line(evidence: Evidence, rules: Rules) -> float:
    """The trap pass rate under which the pass-rate rule excludes this worker: the campaign's threshold,
    ``VOUCH_MARGIN`` lower for a worker the crowd vouches for."""
    # rounded: 0.6 - 0.1 is 0.49999999999999994, and a worker at exactly the lower line is kept
    return round(rules.trap_threshold - (VOUCH_MARGIN if evidence.crowd_vouches else 0.0), 9)


def exclusion_reasons(evidence: Evidence, rules: Rules) -> list[str]:
    """The chosen rules the evidence breaks, in plain words (empty: the worker is kept)."""
    reasons = []
    seen = evidence.traps_seen
    if (
        rules.pass_rate
        and seen
        and seen >= rules.trap_min_seen
        and evidence.traps_passed / seen < pass_line(evidence, rules)
    ):
        reasons.append("trap pass rate")
    elif rules.pass_rate and evidence.kind_failed and seen >= rules.trap_min_seen:
        reasons.append(KIND_FAILED)
    if rules.pass_rate and evidence.drifting and not reasons:
        reasons.append(RECENT_TRAPS)
    if rules.mann_whitney and trap_test_passed(evidence.mann_whitney_p) is False:
        reasons.append("traps not rated worse than their bases")
    if rules.consistency and evidence.inconsistent:
        reasons.append("repeats answered far apart")
    if rules.flat and evidence.flat_reason:
        reasons.append("flat scoring" if evidence.flat_reason == "constant" else "answers follow position")
    if rules.agreement and evidence.agreement_low:
        reasons.append("answers far from the other workers'")
    elif rules.agreement and evidence.agreement_drifting:
        reasons.append(RECENT_AGREEMENT)
    return reasons
