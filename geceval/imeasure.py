"""Deprecated path: moved to :mod:`geceval.metrics.imeasure.scorer` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.imeasure import metric as _metric
from geceval.metrics.imeasure import scorer as _moved

warnings.warn(
    "geceval.imeasure moved to geceval.metrics.imeasure.scorer; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new modules, private ones included, as the old import path gave them (the
    # command-line adapter now lives beside the metric object)
    if hasattr(_moved, name):
        return getattr(_moved, name)
    return getattr(_metric, name)
