"""``python -m geceval insert-errors FILE --seed N [--json]``: Source+error trap sentences.

Writes one altered sentence per input line to stdout (tokens joined by single
spaces; an empty line becomes "."). With ``--json``, one object per line:
``{"text": ..., "edits": [{"type", "start", "end", "original", "inserted"}]}``
where ``start``/``end`` are whitespace-token offsets of the inserted text in
``text`` and ``original`` is the source text it replaced. Line ``i`` uses the
seed ``"N/i"`` (see :func:`geceval.traps.inserter.line_seed`), so a line's trap
does not depend on the other lines. ``--types`` and ``--errors`` narrow the
rules and fix the number of errors (default: all types, 1 or 2 per line).
"""

from __future__ import annotations

import argparse
import json
import sys

from geceval.formats.text import read_lines
from geceval.progress import StderrProgress
from geceval.traps.inserter import ERROR_TYPES, insert_errors_lines

_PROGRESS_FROM = 20000


def _types(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in ERROR_TYPES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown type(s) {unknown}; choose from {','.join(ERROR_TYPES)}")
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="UTF-8 text, one sentence per line")
    parser.add_argument("--seed", type=int, required=True, help="random seed (line i uses 'SEED/i')")
    parser.add_argument("--json", action="store_true", help="one JSON object per line with the edits")
    parser.add_argument(
        "--types",
        type=_types,
        metavar="T1,T2",
        help=f"comma-separated error types (default all: {','.join(ERROR_TYPES)})",
    )
    parser.add_argument(
        "--errors", type=int, choices=(1, 2), help="errors per line (default: 1 or 2 at random)"
    )


def run(args: argparse.Namespace) -> int:
    lines = read_lines(args.file, allow_empty=True)
    progress = StderrProgress("insert-errors") if len(lines) >= _PROGRESS_FROM else None
    results = insert_errors_lines(
        lines, seed=args.seed, n_errors=args.errors, types=args.types, progress=progress
    )
    out = sys.stdout
    for result in results:
        if args.json:
            out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        else:
            out.write(result.text + "\n")
    out.flush()
    return 0
