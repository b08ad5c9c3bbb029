"""Deprecated (one release): the kernel is :mod:`geceval.human.trueskill_kernel`."""

import warnings

from geceval.human.trueskill_kernel import games, warm_up

warnings.warn(
    "geceval.ranking_kernel is deprecated: import from geceval.human.trueskill_kernel",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["games", "warm_up"]
