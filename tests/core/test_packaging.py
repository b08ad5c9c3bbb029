"""``geceval`` installs on its own: a wheel from pyproject.toml, a ``geceval`` command, no Django."""

from __future__ import annotations

import ast
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import geceval

REPO = Path(__file__).resolve().parents[2]
FIX = Path(__file__).resolve().parent / "fixtures"

GLEU_ARGS = ["score", "gleu", "--source", str(FIX / "gleu" / "src.txt")]
GLEU_ARGS += ["--refs", str(FIX / "gleu" / "ref0.txt"), str(FIX / "gleu" / "ref1.txt")]
GLEU_ARGS += ["--hyp", str(FIX / "gleu" / "hyp.txt")]
RANK_EW_ARGS = ["rank", str(FIX / "judgments" / "small.xml"), "--runs", "20", "--method", "ew"]
RANK_TS_ARGS = ["rank", str(FIX / "judgments" / "small.csv"), "--format", "wmt-csv", "--runs", "5", "--json"]


def _in_repo(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def all_geceval_modules() -> list[str]:
    names = ["geceval"]
    for info in pkgutil.walk_packages(geceval.__path__, prefix="geceval."):
        names.append(info.name)
    return sorted(names)


def test_every_geceval_module_imports_without_django():
    modules = all_geceval_modules()
    # the walk must see the whole package, sub-packages included
    assert {"geceval.cli", "geceval.formats.m2", "geceval.cli.prws", "geceval.__main__"} <= set(modules)
    # __main__ runs the command line on import; everything else is imported for real
    importable = [m for m in modules if m != "geceval.__main__"]
    code = (
        "import importlib, sys\n"
        f"for name in {importable!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(' '.join(loaded))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def _function_local_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                found.append(child)
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(tree, False)
    return found


def test_geceval_imports_its_modules_at_top_level_unless_a_comment_says_why_not():
    unexplained = []
    for path in sorted((REPO / "geceval").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in _function_local_imports(ast.parse(text)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            project = (isinstance(node, ast.ImportFrom) and node.level > 0) or any(
                n == "geceval" or n.startswith("geceval.") for n in names
            )
            around = lines[node.lineno - 2 : node.lineno]
            if project and not any("# lazy:" in line for line in around):
                unexplained.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert unexplained == []


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_the_geceval_command_matches_the_repo(tmp_path):
    # Build from a copy: setuptools builds in the source tree, and build/ or *.egg-info must
    # not appear in the repository (nor collide with another run of this test).
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(REPO / "pyproject.toml", src / "pyproject.toml")
    shutil.copytree(REPO / "geceval", src / "geceval", ignore=shutil.ignore_patterns("__pycache__"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    # pip's configured index (and cache) supply the dependencies; nothing of the dev venv is used.
    pip = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(src)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr

    # only the core is installed: no Django, no web apps, no optional extras; numba is an ordinary
    # requirement since issue 37 (one TrueSkill engine), so it is there
    probe = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            "import importlib.util as u; "
            "print(*[n for n in ('django', 'annotate', 'ranking', 'crowd', 'config', 'sklearn', 'spacy', 'numba') "
            "if u.find_spec(n)])",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "numba"
    location = subprocess.run(
        [str(bin_dir / "python"), "-c", "import geceval; print(geceval.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert Path(location.stdout.strip()).is_relative_to(env_dir)
    # without the [errant] and [ensemble] extras every module still imports (their deps load lazily)
    importable = [m for m in all_geceval_modules() if m != "geceval.__main__"]
    imported = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            f"import importlib\nfor m in {importable!r}: importlib.import_module(m)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr

    geceval_cmd = str(bin_dir / "geceval")
    outputs: dict[str, list[str]] = {}
    for args in (GLEU_ARGS, RANK_EW_ARGS, RANK_TS_ARGS):
        installed = subprocess.run(
            [geceval_cmd, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert installed.returncode == 0, installed.stderr
        repo = _in_repo(args)
        assert repo.returncode == 0, repo.stderr
        assert installed.stdout == repo.stdout, args
        outputs.setdefault(args[0], []).append(installed.stdout)
    # an optional extra that is not installed is named, not a traceback
    errant = subprocess.run(
        [geceval_cmd, "score", "errant", *GLEU_ARGS[2:]], cwd=tmp_path, capture_output=True, text=True
    )
    assert errant.returncode == 2
    assert errant.stderr.splitlines()[-1] == (
        "error: geceval score needs errant, an optional dependency: pip install 'geceval[errant]'"
    )
    usage = subprocess.run([geceval_cmd, "rank"], cwd=tmp_path, capture_output=True, text=True)
    assert usage.returncode == 2
    assert usage.stderr.startswith("usage: geceval rank ")
    [gleu] = outputs["score"]
    # hyp, variant, score, std, ci (then the parameters and implementation of the variant)
    assert gleu.splitlines()[1].split()[1:6] == ["jfleg", "0.391600", "0.113056", "[0.170015,", "0.613186]"]
    ew, trueskill = outputs["rank"]
    assert ew.splitlines() == [
        "ew: 10 pairwise judgments, 20 runs, seed 0",
        "  #  range    exp.wins  system",
        "  1  1-3         1.000  SysA",
        "  1  1-2         1.000  SysC",
        "  1  2-3         0.333  SysB",
        "------------------------------",
        "  2  4-4         0.000  SysD",
    ]
    ranked = json.loads(trueskill)
    assert ranked["judgments"] == 9
    assert [(s["name"], s["rank_range"], s["cluster"]) for s in ranked["systems"]] == [
        ("SysC", [1, 2], 1),
        ("SysA", [1, 2], 1),
        ("SysB", [3, 4], 2),
        ("SysD", [3, 4], 2),
    ]
