"""Deprecated path: moved to :mod:`geceval.metrics.gleu.plus` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.gleu import plus as _moved

warnings.warn(
    "geceval.gleu moved to geceval.metrics.gleu.plus; import it from there", DeprecationWarning, stacklevel=2
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
