"""Answers made near-identical on purpose, for the one-person check's tests (issue 41)."""

from __future__ import annotations

from itertools import combinations


def one_pair_changed(ranks: dict) -> dict:
    """``ranks`` with the order of one pair of candidates changed and no other (two swapped with no
    other candidate ranked between or level, or a tie of two broken: ranks need not be whole numbers
    here); as they were when no pair can."""
    ranks = {c: float(r) for c, r in ranks.items()}
    for a, b in combinations(sorted(ranks, key=repr), 2):
        low, high = sorted((ranks[a], ranks[b]))
        if not any(low <= r <= high for c, r in ranks.items() if c not in (a, b)):
            if low < high:
                ranks[a], ranks[b] = ranks[b], ranks[a]
            else:
                ranks[b] += 0.5
            break
    return ranks
