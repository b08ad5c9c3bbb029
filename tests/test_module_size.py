"""STYLE: a module past ~500 lines is split along its own seams (into a package only when needed)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PRODUCT = ("geceval", "annotate", "ranking", "crowd", "config")
MAX_LINES = 500


def product_modules() -> list[Path]:
    return sorted(
        path
        for top in PRODUCT
        for path in (REPO / top).rglob("*.py")
        if "migrations" not in path.relative_to(REPO).parts
    )


def test_no_product_module_is_over_500_lines():
    modules = product_modules()
    # the walk sees every app, sub-packages included
    assert {"geceval/m2.py", "ranking/analysis/compute.py", "config/settings.py"} <= {
        str(p.relative_to(REPO)) for p in modules
    }
    too_long = {
        str(p.relative_to(REPO)): n
        for p in modules
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert too_long == {}
