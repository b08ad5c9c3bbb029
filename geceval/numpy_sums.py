"""numpy's float64 ``mean`` and ``std`` of a list, bit for bit, without importing numpy.

Published figures (GLEU+'s std and interval) were printed by numpy, whose
float sums are pairwise (``pairwise_sum`` in numpy's ``loops_utils.h.src``):
under 8 values a plain loop from -0.0; up to 128 values eight interleaved
accumulators combined as ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``, then the
remainder; above that the two halves (split at a multiple of 8) recursively.
The reduction adds the result to its identity 0.0. ``math.fsum`` or Python's
``sum`` (compensated since 3.12) would give other last digits. A scorer that
only needs a mean and a std avoids numpy's import, which costs more CPU than
scoring GLEU+ on a test set (issue 22). tests/core/test_numpy_sums.py checks
equality with numpy on random data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import reduce
from operator import add

_BLOCK = 128


def _pairwise(a: Sequence[float], lo: int, n: int) -> float:
    if n < 8:
        return reduce(add, a[lo : lo + n], -0.0)
    if n <= _BLOCK:
        end = lo + n - n % 8
        r = [reduce(add, a[lo + j + 8 : end : 8], a[lo + j]) for j in range(8)]
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        return reduce(add, a[end : lo + n], res)
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, half) + _pairwise(a, lo + half, n - half)


def np_sum(values: Sequence[float]) -> float:
    """``float(numpy.sum(values))`` for a list of floats."""
    return 0.0 + _pairwise(values, 0, len(values))


def np_mean(values: Sequence[float]) -> float:
    """``float(numpy.mean(values))`` (nan for no values, without numpy's warning)."""
    if not values:
        return math.nan
    return np_sum(values) / len(values)


def np_std(values: Sequence[float]) -> float:
    """``float(numpy.std(values))``: the population standard deviation, as numpy computes it."""
    if not values:
        return math.nan
    mean = np_mean(values)
    deviations = [x - mean for x in values]
    return math.sqrt(np_sum([d * d for d in deviations]) / len(values))
