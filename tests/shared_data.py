"""Where the public GEC data of ../shared/data lives, and the skip when it does not.

The data is a research fixture beside the repository, never part of the
product. ``GEC_SHARED_DIR`` points elsewhere when the checkout is laid out
differently.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data"

requires_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason=f"public GEC data not found at {SHARED} (../shared is absent)"
)


def shared_path(*parts: str, required_in_ci: bool = False) -> Path:
    """A path under ../shared/data; skips the calling test when it is missing.

    ``required_in_ci``: with CI=true the missing data is a failure, not a skip, for a test CI must
    not silently leave out (issue 20's first-week walk)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        reason = f"public GEC data not found: {path} (../shared is absent)"
        if required_in_ci and os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"CI=true but {reason}")
        pytest.skip(reason)
    return path
