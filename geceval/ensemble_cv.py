"""Deprecated path: moved to :mod:`geceval.metrics.ensemble.cross_validation` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.ensemble import cross_validation as _moved

warnings.warn(
    "geceval.ensemble_cv moved to geceval.metrics.ensemble.cross_validation; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
