"""Write a large synthetic judgment set: a WMT CSV of pairwise rankings and a PRWS ratings CSV.

    python bench/make_million.py --pairs 1000000 --ratings 1000000 --systems 15 \
        --sentences 50000 --seed 0 --out /tmp/million

Formats are the ones ``import_judgments --format wmt-csv`` / ``--format prws-csv`` read (the
WMT CSV has the header of gec-ranking's all_judgments.csv). Systems have a latent quality
(sys00 best); each judgment compares outputs with noise, so a ranking has a known order.
Deterministic given the seed; rows are generated and written in blocks (memory stays flat).
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

BLOCK = 100_000
WMT_HEADER = [
    "system2rank",
    "segmentId",
    "system1Id",
    "system2Number",
    "system1Number",
    "trglang",
    "system1rank",
    "srcIndex",
    "judgeID",
    "srclang",
    "system2Id",
    "documentId",
]
PRWS_PER_SCREEN = 5


def _names(systems: int) -> list[str]:
    return [f"sys{k:02d}" for k in range(systems)]


def write_pairs(path: Path, *, pairs: int, systems: int, sentences: int, judges: int, seed: int) -> None:
    rng = np.random.default_rng([seed, 1])
    names = _names(systems)
    quality = np.linspace(1.0, -1.0, systems)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(WMT_HEADER)
        for start in range(0, pairs, BLOCK):
            n = min(BLOCK, pairs - start)
            seg = rng.integers(0, sentences, n)
            a = rng.integers(0, systems, n)
            b = (a + rng.integers(1, systems, n)) % systems  # a different system
            judge = rng.integers(0, judges, n)
            # a rank 1-5 per output: better systems get lower ranks, noise makes ties and upsets
            ra = np.clip(np.rint(3 - 1.5 * quality[a] + rng.normal(0, 1.0, n)), 1, 5).astype(int)
            rb = np.clip(np.rint(3 - 1.5 * quality[b] + rng.normal(0, 1.0, n)), 1, 5).astype(int)
            out.writerows(
                (
                    rb[i],
                    seg[i],
                    names[a[i]],
                    -1,
                    -1,
                    -1,
                    ra[i],
                    seg[i],
                    f"judge{judge[i]}",
                    -1,
                    names[b[i]],
                    -1,
                )
                for i in range(n)
            )


def write_ratings(path: Path, *, ratings: int, systems: int, sentences: int, judges: int, seed: int) -> None:
    """Screens of five distinct systems for one (sentence, judge); a screen never repeats a system."""
    rng = np.random.default_rng([seed, 2])
    names = _names(systems)
    quality = np.linspace(1.0, -1.0, systems)
    per = min(PRWS_PER_SCREEN, systems)
    screens = -(-ratings // per)
    written = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle, lineterminator="\n")
        out.writerow(["item", "worker", "system", "score", "meaning_changed"])
        for start in range(0, screens, BLOCK // per):
            n = min(BLOCK // per, screens - start)
            # screen k is (sentence k mod S, judge k div S): distinct (sentence, judge) per screen
            # while screens <= sentences * judges, which main() checks
            index = np.arange(start, start + n)
            seg = index % sentences
            judge = index // sentences
            chosen = np.argsort(rng.random((n, systems)), axis=1)[:, :per]
            score = np.clip(np.rint(60 + 25 * quality[chosen] + rng.normal(0, 15, (n, per))), 0, 100).astype(
                int
            )
            changed = rng.random((n, per)) < 0.05
            rows = []
            for i in range(n):
                for k in range(per):
                    if written + len(rows) >= ratings:
                        break
                    rows.append(
                        (seg[i], f"judge{judge[i]}", names[chosen[i, k]], score[i, k], int(changed[i, k]))
                    )
            out.writerows(rows)
            written += len(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=15)
    parser.add_argument("--sentences", type=int, default=50_000)
    parser.add_argument("--judges", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="/tmp/million", help="directory for pairs.csv and ratings.csv")
    args = parser.parse_args(argv)
    if args.systems < 2:
        parser.error("--systems must be at least 2")
    if -(-args.ratings // min(PRWS_PER_SCREEN, args.systems)) > args.sentences * args.judges:
        parser.error("too many ratings for --sentences x --judges distinct screens")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    common = {"systems": args.systems, "sentences": args.sentences, "judges": args.judges, "seed": args.seed}
    write_pairs(out / "pairs.csv", pairs=args.pairs, **common)
    write_ratings(out / "ratings.csv", ratings=args.ratings, **common)
    print(
        f"wrote {out / 'pairs.csv'} ({args.pairs} pairwise judgments) and {out / 'ratings.csv'} "
        f"({args.ratings} ratings) in {time.perf_counter() - t0:.1f} s"
    )


if __name__ == "__main__":
    main()
