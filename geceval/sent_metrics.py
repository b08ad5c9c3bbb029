"""Deprecated path: moved to :mod:`geceval.metrics.sentence_averaged` (issue 37); this re-export goes after one release."""

import warnings

from geceval.metrics import sentence_averaged as _moved

warnings.warn(
    "geceval.sent_metrics moved to geceval.metrics.sentence_averaged; import it from there",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> object:
    # every name of the new module, private ones included, as the old import path gave them
    return getattr(_moved, name)
