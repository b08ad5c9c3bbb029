"""Deprecated path: moved to :mod:`geceval.metrics.imeasure.align` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.imeasure import align as _moved

warnings.warn(
    "geceval.imeasure_align moved to geceval.metrics.imeasure.align; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
