"""Deprecated path: moved to :mod:`geceval.metrics.errant.scorer` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.errant import scorer as _moved

warnings.warn(
    "geceval.errant_scorer moved to geceval.metrics.errant.scorer; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
