"""Evidence from comparing a worker with the rest of the crowd (issue 41): plain data in, plain data out.

- Agreement with the crowd (leave-one-out): on every screen the worker shares with others, their
  answers against the mean of the others' answers to the same candidates. Each screen's answers are
  centred on their own mean (a lenient and a strict scorer agree when they order the candidates
  alike), pooled over the worker's screens, and correlated (Pearson's r). Scores and ranks alike:
  both sides are the same kind of number, so r > 0 is agreement either way. A worker far below the
  campaign's distribution (:func:`far_below`) reads the texts differently from everyone else, or
  does not read them.
- One person, many accounts: pairs of workers whose answers to shared screens are identical (every
  candidate the same score or rank) far more often than pairs of workers in the campaign usually are
  (:func:`same_person`): a one-sided binomial test against the median pair's rate of identical
  screens (the median, so that a ring of accounts does not raise its own baseline). Near-identical
  screens count too: slider scores within ``SAME_SCORE_TOLERANCE`` points, ranks (and edit labels)
  with at most ``SAME_RANK_TOLERANCE`` pair ordered or edit labelled otherwise: a copy with a little
  noise added is a copy too.

``Answers``: screen -> judge -> candidate -> the answer (a score or a rank). The one-person check
compares answers for equality (and within a tolerance: :func:`score_gap`, :func:`rank_gap`), so there
an answer may also be a rank with the edit-level labels of the candidate's edits, ``(2, "gbn")``
(issue 41).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import sub

from scipy.stats import binomtest

Answers = Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, float]]]
AlikeAnswers = Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, object]]]
"""Answers for the one-person check: any value that compares for equality."""

AGREEMENT_MIN_SCREENS = 10
"""Shared screens a worker must have before their agreement is judged."""
AGREEMENT_MIN_WORKERS = 5
"""Workers with an agreement figure a campaign needs before anyone is "far below" its distribution."""
AGREEMENT_SPREADS = 3.0
"""Far below: under the median by more than this many robust standard deviations (1.4826 x MAD)..."""
AGREEMENT_MIN_GAP = 0.3
"""...and by at least this much r, so that a crowd that agrees closely does not set a hair trigger."""

SAME_MIN_SHARED = 5
"""Shared screens a pair needs before it can be called one person."""
SAME_MIN_SHARE = 0.5
"""A pair is one person only when at least this share of their shared screens are answered alike..."""
SAME_ALPHA = 1e-6
"""...and the binomial test against the crowd's usual rate says so at this level."""
SAME_BASE_FLOOR = 0.02
"""The lowest chance of two workers answering a screen alike that the test assumes."""
SAME_SCORE_TOLERANCE = 2.0
"""Slider scores (0-100): two answers to a screen are also alike when they differ by at most this many
points on average over its candidates, so that copies with a point or two of noise added are copies
too. Careful people who judge by one near-deterministic rule come this close on a share of screens
(up to 0.6 of ten or more shared, simulated: docs/hardening.md), hence the stricter share below..."""
SAME_NEAR_MIN_SHARED = 10
"""...the shared screens a pair needs before it is one person by near-identical scores..."""
SAME_NEAR_MIN_SHARE = 0.8
"""...and the share of them alike within the tolerance (the binomial test as for identical screens)."""
SAME_RANK_TOLERANCE = 1
"""Ranks (with the edit-level protocol's labels): two answers to a screen are also alike when they
differ in at most this many things, a pair of candidates ordered otherwise (two swapped, a tie made
or broken) or an edit labelled otherwise, so that a copy with one change made on each screen is a
copy too. Real judges are alike within it on at most 0.35 of the shared screens of a pair with ten or
more (Napoles et al. 2015, Sakaguchi et al. 2016: tests/core/test_crowd_evidence_real.py); eight of
each of the benchmark's careful models on 120 GMEG dev FCE screens at most 0.53 (careful-references,
ranking) and 0.45 (edit-level, labels too), a ring that changes one thing a screen on all. The same
shared screens as for scores (``SAME_NEAR_MIN_SHARED``); the shares are ``SAME_RANK_*`` below."""
SAME_RANK_MIN_SHARE = 0.8
"""Ranks: the share of shared screens answered identically that makes a pair one person. Ranks of a
few candidates are often identical by chance, and careful people who judge by the references rank
alike on much of a screen: in a benchmark crowd of three careful models and four bots (2026-11-29,
run ac2) careful-references pairs ranked 25 to 75 shared screens identically on up to 0.56 of them,
beyond the crowd's rate (0.12), and the ``SAME_MIN_SHARE`` of scores flagged them. Real judges: at
most 0.11 (0.31 on screens of the same systems); copies: 0.93 (a ring adding a point before ranking)
to 1."""
SAME_RANK_NEAR_MIN_SHARE = 0.95
"""Ranks: the share of shared screens alike within ``SAME_RANK_TOLERANCE`` that makes a pair one
person. In that crowd careful-references pairs came within one thing on up to 0.92 of their screens
(0.74 in a crowd of every strategy, run ac1); a ring that changes one thing a screen, 0.99 to 1. A ring
that changes two things on one screen in twenty escapes, as one that changes two on every screen
does (docs/hardening.md)."""
SAME_MIN_PAIRS = 3
"""Pairs of other workers (each with ``SAME_MIN_SHARED`` shared screens) the crowd's usual rate needs:
with fewer, how alike careful people answer is unknown (two careful rankers often give one order), so
nobody is called one person yet."""


@dataclass(frozen=True)
class Agreement:
    screens: int
    """Screens the worker shares with at least one other worker, on at least two candidates."""
    r: float | None
    """Pearson's r of the worker's centred answers and the others' centred means (None: fewer than
    ``AGREEMENT_MIN_SCREENS`` screens, or answers that never vary)."""


def _pair_sums(
    mine: Mapping[Hashable, float], theirs: Mapping[Hashable, float]
) -> tuple[float, float, float] | None:
    """(mine x theirs, mine^2, theirs^2) of two answers to one screen, each centred on the candidates
    both answered (None: fewer than two)."""
    items = [i for i in mine if i in theirs]
    if len(items) < 2:
        return None
    a_mean, b_mean = statistics.fmean(mine[i] for i in items), statistics.fmean(theirs[i] for i in items)
    a, b = [mine[i] - a_mean for i in items], [theirs[i] - b_mean for i in items]
    return sum(x * y for x, y in zip(a, b, strict=True)), sum(x * x for x in a), sum(y * y for y in b)


def _screen_sums(answers: Answers, worker: Hashable) -> dict[Hashable, tuple[float, float, float]]:
    """Per screen the worker shares with another worker on two candidates at least: the sums of
    (mine x theirs, mine^2, theirs^2) of the centred answers and the others' centred means."""
    out: dict[Hashable, tuple[float, float, float]] = {}
    for screen, by_judge in answers.items():
        own = by_judge.get(worker)
        others = [a for judge, a in by_judge.items() if judge != worker]
        if not own or not others:
            continue
        means = {
            i: statistics.fmean([o[i] for o in others if i in o]) for i in own if any(i in o for o in others)
        }
        if (sums := _pair_sums(own, means)) is not None:
            out[screen] = sums
    return out


def _r(sums: Sequence[tuple[float, float, float]]) -> float | None:
    xy, xx, yy = (sum(s[k] for s in sums) for k in range(3))
    den = math.sqrt(xx * yy)
    return xy / den if den else None


def leave_one_out(
    answers: Answers, worker: Hashable, *, min_screens: int = AGREEMENT_MIN_SCREENS
) -> Agreement:
    sums = list(_screen_sums(answers, worker).values())
    if len(sums) < min_screens:
        return Agreement(len(sums), None)
    return Agreement(len(sums), _r(sums))


FAMILY_R = 0.7
"""Close accounts (:func:`family`): another worker whose answers agree with this one's at this r or
more, pair by pair over ``AGREEMENT_MIN_SCREENS`` shared screens or more..."""
FAMILY_GAP = 0.3
"""...and by at least this much more than this worker's answers agree with the whole crowd's, is left
out of the crowd this worker's agreement is measured against. Accounts of one program agree with one
another far beyond what they agree with anyone else, and would vouch for one another; people who
agree closely with one another agree closely with the crowd too, unless the screens are hard.
Measured (docs/hardening.md, "An outside adversary"):
- the outside adversary's accounts with one another 0.77-0.87 and with the crowd 0.29-0.51 (a gap
  of 0.3-0.6); careful models (one program each, with noise) with one another up to 0.96 and with
  the crowd within 0.15 of that;
- real judges: Napoles et al. 2015's four at most 0.66 pair by pair; Sakaguchi et al. 2016's MTurk
  workers up to 0.80, and none of them is another's close account: the ones this close agree closely
  with the rest too (tests/core/test_crowd_evidence_real.py)."""


def family(
    answers: Answers,
    worker: Hashable,
    *,
    min_screens: int = AGREEMENT_MIN_SCREENS,
    r_at: float = FAMILY_R,
    gap: float = FAMILY_GAP,
    everyone: Agreement | None = None,
) -> set[Hashable]:
    """The other workers whose answers agree with ``worker``'s at ``r_at`` or more (Pearson's r of the
    answers centred per screen, pooled over the screens both answered, ``min_screens`` of them at
    least) and by ``gap`` more than ``worker``'s agree with everyone else's (:func:`leave_one_out`):
    the accounts to leave out with the worker when their agreement is measured (``FAMILY_R``).
    ``everyone``: that :func:`leave_one_out` when the caller has it already."""
    r_all = (everyone or leave_one_out(answers, worker, min_screens=min_screens)).r
    pairs: dict[Hashable, list[tuple[float, float, float]]] = defaultdict(list)
    for by_judge in answers.values():
        own = by_judge.get(worker)
        if not own:
            continue
        for judge, theirs in by_judge.items():
            if judge != worker and (sums := _pair_sums(own, theirs)) is not None:
                pairs[judge].append(sums)
    return {
        judge
        for judge, sums in pairs.items()
        if len(sums) >= min_screens
        and (r := _r(sums)) is not None
        and r >= r_at
        and (r_all is None or r - r_all >= gap)
    }


AGREEMENT_WINDOW = 15
"""Drift over agreement (issue 41): the fewest shared screens in each part of a split, the recent one
and the earlier one (:func:`agreement_drift_start`)."""
AGREEMENT_DRIFT_DROP = 0.3
"""How far the recent part's r must fall below the earlier part's: a change of behaviour."""
AGREEMENT_DRIFT_MIN_OTHERS = 3
"""Other workers a screen needs to count in drift over agreement. A worker's r against the mean of
m others shrinks as m falls (Spearman-Brown: by sqrt(m rho / (1 + (m - 1) rho)) against many, rho
the agreement of two workers): with rho 0.5, 71% of it at one other, 87% at three. A worker ahead of
the crowd has their latest screens judged by fewest, so at one other their recent agreement looked
lower than their earlier for no change of theirs: six careful workers of 60 in the benchmark's
ranking run of 2026-11-28 (database gec_bd3) ended held for drift; with three, none in the next run
(gec_bd4) and one in the run after (gec_bd5), where a random bot not caught yet was one of the three
(the product's periodic repair recounts such holds)."""


def agreement_drift_start(
    answers: Answers,
    worker: Hashable,
    order: Sequence[Hashable],
    line: float | None,
    *,
    window: int = AGREEMENT_WINDOW,
    min_others: int = AGREEMENT_DRIFT_MIN_OTHERS,
) -> int | None:
    """Drift over agreement (issue 41): where the worker stopped agreeing with the crowd, or None.

    The worker's shared screens (``order``: their screens in the order judged) are split in two, an
    earlier part and a recent one that runs to the latest screen, each of at least ``window``
    screens. A split fails when the recent part agrees under ``line`` (the campaign's :func:`fence`)
    and at least ``AGREEMENT_DRIFT_DROP`` less than the earlier part. Of the failing splits, the one
    with the largest drop weighted by sqrt(earlier x recent screens) (a two-sample statistic: a
    short lucky stretch does not outweigh a long one) is where the worker changed; the returned
    index in ``order`` is the first screen after the earlier part that on its own agrees under
    ``line``.

    Every split is tried, not only the latest ``window`` against all before it: a worker who stopped
    reading long ago has the screens since then in "all before it", which dilutes the earlier
    agreement until the drop no longer shows (the benchmark's drifter on ranking, 2026-11-28). The
    recent part always ends at the latest screen, so a worker whose last screens agree again is not
    drifting (None: no split fails, or ``line`` is None).

    Only screens with ``min_others`` other workers are split and weighed (``AGREEMENT_DRIFT_MIN_OTHERS``;
    a campaign with fewer judges per screen passes fewer): the mean of fewer others is noisier, so it
    agrees less with anyone, and a worker ahead of the crowd has their recent screens judged by
    fewest. Where the drift starts is looked for among every shared screen after the earlier part,
    those still waiting for judges too, so that a stretch judged ahead of the crowd is not left out."""
    if line is None:
        return None
    per_screen = _screen_sums(answers, worker)
    at = [
        k
        for k, screen in enumerate(order)
        if screen in per_screen and len(answers[screen]) - (worker in answers[screen]) >= min_others
    ]
    sums = [per_screen[order[k]] for k in at]
    prefix = [(0.0, 0.0, 0.0)]
    for xy, xx, yy in sums:
        last = prefix[-1]
        prefix.append((last[0] + xy, last[1] + xx, last[2] + yy))

    def r_of(lo: int, hi: int) -> float | None:
        (a, b, c), (x, y, z) = prefix[lo], prefix[hi]
        den = math.sqrt((y - b) * (z - c))
        return (x - a) / den if den else None

    end = len(sums)
    best, best_weight = None, 0.0
    for split in range(window, end - window + 1):
        recent, earlier = r_of(split, end), r_of(0, split)
        if recent is None or earlier is None or recent >= line or earlier - recent < AGREEMENT_DRIFT_DROP:
            continue
        weight = (earlier - recent) * math.sqrt(split * (end - split))
        if best is None or weight > best_weight:
            best, best_weight = split, weight
    if best is None:
        return None

    after = range(at[best - 1] + 1, len(order))
    return next(
        (k for k in after if order[k] in per_screen and (_r([per_screen[order[k]]]) or 0.0) < line), at[best]
    )


def fence(campaign: Sequence[float]) -> float | None:
    """The agreement under which a worker is far below ``campaign`` (None: too few figures)."""
    if len(campaign) < AGREEMENT_MIN_WORKERS:
        return None
    median = statistics.median(campaign)
    spread = 1.4826 * statistics.median(abs(x - median) for x in campaign)
    return median - max(AGREEMENT_SPREADS * spread, AGREEMENT_MIN_GAP)


VOUCH_SHARE = 0.5
"""A worker vouched for by the crowd agrees with the others at least this share as well as the
campaign's median worker does (:func:`vouches`)..."""
VOUCH_FLOOR = 0.25
"""...and at least this r, whatever the median: in a crowd of more random clickers than readers the
median is near 0 and half of it would vouch for half the clickers (random answers agree at r within
about 0.15 of 0 over 60 shared screens; the careful models at 0.38 or more, real MTurk workers at 0.33
or more)."""


def vouch_line(campaign: Sequence[float]) -> float | None:
    """The agreement at or above which the crowd vouches for a worker: ``VOUCH_SHARE`` of the median of
    ``campaign`` (every worker's r), and never under ``VOUCH_FLOOR`` (None: too few figures)."""
    if len(campaign) < AGREEMENT_MIN_WORKERS:
        return None
    return max(VOUCH_SHARE * statistics.median(campaign), VOUCH_FLOOR)


def vouches(r: float | None, campaign: Sequence[float]) -> bool:
    """The crowd vouches for a worker whose ``r`` is at least :func:`vouch_line` of ``campaign`` (this
    worker's figure included) and not :func:`far_below` it: their answers follow the others' as a
    reader's do, so a trap pass rate a little under the campaign's threshold is more likely a reader's
    bad luck or a different view of a good correction than a worker who does not read
    (``geceval.human.worker_checks.VOUCH_MARGIN``). Random answers agree at r about 0."""
    line = vouch_line(campaign)
    return r is not None and line is not None and r >= line and not far_below(r, campaign)


def far_below(r: float | None, campaign: Sequence[float]) -> bool:
    """``r`` is far below the campaign's workers' figures (``campaign``: every worker's r, this one's
    included): under :func:`fence`; fewer than ``AGREEMENT_MIN_WORKERS`` figures say nothing."""
    line = fence(campaign)
    return r is not None and line is not None and r < line


@dataclass(frozen=True)
class Twin:
    """Another worker whose answers match this one's beyond chance."""

    other: Hashable
    shared: int
    identical: int
    p: float
    """Binomial p-value of that many identical screens at the crowd's usual rate."""
    within: float = 0.0
    """0: ``identical`` counts screens answered the same; else screens alike within this tolerance
    (``SAME_SCORE_TOLERANCE`` points, or ``SAME_RANK_TOLERANCE`` things that differ)."""


def alike_rate(
    answers: AlikeAnswers, *, leave_out: Sequence[Hashable] = (), tolerance: float = 0.0, ranks: bool = False
) -> float:
    """The median pair's share of shared screens answered alike (pairs with ``SAME_MIN_SHARED``
    shared screens, none of ``leave_out``), floored at ``SAME_BASE_FLOOR``; ``tolerance`` in points
    (scores) or, with ``ranks``, in things that differ (``rank_gap``)."""
    gap = rank_gap if ranks else score_gap
    return _rates(_pair_counts(answers, set(leave_out), (tolerance,), gap), 1)[0]


Gap = Callable[[tuple, tuple, float | None], float]
"""How far apart two answers to one screen are. With a third argument, whether the gap is within it is
exact and the value an upper bound (a shortcut may skip what could only bring it lower)."""


def score_gap(a: tuple, b: tuple, within: float | None = None) -> float:
    """How far apart two answers to one screen are in slider points: the mean absolute difference
    over its candidates (both in one order); when the two order the candidates alike but for one
    pair, the mean difference of their values sorted, if smaller (a copy with two values swapped is
    as near as its values are: the benchmark's ring-swapped on PRWS, docs/hardening.md). With
    ``within``, the order of the candidates is read only when it could bring the two within it (a
    few screens of a campaign)."""
    plain = sum(map(abs, map(sub, a, b))) / len(a)  # type: ignore[arg-type]
    if within is not None and (plain <= within or abs(sum(a) - sum(b)) > within * len(a)):
        return plain  # within already, or too far by their totals alone for any order to bring within
    by_value = sum(map(abs, map(sub, sorted(a), sorted(b)))) / len(a)  # type: ignore[arg-type]
    if by_value >= plain or (within is not None and by_value > within):
        return plain
    return by_value if rank_gap(a, b) <= 1 else plain


def rank_gap(a: tuple, b: tuple, within: float | None = None) -> float:
    """How many things two answers to one screen differ in (both in one order): pairs of candidates
    ordered otherwise (a swap, a tie made or broken), and, where an answer is a rank with its edit
    labels (``(2, "gbn")``), edits labelled otherwise (labels of unlike length: too far to say).
    ``within`` is the ``Gap`` argument, not needed here: the count is always exact."""
    ra, rb = ([v[0] if isinstance(v, tuple) else v for v in x] for x in (a, b))
    gap: float = sum(
        ((ra[i] > ra[j]) - (ra[i] < ra[j])) != ((rb[i] > rb[j]) - (rb[i] < rb[j]))
        for i, j in combinations(range(len(ra)), 2)
    )
    for x, y in zip(a, b, strict=True):
        la, lb = (v[1] if isinstance(v, tuple) else "" for v in (x, y))
        gap += math.inf if len(la) != len(lb) else sum(p != q for p, q in zip(la, lb, strict=True))
    return gap


def _pair_counts(
    answers: AlikeAnswers, skip: set, tolerances: Sequence[float], gap: Gap = score_gap
) -> dict[tuple, list[int]]:
    """(a, b) -> [screens shared, screens alike at each of ``tolerances``] for every pair of judges not
    in ``skip``: one pass over the screens, however many tolerances."""
    counts: dict[tuple, list[int]] = {}
    for by_judge in answers.values():
        judges = sorted(
            (_keyed(j, a) for j, a in by_judge.items() if j not in skip), key=lambda k: repr(k[0])
        )
        for a, b in combinations(judges, 2):
            c = counts.setdefault((a[0], b[0]), [0] * (1 + len(tolerances)))
            c[0] += 1
            for i, alike in enumerate(_alike_at(a, b, tolerances, gap), 1):
                c[i] += alike
    return counts


_Keyed = tuple[Hashable, tuple, tuple]


def _keyed(judge: Hashable, answer: Mapping[Hashable, object]) -> _Keyed:
    """A judge's answer to a screen as (judge, its candidates in one order, their values), so that
    two answers compare as tuples."""
    keys = tuple(sorted(answer, key=repr))
    return judge, keys, tuple(answer[k] for k in keys)


def _alike_at(a: _Keyed, b: _Keyed, tolerances: Sequence[float], gap: Gap = score_gap) -> list[bool]:
    """Whether two keyed answers to a screen are alike, at each tolerance: every candidate answered
    the same, or (a tolerance) ``gap`` between them at most that. Identical is alike at any
    tolerance; an empty answer is alike none. ``gap`` is asked within the largest tolerance, exact
    there: the callers' tolerances are 0 (identical) and one more."""
    if not a[1] or a[1] != b[1]:
        return [False] * len(tolerances)
    if a[2] == b[2]:
        return [True] * len(tolerances)
    if not any(tolerances):
        return [False] * len(tolerances)
    apart = gap(a[2], b[2], max(tolerances))
    return [bool(t) and apart <= t for t in tolerances]


def _rates(counts: dict[tuple, list[int]], width: int) -> list[float]:
    """For each of the ``width`` tolerances of ``_pair_counts``, the median pair's share alike (pairs
    with ``SAME_MIN_SHARED`` shared screens), floored at ``SAME_BASE_FLOOR``."""
    enough = [c for c in counts.values() if c[0] >= SAME_MIN_SHARED]
    if not enough:
        return [SAME_BASE_FLOOR] * width
    return [max(SAME_BASE_FLOOR, statistics.median(c[i] / c[0] for c in enough)) for i in range(1, width + 1)]


def same_person(
    answers: AlikeAnswers,
    worker: Hashable,
    *,
    base_rate: float | None = None,
    scores: bool = False,
    ranks: bool = False,
) -> list[Twin]:
    """The workers whose answers on screens shared with ``worker`` are alike beyond chance, by the
    module's rule; ``base_rate``: the chance of a screen answered alike (default: ``alike_rate``
    without ``worker``; no twins while the crowd is too small to know it: ``SAME_MIN_PAIRS``).

    ``scores``: the answers are slider scores (0-100), where a copy with a little noise added is a
    copy too: a pair is also one person when their screens are alike within ``SAME_SCORE_TOLERANCE``
    (``SAME_NEAR_MIN_SHARED``, ``SAME_NEAR_MIN_SHARE``, the base rate read with the same tolerance).
    ``ranks``: the answers are ranks (with edit labels, on the edit-level protocol), and the same
    holds within ``SAME_RANK_TOLERANCE`` things that differ (``rank_gap``)."""
    if scores and ranks:
        raise ValueError("answers are scores or ranks, not both")
    rules = [(0.0, SAME_MIN_SHARED, SAME_RANK_MIN_SHARE if ranks else SAME_MIN_SHARE)]
    if scores:
        rules.append((SAME_SCORE_TOLERANCE, SAME_NEAR_MIN_SHARED, SAME_NEAR_MIN_SHARE))
    if ranks:
        rules.append((SAME_RANK_TOLERANCE, SAME_NEAR_MIN_SHARED, SAME_RANK_NEAR_MIN_SHARE))
    gap = rank_gap if ranks else score_gap
    tolerances = [t for t, _, _ in rules]
    if base_rate is None:
        crowd = _pair_counts(answers, {worker}, tolerances, gap)
        if sum(c[0] >= SAME_MIN_SHARED for c in crowd.values()) < SAME_MIN_PAIRS:
            return []  # too few pairs of others yet to say how alike the crowd usually answers
        rates = _rates(crowd, len(rules))
    else:
        rates = [base_rate] * len(rules)
    mine: dict[Hashable, list[int]] = {}
    for by_judge in answers.values():
        own = by_judge.get(worker)
        if own is None:
            continue
        me = _keyed(worker, own)
        for other, theirs in by_judge.items():
            if other == worker:
                continue
            c = mine.setdefault(other, [0] * (1 + len(rules)))
            c[0] += 1
            for i, alike in enumerate(_alike_at(me, _keyed(other, theirs), tolerances, gap), 1):
                c[i] += alike
    found: dict[Hashable, Twin] = {}
    for other, (shared, *alike) in mine.items():
        for (tolerance, min_shared, min_share), rate, same in zip(rules, rates, alike, strict=True):
            if shared < min_shared or same < min_share * shared:
                continue
            p = float(binomtest(same, shared, rate, alternative="greater").pvalue)
            if p < SAME_ALPHA and (other not in found or p < found[other].p):
                found[other] = Twin(other, shared, same, p, tolerance)
    return sorted(found.values(), key=lambda t: (t.p, repr(t.other)))
