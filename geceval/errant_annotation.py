"""Deprecated path: moved to :mod:`geceval.metrics.errant.annotation` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.errant import annotation as _moved

warnings.warn(
    "geceval.errant_annotation moved to geceval.metrics.errant.annotation; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
