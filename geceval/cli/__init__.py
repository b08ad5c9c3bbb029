"""``python -m geceval COMMAND ...``: one entry point, a module per command.

Each command module exposes ``add_arguments(parser)`` and ``run(args) -> int``;
modules are imported only when their command runs, so a slow import (spaCy for
ERRANT) never delays another command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from geceval.errors import GecInputError

COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("geceval.cli.score", "score a system output with a GEC metric"),
    "rank": ("geceval.cli.rank", "rank systems from human judgments (TrueSkill, Expected Wins)"),
    "prws": ("geceval.cli.prws", "PRWS means, z-scores, clusters, reliability, trap statistics"),
    "agreement": ("geceval.cli.agreement", "Cohen's and weighted kappa of pairwise judgments"),
    "meta-eval": ("geceval.cli.meta_eval", "correlation of metric scores with human scores"),
    "ensemble": ("geceval.cli.ensemble", "train or apply the GMEG ensemble metric"),
    "edit-stats": (
        "geceval.cli.edit_stats",
        "edit statistics of corrections (GMEG Table 3, Sakaguchi Table 4)",
    ),
    "worker-checks": (
        "geceval.cli.worker_checks",
        "evidence against crowd workers: Appraise's trap test, consistency, flat scoring",
    ),
    "insert-errors": ("geceval.cli.insert_errors", "insert typed errors into sentences (traps)"),
    "cache": ("geceval.cli.cache", "show, prune or clear geceval's disk cache ($GECEVAL_CACHE)"),
}

OPTIONAL_EXTRAS: dict[str, str] = {"errant": "errant", "spacy": "errant", "sklearn": "ensemble"}
"""Top-level module -> the pyproject extra that installs it (imported lazily where used)."""


def _prog() -> str:
    """How the user called us: the installed ``geceval`` script or ``python -m geceval``."""
    return "geceval" if os.path.basename(sys.argv[0]) == "geceval" else "python -m geceval"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=_prog(), description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        _parser().parse_args(argv or ["--help"])
        return 2
    name = argv[0]
    module_name, help_text = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            print(f"geceval {name}: not available in this version", file=sys.stderr)
            return 2
        raise
    parser = argparse.ArgumentParser(prog=f"{_prog()} {name}", description=help_text)
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    try:
        return int(module.run(args) or 0)
    except GecInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"error: {exc.filename}: no such file", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        extra = OPTIONAL_EXTRAS.get((exc.name or "").partition(".")[0])
        if extra is None:
            raise
        print(
            f"error: geceval {name} needs {exc.name}, an optional dependency: pip install 'geceval[{extra}]'",
            file=sys.stderr,
        )
        return 2
