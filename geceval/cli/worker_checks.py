"""``python -m geceval worker-checks FILE``: the evidence against each worker (issue 17), from a file.

FILE is JSON: ``{"answer": "score"|"rank", "workers": [{"worker": "w1", "traps": [[base, trap], ...],
"repeats": [[[first, second], ...], ...], "screens": [[[position, answer], ...], ...]}, ...]}``:
per worker the answers to each trap's base and to the trap, per repeated screen the two answers to
each candidate shown twice, and per judged screen each candidate's display position and answer. Any
list may be missing (that signal is then not judged).

``--json`` prints ``{"answer", "workers": [{"worker", "mann_whitney_p", "kept", "repeats",
"repeat_distance", "inconsistent", "ratings", "spread", "position_rho", "flat_reason"}, ...]}``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from geceval.cli.output import fmt, print_json
from geceval.errors import GecInputError
from geceval.human.worker_checks import consistency, flatness, trap_test, trap_test_passed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="JSON with each worker's trap, repeat and screen answers")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def worker_checks(data: dict) -> dict:
    """The signals of every worker in ``data`` (the file's shape), as plain data."""
    answer = data.get("answer", "score")
    rows = []
    for w in data.get("workers", []):
        if not isinstance(w, dict) or "worker" not in w:
            raise GecInputError("each worker needs a 'worker' name")
        traps = w.get("traps", [])
        p = trap_test([b for b, _ in traps], [t for _, t in traps], answer=answer)
        same = consistency([[tuple(pair) for pair in r] for r in w.get("repeats", [])], answer=answer)
        flat = flatness([[tuple(pa) for pa in s] for s in w.get("screens", [])], answer=answer)
        rows.append(
            {
                "worker": w["worker"],
                "mann_whitney_p": p,
                "kept": trap_test_passed(p),
                "repeats": same.repeats,
                "repeat_distance": same.distance,
                "inconsistent": same.inconsistent,
                "ratings": flat.ratings,
                "spread": flat.spread,
                "position_rho": flat.position_rho,
                "flat_reason": flat.reason,
            }
        )
    return {"answer": answer, "workers": rows}


def run(args: argparse.Namespace) -> int:
    try:
        data = json.loads(Path(args.file).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GecInputError(f"{args.file}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise GecInputError(f"{args.file}: expected a JSON object with 'answer' and 'workers'")
    try:
        result = worker_checks(data)
    except (TypeError, ValueError) as exc:
        raise GecInputError(f"{args.file}: malformed answers ({exc})") from None
    if args.json:
        print_json(result)
        return 0
    print(f"{'worker':<20} {'Mann-Whitney p':>14} {'repeats':>7} {'apart':>7} {'flat':>9} {'rho':>6}")
    for r in result["workers"]:
        flag = " inconsistent" if r["inconsistent"] else ""
        print(
            f"{r['worker']:<20} {fmt(r['mann_whitney_p']):>14} {r['repeats']:>7} "
            f"{fmt(r['repeat_distance'], 2):>7} {r['flat_reason'] or 'no':>9} {fmt(r['position_rho'], 2):>6}{flag}"
        )
    return 0
