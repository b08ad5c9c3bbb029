"""GLEU+ n-gram statistics per (sentence, reference), in plain Python (:func:`pair_statistics`).

Only set operations that run in C touch every n-gram: per sentence, each
order's hypothesis n-grams go into one set; per reference, that set is
intersected with the reference's n-grams as ``zip`` yields them, so a
reference's n-grams are hashed once and never stored. Hypothesis n-grams
that occur more than once (rare) are counted apart with their clipped counts.
A reference identical to the hypothesis needs no counting at all. On JFLEG
test this is as fast as the numpy version it replaced (0.043 CPU-s) and needs
no numpy, whose import alone cost half of a ``score gleu`` process (issue 22).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

Unit = Literal["word", "char"]

_ASCII_SPACE = re.compile(r"[ \t\n\r\x0b\x0c]+")


def tokenize(line: str) -> list[str]:
    """Python 2 ``line.split()`` on the UTF-8 bytes: split at ASCII whitespace only."""
    if line.isascii():
        return line.split()
    return [t for t in _ASCII_SPACE.split(line) if t]


def units_of(line: str, unit: Unit) -> Sequence[Hashable]:
    tokens = tokenize(line)
    if unit == "word":
        return tokens
    # charGLEU: the characters of the tokenized line, single spaces included.
    return " ".join(tokens)


def _grams(shifted: list[Sequence[Hashable]], n: int) -> Iterable[Hashable]:
    """The n-grams of ``shifted[0]``: its units for n = 1, else tuples (``shifted[i]`` = units[i:])."""
    return shifted[0] if n == 1 else zip(*shifted[:n])


def _count(units: Sequence[Hashable], n: int, gram: Hashable) -> int:
    return sum(1 for g in _grams([units[i:] for i in range(n)], n) if g == gram)


class _Order:
    """One order n of one hypothesis: what every reference of its sentence is checked against.

    ``grams``: the distinct n-grams; ``repeated``: those occurring more than once, with their
    counts (None when there are none); ``penalised``: the single ones also found in the source
    (each costs 1 when the reference lacks it; ``grams`` itself when that is all of them);
    ``repeated_penalty``: each repeated n-gram's count clipped by its source count.
    """

    __slots__ = ("den", "grams", "n", "penalised", "repeated", "repeated_penalty")

    def __init__(self, n: int, shifted: list[Sequence[Hashable]], source: Sequence[Hashable] | None):
        grams = list(_grams(shifted, n))
        self.n = n
        self.den = len(grams)
        self.grams = set(grams)
        self.repeated: dict[Hashable, int] | None = None
        if len(self.grams) != len(grams):
            self.repeated = {g: c for g, c in Counter(grams).items() if c > 1}
        if source is None:  # the source is the hypothesis itself
            single = self.grams if self.repeated is None else self.grams.difference(self.repeated)
            self.penalised = single
            self.repeated_penalty = self.repeated or {}
            return
        s_shifted = [source[i:] for i in range(n)]
        self.penalised = self.grams.intersection(_grams(s_shifted, n))
        self.repeated_penalty = {}
        if self.repeated is not None:
            self.penalised.difference_update(self.repeated)
            for g, c in self.repeated.items():
                if clipped := min(c, _count(source, n, g)):
                    self.repeated_penalty[g] = clipped

    def numerator(self, r_shifted: list[Sequence[Hashable]], ref: Sequence[Hashable]) -> int:
        """``max(0, |h ∧ r| - |h ∧ S_diff|)`` for this order against one reference."""
        found = self.grams.intersection(_grams(r_shifted, self.n))
        gain = len(found)
        penalised = self.penalised
        if penalised is self.grams:
            penalty = len(penalised) - gain
        else:
            penalty = len(penalised) - len(penalised.intersection(found)) if found else len(penalised)
        if self.repeated is not None:
            for g, c in self.repeated.items():
                if g in found:
                    gain += min(c, _count(ref, self.n, g)) - 1
                else:
                    penalty += self.repeated_penalty.get(g, 0)
        return gain - penalty if gain > penalty else 0


def pair_statistics(
    source: Sequence[str],
    references: Sequence[Sequence[str]],
    hypothesis: Sequence[str],
    order: int,
    unit: Unit,
) -> list[list[list[int]]]:
    """``out[i][r] = [|h|, |r|, num_1, den_1, ..., num_order, den_order]`` (see ``gleu_plus_stats``).

    The inputs are already checked to be aligned.
    """
    out = []
    for i, h_text in enumerate(hypothesis):
        h_units = units_of(h_text, unit)
        s_text = source[i]
        s_units = None if s_text == h_text else units_of(s_text, unit)
        h_shifted = [h_units[j:] for j in range(order)]
        orders = [_Order(n, h_shifted, s_units) for n in range(1, order + 1)]
        h_len = len(h_units)
        itself = [h_len, h_len]
        for o in orders:
            itself += (o.den, o.den)
        rows = []
        done: dict[str, list[int]] = {h_text: itself}
        for ref in references:
            r_text = ref[i]
            row = done.get(r_text)
            if row is None:
                r_units = units_of(r_text, unit)
                r_shifted = [r_units[j:] for j in range(order)]
                row = [h_len, len(r_units)]
                for o in orders:
                    row += (o.numerator(r_shifted, r_units), o.den)
                done[r_text] = row
            rows.append(row)
        out.append(rows)
    return out
