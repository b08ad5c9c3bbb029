"""Gold screens placed and scored like hidden traps (issue 41).

The researcher answers a few ordinary screens (``ranking.quality.gold``: ``gold_screen_mark``,
``gold_screens_import``); each HIT then gets ``campaign.gold_rate`` copies per judged screen of
screens answered so, drawn from **other** HITs (no screen of the copy's HIT shows its sentence, so
comparing screens inside a HIT finds nothing), with the candidates shuffled anew and placed anywhere
in the HIT as hidden traps are. A copy is a ``Control`` of kind ``gold``, so it never counts in
results and no worker's page or API can tell it from a judged screen: same texts, same number of
candidates, the same fields. Its verdict waits for a screen of its own HIT (``original``), as a
hidden trap's does (issue 35), and is stored like a trap's (``ScreenJudgment.trap_passed``): the
worker passes when the share of candidate pairs they order as the researcher did reaches
``campaign.gold_threshold`` (the qualification test's rule, ``ranking.quality.gold``). So gold
verdicts count in the pass rate, the drift window and exclusion exactly as trap verdicts do.

Copies are placed while the campaign is a draft, anew whenever a gold screen is marked or removed.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping
from itertools import combinations

from django.db.models import Max

from ranking.models import (
    Campaign,
    Candidate,
    Control,
    ControlKind,
    GoldScreen,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
)
from ranking.protocols import protocol_get


def gold_pair_share(protocol: str, expected: Mapping, given: Mapping) -> float | None:
    """Share of candidate pairs (keys of ``expected``) that ``given`` orders as ``expected`` does
    (better, equal, worse: the protocol's ``gold_relation``); None: fewer than two candidates."""
    relation = protocol_get(protocol).gold_relation
    keys = sorted(expected)
    pairs = list(combinations(keys, 2))
    if not pairs:
        return None
    agree = sum(
        a in given and b in given and relation(given[a], given[b]) == relation(expected[a], expected[b])
        for a, b in pairs
    )
    return agree / len(pairs)


def gold_passed(campaign: Campaign, expected: Mapping, given: Mapping) -> bool | None:
    """The verdict of one gold copy: the pair share at the campaign's gold pass mark or above."""
    share = gold_pair_share(campaign.protocol, expected, given)
    return None if share is None else share >= campaign.gold_threshold


def gold_verdicts(campaign: Campaign, worker_id: int, copies: list[int]) -> None:
    """Store the verdict of each gold copy (its screen id) the worker has now judged with its
    original: on the copy's judgment, as a trap's. Two queries and one update per copy."""
    field = protocol_get(campaign.protocol).answer_field
    expected = dict(GoldScreen.objects.filter(screen_id__in=copies).values_list("screen_id", "expected"))
    given: dict[int, dict[int, int]] = defaultdict(dict)
    for screen_id, candidate_id, value in Rating.objects.filter(
        judgment__judge_id=worker_id, judgment__screen_id__in=list(expected)
    ).values_list("judgment__screen_id", "candidate_id", field):
        given[screen_id][candidate_id] = value
    for screen_id, wanted in expected.items():
        passed = gold_passed(campaign, {int(k): v for k, v in wanted.items()}, given[screen_id])
        ScreenJudgment.objects.filter(screen_id=screen_id, judge_id=worker_id).update(trap_passed=passed)


def gold_copies_place(campaign: Campaign) -> int:
    """Remove the campaign's gold copies and place them anew from its gold screens: in each HIT
    (qualification tests aside), ``gold_rate`` copies per judged screen, rounded as traps are (up
    with probability the fraction), of gold screens of other HITs whose sentence the HIT does not
    show; then the HIT's screens in a new secret order. Returns the copies placed."""
    Screen.objects.filter(campaign=campaign, control__kind=ControlKind.GOLD).delete()
    golds = list(
        GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True)
        .select_related("screen__hit")
        .order_by("screen_id")
    )
    if not golds or campaign.gold_rate <= 0:
        return 0
    screens = list(
        Screen.objects.filter(campaign=campaign, hit__qualification=False)
        .select_related("control")
        .order_by("hit_id", "hit_position")
    )
    by_hit: dict[int, list[Screen]] = defaultdict(list)
    for s in screens:
        by_hit[s.hit_id].append(s)
    next_index = {
        sentence: top + 1
        for sentence, top in Screen.objects.filter(campaign=campaign)
        .values_list("sentence_id")
        .annotate(m=Max("index"))
        .values_list("sentence_id", "m")
    }
    placed = 0
    uses: dict[int, int] = defaultdict(int)  # copies of each gold screen so far: the least used go first
    for hit in Hit.objects.filter(campaign=campaign, qualification=False).order_by("index"):
        members = by_hit.get(hit.pk, [])
        judged = [s for s in members if not hasattr(s, "control")]
        if not judged:
            continue
        rng = random.Random(f"{campaign.trap_secret}:gold:{hit.index}")
        wanted = int(campaign.gold_rate * len(judged))
        wanted += rng.random() < campaign.gold_rate * len(judged) - wanted
        shown = {s.sentence_id for s in members}
        # Gold of the HIT's own domain only (a HIT of one domain shows no other, as hidden traps copy
        # from a HIT of the same domain); the least-copied first, so that no gold screen comes back in
        # far more HITs than the others (a screen seen again and again is a tell).
        pool = [
            g
            for g in golds
            if g.screen.hit_id != hit.pk
            and g.screen.sentence_id not in shown
            and g.screen.hit.domain == hit.domain
        ]
        rng.shuffle(pool)
        pool.sort(key=lambda g: uses[g.pk])
        copies = []
        for gold in pool[:wanted]:
            uses[gold.pk] += 1
            copies.append(_copy(campaign, gold, hit, next_index, rng))
            Control.objects.create(
                screen=copies[-1], original=judged[rng.randrange(len(judged))], kind=ControlKind.GOLD
            )
        placed += len(copies)
        if copies:
            order = members + copies
            rng.shuffle(order)
            _reposition(order)
    return placed


def _copy(campaign: Campaign, gold: GoldScreen, hit: Hit, next_index: dict, rng: random.Random) -> Screen:
    """An exact copy of the gold screen in ``hit``, its candidates in a new order, with its expected
    answers carried over by text."""
    original = gold.screen
    index = next_index.get(original.sentence_id, 0)
    next_index[original.sentence_id] = index + 1
    top = Screen.objects.filter(hit=hit).aggregate(m=Max("hit_position"))["m"] or 0
    copy = Screen.objects.create(
        campaign=campaign, sentence_id=original.sentence_id, index=index, hit=hit, hit_position=top + 1
    )
    candidates = list(original.candidates.all())
    positions = list(range(len(candidates)))
    rng.shuffle(positions)
    expected = {}
    for candidate, position in zip(candidates, positions, strict=True):
        new = Candidate.objects.create(screen=copy, position=position, text=candidate.text)
        new.outputs.set(candidate.outputs.all())
        expected[str(new.pk)] = gold.expected[str(candidate.pk)]
    GoldScreen.objects.create(screen=copy, expected=expected, marked=gold)
    return copy


def _reposition(order: list[Screen]) -> None:
    """The HIT's screens at positions 0.. in ``order`` (out of the way first: positions are unique)."""
    shift = max(s.hit_position for s in order) + len(order) + 1
    for at, screen in enumerate(order):
        Screen.objects.filter(pk=screen.pk).update(hit_position=shift + at)
    for at, screen in enumerate(order):
        Screen.objects.filter(pk=screen.pk).update(hit_position=at)
