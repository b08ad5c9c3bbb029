"""The house's shape (docs/architecture.md): layers that point one way, and no hidden imports.

The layer contracts themselves are import-linter's (``pyproject.toml``, run by ``make lint`` and
``make test``); these tests keep the contracts honest and catch what the linter cannot see.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("geceval", "annotate", "ranking", "crowd", "config")


def _product_files() -> list[Path]:
    return sorted(
        p
        for package in PROJECT
        for p in (ROOT / package).rglob("*.py")
        if "migrations" not in p.parts and "__pycache__" not in p.parts
    )


def _explained(lines: list[str], lineno: int) -> bool:
    """A comment on the import line, or on the comment/import block right above it."""
    i = lineno - 1
    if "#" in lines[i]:
        return True
    i -= 1
    while i >= 0:
        stripped = lines[i].strip()
        if stripped.startswith("#"):
            return True
        if not stripped.startswith(("from ", "import ")):
            return False
        i -= 1
    return False


def function_local_project_imports(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []
    for fn in ast.walk(ast.parse(text)):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["."]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            project = any(n == "." or n.split(".")[0] in PROJECT for n in names)
            if project and not _explained(lines, node.lineno):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_no_project_module_is_imported_inside_a_function_without_a_comment_saying_why():
    found = [hit for path in _product_files() for hit in function_local_project_imports(path)]
    assert found == []


def test_the_check_finds_an_unexplained_local_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    from ranking.models import Campaign\n\n"
        "def g():\n    # lazy: spaCy takes two seconds to load\n    from geceval import errant_scorer\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert function_local_project_imports(probe) == ["probe.py:2: from ranking.models import Campaign"]
    finally:
        ROOT = saved


def test_the_layer_contracts_cover_every_app_and_allow_no_exceptions():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = config["contracts"]
    assert all("ignore_imports" not in c and "allow_indirect_imports" not in c for c in contracts)
    layers = next(c for c in contracts if c["type"] == "layers")
    assert layers["layers"] == ["config", "crowd", "ranking", "annotate", "geceval"]
    assert set(config["root_packages"]) == set(PROJECT)
    core = next(c for c in contracts if c.get("source_modules") == ["geceval"])
    assert {"django", "annotate", "ranking", "crowd", "config"} <= set(core["forbidden_modules"])
    # issue 37: the core's sub-packages in layers of their own
    inner = next(c for c in contracts if c.get("containers") == ["geceval"])
    assert inner["layers"] == ["cli", "papers", "metaeval | traps", "metrics", "human", "formats"]


@pytest.mark.slow
def test_import_linter_finds_an_upward_import_added_to_a_copy_of_the_tree(tmp_path):
    """The contract is not vacuous: the same configuration breaks on a copy with one upward import."""
    import shutil

    for package in PROJECT:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    lint = [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"]
    kept = subprocess.run(
        lint, cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)}
    )
    assert kept.returncode == 0, kept.stdout
    with (tmp_path / "annotate" / "roles.py").open("a") as f:
        f.write("\n\ndef _probe():\n    from ranking.models import Campaign  # noqa\n\n    return Campaign\n")
    with (tmp_path / "geceval" / "formats" / "text.py").open("a") as f:
        f.write("\n\ndef _probe():\n    from geceval.human import prws  # noqa\n\n    return prws\n")
    broken = subprocess.run(
        lint, cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(tmp_path)}
    )
    assert broken.returncode == 1
    assert "annotate.roles -> ranking.models" in broken.stdout
    assert "geceval.formats.text -> geceval.human.prws" in broken.stdout
