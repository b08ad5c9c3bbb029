"""STYLE: a module past ~500 lines is split along its own seams (into a package only when needed);
a function past 80 lines is split into steps you can read (issue 15)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PRODUCT = ("geceval", "annotate", "ranking", "crowd", "config")
MAX_LINES = 500
MAX_FUNCTION_LINES = 80


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


def long_functions(limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """``path:name`` -> lines, for every product function (methods and nested ones too) over ``limit``."""
    out = {}
    for path in product_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    out[f"{path.relative_to(REPO)}:{node.name}"] = lines
    return out


def test_no_product_function_is_over_80_lines():
    # the walk sees methods (ArcsNp.__init__ was 104 lines) and counts decorators out, docstrings in
    assert "geceval/ranking_lockstep.py:trueskill_runs" in long_functions(limit=20)
    too_long = long_functions()
    assert too_long == {}
