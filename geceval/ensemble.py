"""Deprecated path: moved to :mod:`geceval.metrics.ensemble.model` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.ensemble import model as _moved

warnings.warn(
    "geceval.ensemble moved to geceval.metrics.ensemble.model; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
