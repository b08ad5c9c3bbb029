"""Deprecated (one release): ``trueskill_runs`` is :func:`geceval.human.trueskill.trueskill_runs`, on
the numba kernel only (the numpy engine, ``ENGINES`` and ``rate_pairs`` are gone)."""

import warnings

from geceval.human.trueskill import KERNEL_BATCH, KERNEL_BLOCK, load_kernel, trueskill_runs

warnings.warn(
    "geceval.ranking_lockstep is deprecated: import from geceval.human.trueskill",
    DeprecationWarning,
    stacklevel=2,
)

KERNEL_AVAILABLE = True
"""numba is an ordinary requirement now: the kernel is always there."""

__all__ = ["KERNEL_AVAILABLE", "KERNEL_BATCH", "KERNEL_BLOCK", "load_kernel", "trueskill_runs"]
