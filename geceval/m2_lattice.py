"""Deprecated path: moved to :mod:`geceval.metrics.m2.lattice` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics.m2 import lattice as _moved

warnings.warn(
    "geceval.m2_lattice moved to geceval.metrics.m2.lattice; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
