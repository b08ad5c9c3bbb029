"""How many distinct outputs a ranking screen shows when its systems are drawn at random.

A ranking screen (Napoles et al. 2015) draws ``k`` of the ``n`` chosen systems without
replacement and shows their outputs with identical texts collapsed. With few systems, or systems
that often write the same correction, many screens show fewer than ``k`` distinct outputs. For one
sentence whose systems fall into groups of identical output (sizes ``g_1 .. g_m``), the number of
distinct outputs on a screen is the number of groups the draw touches; its exact distribution
comes from counting the draws group by group (a small dynamic programme, no enumeration).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import comb


def distinct_counts(group_sizes: Sequence[int], k: int) -> dict[int, float]:
    """P(the draw of ``min(k, n)`` systems shows d distinct outputs), for each d with P > 0."""
    n = sum(group_sizes)
    k = min(k, n)
    if k <= 0:
        return {}
    # ways[(taken, distinct)] = number of ways to draw ``taken`` systems from the groups seen so far
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for size in group_sizes:
        after: dict[tuple[int, int], int] = {}
        for (taken, distinct), count in ways.items():
            for j in range(min(size, k - taken) + 1):
                key = (taken + j, distinct + (1 if j else 0))
                after[key] = after.get(key, 0) + count * comb(size, j)
        ways = after
    total = comb(n, k)
    return {d: count / total for (taken, d), count in sorted(ways.items()) if taken == k and count}


def screen_distribution(sentences: Iterable[Sequence[int]], k: int) -> dict[int, float]:
    """The expected share of screens with d distinct outputs, over sentences (each given as its
    group sizes) drawn equally often. Empty when no sentence has an output."""
    totals: dict[int, float] = {}
    count = 0
    for sizes in sentences:
        if not sizes:
            continue
        count += 1
        for d, p in distinct_counts(sizes, k).items():
            totals[d] = totals.get(d, 0.0) + p
    return {d: totals[d] / count for d in sorted(totals)} if count else {}


def share_at_least(distribution: dict[int, float], minimum: int) -> float:
    return sum(p for d, p in distribution.items() if d >= minimum)
