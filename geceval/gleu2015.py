"""Deprecated path: moved to :mod:`geceval.metrics.gleu.gleu2015` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.gleu import gleu2015 as _moved

warnings.warn(
    "geceval.gleu2015 moved to geceval.metrics.gleu.gleu2015; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
