"""Deprecated path: moved to :mod:`geceval.metrics.gleu.sampling` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.gleu import sampling as _moved

warnings.warn(
    "geceval.gleu_sampling moved to geceval.metrics.gleu.sampling; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
