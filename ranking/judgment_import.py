"""Where ranking finds the importer of past crowd judgments (``reproduce`` needs one).

The importer lives in ``crowd.importing``, a higher layer; it registers itself here from
``CrowdConfig.ready()``, so ranking never imports crowd.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Importer = Callable[..., Any]
_importer: Importer | None = None


def judgments_importer_register(importer: Importer) -> None:
    global _importer
    _importer = importer


def judgments_importer() -> Importer:
    """``judgments_import(*, project, name, fmt, path_or_bytes, exclude_judges=...)`` of the crowd layer."""
    if _importer is None:
        raise RuntimeError("no judgments importer is registered: is the 'crowd' app in INSTALLED_APPS?")
    return _importer
