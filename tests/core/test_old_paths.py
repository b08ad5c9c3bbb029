"""Issue 37: the core's modules moved into sub-packages; each old import path still works for one
release, with a DeprecationWarning, and nothing in the repository still uses one."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from geceval import _old_paths

ROOT = Path(__file__).resolve().parents[2]

NOT_YET_MOVED: frozenset[str] = frozenset()
"""Files allowed an old path (none: every branch has moved)."""


@pytest.mark.parametrize("old", sorted(_old_paths.MOVED))
def test_each_old_module_path_imports_with_a_deprecation_warning(old, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=rf"^{old} is deprecated \(issue 37\): import geceval\."):
        module = importlib.import_module(old)
    homes = _old_paths.SPLIT.get(old, (_old_paths.MOVED[old],))
    if old in _old_paths.SPLIT or old in _old_paths.PACKAGES:
        # every name of the new homes, the private ones the old module's callers used included
        for home in homes:
            new = importlib.import_module(home)
            names = [k for k in vars(new) if not k.startswith("__")]
            assert all(getattr(module, k) is getattr(new, k) for k in names)
    else:
        assert module is importlib.import_module(homes[0])


def test_old_names_of_modules_that_became_packages_resolve_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"geceval\.metaeval\.hybrid_systems is deprecated"):
        from geceval.metaeval import hybrid_systems
    with pytest.warns(DeprecationWarning, match=r"geceval\.traps\.make_trap is deprecated"):
        from geceval.traps import make_trap
    from geceval.metaeval.correlation import hybrid_systems as new_hybrids
    from geceval.traps.hidden import make_trap as new_make_trap

    assert hybrid_systems is new_hybrids and make_trap is new_make_trap
    with pytest.raises(ImportError):
        from geceval.metaeval import no_such_name  # noqa: F401


def test_old_package_paths_keep_their_submodules(monkeypatch):
    for name in ("geceval.stats_cli", "geceval.stats_cli.prws"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.warns(DeprecationWarning):
        from geceval.stats_cli import fmt, prws
    from geceval.cli import prws as new_prws
    from geceval.cli.output import fmt as new_fmt

    assert (fmt, prws) == (new_fmt, new_prws)


def test_a_patch_through_an_old_path_patches_the_moved_module(monkeypatch):
    from unittest import mock

    from geceval.traps import inserter

    monkeypatch.delitem(sys.modules, "geceval.insert_errors", raising=False)
    with pytest.warns(DeprecationWarning), mock.patch("geceval.insert_errors.ERROR_TYPES", ("probe",)):
        assert inserter.ERROR_TYPES == ("probe",)


def _old_path_uses(path: Path) -> list[str]:
    """Imports of a retired path (and patch strings naming one) in one Python file."""
    old = set(_old_paths.MOVED)
    leaves = {name.removeprefix("geceval.") for name in _old_paths.MOVED if name.count(".") == 1}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in old or (node.module == "geceval" and leaves & {a.name for a in node.names}):
                found.append(f"{node.lineno}: from {node.module} import ...")
            if node.module in _old_paths.RENAMED_IN_PACKAGE:
                home = importlib.import_module(_old_paths.RENAMED_IN_PACKAGE[node.module])
                if any(hasattr(home, a.name) for a in node.names):
                    found.append(f"{node.lineno}: from {node.module} import (an old name)")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name in old]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and any(node.value == o or node.value.startswith(o + ".") for o in _old_paths.MOVED)
        ):
            found.append(f"{node.lineno}: {node.value!r}")
    return found


def test_nothing_in_the_repository_imports_a_retired_path():
    files = [
        p
        for top in ("geceval", "annotate", "ranking", "crowd", "config", "bench", "tests")
        for p in (ROOT / top).rglob("*.py")
        if "__pycache__" not in p.parts and "py2" not in p.parts and "migrations" not in p.parts
    ]
    # these test the old paths themselves (the scorers' and the TrueSkill engine's, issue 37)
    testing_old = {ROOT / "tests" / "core" / n for n in ("test_metric_api.py", "test_trueskill_kernel.py")}
    skip = {Path(__file__).resolve(), ROOT / "geceval" / "_old_paths.py", *testing_old}
    uses = {
        str(p.relative_to(ROOT)): hits
        for p in files
        if p not in skip and str(p.relative_to(ROOT)) not in NOT_YET_MOVED and (hits := _old_path_uses(p))
    }
    assert uses == {}


def test_the_check_finds_an_old_import_and_an_old_patch_string(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from geceval import agreement\nfrom geceval.prws import system_means\n"
        "from geceval.metaeval import hybrid_systems\nfrom geceval.metaeval import correlation\n"
        "PATCH = 'geceval.judgments.read_jsonl'\n"
    )
    assert _old_path_uses(probe) == [
        "1: from geceval import ...",
        "2: from geceval.prws import ...",
        "3: from geceval.metaeval import (an old name)",
        "5: 'geceval.judgments.read_jsonl'",
    ]
