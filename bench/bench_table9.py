"""GMEG 2019 Table 9 (ensemble, 50-fold CV, domain ablation) on GMEG dev: before and after the feature cache.

    .venv/bin/python bench/bench_table9.py [--data ../shared/data/GMEG/data] [--folds 50]
                                           [--features errant chrf m2 imeasure gleu chargleu] [--hybrids 674]

"Before" is a cold cache in a fresh temporary directory: every real and hybrid
system of every dev domain is featurised, as every training run did before
features were cached (what ``ensemble train`` still does). "After" runs the
same again against the now warm cache: nothing is featurised (spaCy is not even
loaded), so the time is reading the cache, drawing the hybrids and the 50-fold
CV. Prints CPU (process) and wall seconds of each phase and the CV figures.
The machine is shared (2 cores, several engineers): wall times are pessimistic.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from geceval.metrics.ensemble.cross_validation import domain_cross_validation, domain_rows
from geceval.metrics.ensemble.features import DEFAULT_COMPONENTS


def run(data: Path, cache: str, folds: int, features: list[str], hybrids: int) -> tuple[float, float, list]:
    cpu, wall = time.process_time(), time.perf_counter()
    rows = []
    for domain in sorted(p.name for p in (data / "dev").iterdir() if (p / "source").is_file()):
        domain_part, fc = domain_rows(
            data / "dev" / domain, components=features, cache_dir=cache, hybrids=hybrids
        )
        print(f"  {domain}: {len(domain_part)} rows, cache hits {fc.hits}, misses {fc.misses}", flush=True)
        rows += domain_part
    cv = domain_cross_validation(rows, folds=folds)
    return time.process_time() - cpu, time.perf_counter() - wall, cv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "GMEG" / "data")
    parser.add_argument("--folds", type=int, default=50)
    parser.add_argument("--features", nargs="+", default=list(DEFAULT_COMPONENTS))
    parser.add_argument("--hybrids", type=int, default=674, help="per domain (GMEG: 674)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        for label in ("before (cold cache)", "after (warm cache)"):
            print(f"{label}:", flush=True)
            cpu, wall, cv = run(args.data, cache, args.folds, args.features, args.hybrids)
            for c in cv:
                print(
                    f"  {c.domain}: All r {c.all:.3f}, Ablation r {c.ablation if c.ablation is None else round(c.ablation, 3)}"
                )
            print(f"  {label}: {cpu:.1f} s CPU, {wall:.1f} s wall, {args.folds} folds", flush=True)


if __name__ == "__main__":
    main()
