"""ERRANT parsed once (issue 43): the CoNLL-14 systems scored one process each, as a researcher runs
them, with geceval's disk cache (``GECEVAL_CACHE``, a fresh temporary folder) against ``--no-cache``.

    .venv/bin/python bench/bench_errant_cache.py [--data ../shared/data (or $GEC_SHARED_DIR/data)] [--systems N] [--smoke]

References: ``conll14st-test.m2`` (so no reference is parsed: the source is the only parse that
systems share). Systems: the official submissions in ``grammatical-evaluation``, in name order.
Measured, whole process (``python -m geceval score errant --refs M2 --hyp SYSTEM --json``, child
CPU seconds, start-up and model load included), in this order:

1. every system with ``--no-cache``: the numbers every cached run must equal;
2. the first system with an empty cache (it parses the source and its own changed lines);
3. the second system (the source's parses come from the cache; its own lines are new);
4. the first system again (its edits come from the cache: nothing is parsed, spaCy is not loaded);
5. every other system in turn (each parses only its own lines), then every system again.

Prints each run's CPU, the ratios first / second and first / again, and checks that every cached
run gives the P, R, F0.5, TP, FP and FN of its ``--no-cache`` run (else exit 1).
``--smoke``: the first 40 sentences of two systems (CI: numbers checked, no timing goal).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from reference import SHARED, Skip, machine_load, need, ours_command, run_main, whole_process

FIELDS = ("p", "r", "f", "tp", "fp", "fn")


def _truncate(m2: Path, systems: list[Path], n: int, out: Path) -> tuple[Path, list[Path]]:
    blocks = m2.read_text(encoding="utf-8").split("\n\n")[:n]
    small_m2 = out / "gold.m2"
    small_m2.write_text("\n\n".join(b.strip("\n") for b in blocks) + "\n\n", encoding="utf-8")
    small = []
    for system in systems:
        path = out / system.name
        path.write_text("".join(system.read_text(encoding="utf-8").splitlines(True)[:n]), encoding="utf-8")
        small.append(path)
    return small_m2, small


def score(m2: Path, system: Path, cache: Path, *extra: str) -> tuple[float, dict]:
    cpu, out = whole_process(
        ours_command("score", "errant", "--refs", str(m2), "--hyp", str(system), "--json", *extra),
        env={"GECEVAL_CACHE": str(cache)},
    )
    (row,) = json.loads(out)
    return cpu, {k: row[k] for k in FIELDS}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("GEC_SHARED_DIR", SHARED)) / "data")
    parser.add_argument("--systems", type=int, default=0, help="only the first N systems (0: all)")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    m2 = args.data / "gecmetrics" / "data" / "conll14st-test" / "conll14st-test.m2"
    folder = args.data / "grammatical-evaluation" / "data" / "original" / "official_submissions"
    need(m2, folder)
    try:
        import errant  # noqa: F401
    except ImportError as exc:
        raise Skip(f"the [errant] extra is not installed ({exc})") from None
    systems = sorted(p for p in folder.iterdir() if p.is_file())
    if args.systems:
        systems = systems[: args.systems]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.smoke:
            m2, systems = _truncate(m2, systems[:2], 40, work)
        cache = work / "cache"
        print(f"ERRANT on CoNLL-14 ({m2.name}), {len(systems)} systems, one process each; {machine_load()}")

        expected, bad = {}, []
        for system in systems:
            cpu, expected[system.name] = score(m2, system, cache, "--no-cache")
            print(
                f"  --no-cache      {system.name:<6} {cpu:7.2f} CPU-s  F0.5 {expected[system.name]['f']:.4f}"
            )
        if cache.exists():
            bad.append("--no-cache wrote to the cache")

        def cached(label: str, system: Path) -> float:
            cpu, got = score(m2, system, cache)
            same = got == expected[system.name]
            if not same:
                bad.append(f"{label} {system.name}: {got} != {expected[system.name]}")
            print(f"  {label:<15} {system.name:<6} {cpu:7.2f} CPU-s  {'same' if same else 'DIFFER'}")
            return cpu

        first = cached("first (empty)", systems[0])
        second = cached("second system", systems[1]) if len(systems) > 1 else float("nan")
        again = cached("first again", systems[0])
        others = [cached("next system", s) for s in systems[2:]]
        repeats = [cached("again", s) for s in systems[1:]]
        print(
            f"  first / second system: {first / second:.1f}x   first / same system again: {first / again:.1f}x"
        )
        if others:
            print(f"  later new systems: {min(others):.2f}-{max(others):.2f} CPU-s")
        if repeats:
            print(f"  every system again: {min(repeats):.2f}-{max(repeats):.2f} CPU-s")
        print(f"  after: {machine_load()}")
    for line in bad:
        print(f"MISMATCH {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run_main(main))
