"""How the exclusion rules treat careful workers and random bots, without a server (issue 17).

    .venv/bin/python bench/trap_rules.py                      # Appraise's test from 10, 12, 15, 20 traps
    .venv/bin/python bench/trap_rules.py --min-traps 15 --workers 2000

A simulation, not the measurement (that is bench/bots.py, through the workers' API of a real server):
it shows why the defaults are what they are, in seconds. Traps are the real ones ``make_trap`` draws on
GMEG dev FCE (each system output and each reference of every ``--every``-th line as a base, as
bench/bots.py shows them, scored against the four references, the default drop), so the GLEU+ drops a careful worker must see are the product's. Each simulated worker
answers ``--max-traps`` traps (a trap and its base drawn at random from those):

- careful, PRWS: 100 x sentence GLEU+ + N(0, 15), clipped and rounded; ranking: the base, the trap and
  1-3 other candidates of quality U(0.3, 0.95), ranked by noisy value, within 5 points tied, as
  bench/bot_strategies.py ranks;
- random: uniform 0-100 scores, or a random order.

After each trap the product's own rules decide (``geceval.human.worker_checks.exclusion_reasons`` with the
default ``Rules``: pass rate below the campaign default after its minimum, Appraise's test), with
``MANN_WHITNEY_MIN_TRAPS`` (PRWS) or ``MANN_WHITNEY_MIN_RANKED_TRAPS`` (ranking) set to each
``--min-traps`` in turn. Prints the share excluded within
``--max-traps`` traps per protocol, worker and setting.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bot_strategies import CAREFUL_SIGMA as SIGMA
from bench.bot_strategies import CAREFUL_TIE as TIE
from bench.bot_strategies import REFERENCES, SYSTEMS, dense_ranks
from geceval.human import worker_checks
from geceval.human.worker_checks import Evidence, Rules, exclusion_reasons, trap_test
from geceval.traps.hidden import make_trap

GMEG_FCE = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data/GMEG/data/dev/fce"
# The campaign defaults: pass rate below 0.6 after 10 traps (Rules' defaults), margin 1.
RULES = Rules()
MARGIN = 1


def real_traps(directory: Path, every: int) -> list[tuple[float, float]]:
    """(base quality, trap quality) of the traps ``make_trap`` draws on GMEG dev FCE."""

    def read(name: str) -> list[str]:
        return (directory / name).read_text(encoding="utf-8").splitlines()

    sources, refs = read("source"), [read(r) for r in REFERENCES]
    bases = [read(s) for s in SYSTEMS] + refs
    pairs = []
    for i in range(0, len(sources), every):
        for k, system in enumerate(bases):
            trap = make_trap(system[i], sources[i], [r[i] for r in refs], seed=f"sim:{i}:{k}")
            if trap is not None:
                pairs.append((trap.base_quality, trap.quality))
    return pairs


def answers_for(protocol: str, careful: bool, base: float, trap: float, rng: random.Random) -> tuple:
    """(base answer, trap answer, passed) of one trap."""
    if protocol == "prws":
        if careful:
            b, t = (round(min(100.0, max(0.0, 100 * q + rng.gauss(0, SIGMA)))) for q in (base, trap))
        else:
            b, t = rng.randint(0, 100), rng.randint(0, 100)
        return b, t, t <= b - MARGIN
    qualities = [base, trap] + [rng.uniform(0.3, 0.95) for _ in range(rng.choice((1, 2, 3)))]
    if careful:
        values = {i: 100 * q + rng.gauss(0, SIGMA) for i, q in enumerate(qualities)}
        ranks = dense_ranks(values, TIE)
    else:
        values = {i: rng.random() for i in range(len(qualities))}
        ranks = dense_ranks(values)
    return ranks[0], ranks[1], ranks[1] > ranks[0]


def excluded_share(
    protocol: str, careful: bool, pairs: list, workers: int, max_traps: int, seed: int
) -> float:
    rng = random.Random(seed)
    answer = "score" if protocol == "prws" else "rank"
    out = 0
    for _ in range(workers):
        bases, traps, passed = [], [], 0
        for seen in range(1, max_traps + 1):
            b, t, ok = answers_for(protocol, careful, *rng.choice(pairs), rng)
            bases.append(b)
            traps.append(t)
            passed += ok
            evidence = Evidence(
                traps_seen=seen, traps_passed=passed, mann_whitney_p=trap_test(bases, traps, answer=answer)
            )
            if exclusion_reasons(evidence, RULES):
                out += 1
                break
    return out / workers


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--min-traps", default="10,12,15,20", help="Appraise's test from this many traps")
    p.add_argument("--workers", type=int, default=2000, help="simulated workers per row")
    p.add_argument("--max-traps", type=int, default=20)
    p.add_argument("--every", type=int, default=4, help="every n-th FCE line gives bases")
    p.add_argument("--data", type=Path, default=GMEG_FCE)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if not args.data.is_dir():
        print(f"GMEG dev FCE not found at {args.data} (set GEC_SHARED_DIR)", file=sys.stderr)
        return 2
    pairs = real_traps(args.data, args.every)
    drops = sorted(b - t for b, t in pairs)
    print(
        f"{len(pairs)} traps from GMEG dev FCE; GLEU+ drop min {drops[0]:.2f}, "
        f"median {drops[len(drops) // 2]:.2f}; {args.workers} workers per row, {args.max_traps} traps each"
    )
    print(f"{'protocol':<9} {'test from':>9} {'careful excluded':>17} {'random excluded':>16}")
    defaults = {"prws": "MANN_WHITNEY_MIN_TRAPS", "ranking": "MANN_WHITNEY_MIN_RANKED_TRAPS"}
    kept = {name: getattr(worker_checks, name) for name in defaults.values()}
    try:
        for protocol, name in defaults.items():
            default = kept[name]
            for n in (int(x) for x in args.min_traps.split(",")):
                setattr(worker_checks, name, n)
                careful, bot = (
                    excluded_share(protocol, who, pairs, args.workers, args.max_traps, args.seed)
                    for who in (True, False)
                )
                mark = " (default)" if n == default else ""
                print(f"{protocol:<9} {n:>9} {100 * careful:>16.2f}% {100 * bot:>15.2f}%{mark}")
    finally:
        for name, value in kept.items():
            setattr(worker_checks, name, value)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
