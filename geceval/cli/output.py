"""What the command modules print: strict JSON (`print_json`) and numbers in tables (`fmt`)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any


def clean(value: Any) -> Any:
    """NaN/inf -> None, recursively, so ``--json`` output is strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def print_json(data: Any) -> None:
    json.dump(clean(data), sys.stdout, indent=2)
    sys.stdout.write("\n")


def fmt(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}f}"
