"""``python -m geceval prws FILE``: PRWS system means, z-scores, clusters, reliability, traps.

Formats:
- ``prws-csv`` (default): one row per rating, columns by header name
  (item, worker, system, score[, meaning_changed]); gives raw and z means,
  clusters over the z segment means, split-half reliability and trap
  statistics.
- ``gmeg-segment-csv``: GMEG ``*-segment-scores.csv`` (segment means only):
  raw means and clusters over the raw segment means; no z-scores, no
  reliability, no traps (the individual ratings are not in the file).

``--json`` prints ``{"format", "cluster_basis": "z"|"raw", "systems": [{"name",
"mean", "z_mean", "n_items", "cluster", "beats", "meaning_changed_rate"}, ...]
(ranked), "reliability": {...}|null, "traps": [{"worker", "seen",
"passed_traps", "pass_rate", "passed"}, ...]}``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from geceval.cli.output import fmt, print_json
from geceval.errors import GecInputError
from geceval.formats import prws_csv
from geceval.human import prws
from geceval.progress import StderrProgress


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="ratings CSV or GMEG segment-scores CSV")
    parser.add_argument("--format", choices=["prws-csv", "gmeg-segment-csv"], default="prws-csv")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split-half samples")
    parser.add_argument("--samples", type=int, default=100, help="split-half samples (default 100)")
    parser.add_argument("--group-size", type=int, default=None, help="ratings per half (default: half)")
    parser.add_argument("--alpha", type=float, default=0.05, help="Mann-Whitney significance level")
    parser.add_argument("--ddof", type=int, default=0, help="ddof of each annotator's std for z (0)")
    parser.add_argument("--trap-system", default="source+error")
    parser.add_argument("--source-system", default="source")
    parser.add_argument("--trap-threshold", type=float, default=0.70, help="pass rate to pass (0.70)")
    parser.add_argument("--min-traps", type=int, default=3, help="traps needed for a verdict (3)")


RATINGS_ONLY = {
    # what a GMEG segment-scores CSV (means per output, no individual ratings) cannot honour
    "ddof": ("--ddof", 0),
    "samples": ("--samples", 100),
    "seed": ("--seed", 0),
    "group_size": ("--group-size", None),
    "trap_system": ("--trap-system", "source+error"),
    "source_system": ("--source-system", "source"),
    "trap_threshold": ("--trap-threshold", 0.70),
    "min_traps": ("--min-traps", 3),
}


def run(args: argparse.Namespace) -> int:
    if args.format == "gmeg-segment-csv":
        unused = [flag for dest, (flag, default) in RATINGS_ONLY.items() if getattr(args, dest) != default]
        if unused:
            raise GecInputError(
                f"{', '.join(unused)}: not used with --format gmeg-segment-csv (segment means, no "
                "individual ratings: no z-scores, reliability or traps); leave it out"
            )
    reliability = None
    traps: list[prws.WorkerTraps] = []
    z_means: dict[str, float] = {}
    mc_rates: dict[str, float] = {}
    if args.format == "gmeg-segment-csv":
        raw = prws_csv.read_gmeg_segment_csv(args.file)
        basis, cluster_segments = "raw", raw
    else:
        ratings = prws_csv.read_prws_csv(args.file)
        raw = prws.segment_means(ratings)
        z_segments = prws.segment_means(ratings, scores=prws.z_scores(ratings, ddof=args.ddof))
        z_means = prws.system_means(z_segments)
        basis, cluster_segments = "z", z_segments
        mc_rates = prws.meaning_changed_rates(ratings)
        try:
            reliability = prws.split_half_reliability(
                ratings,
                samples=args.samples,
                seed=args.seed,
                group_size=args.group_size,
                progress=StderrProgress("split-half samples"),
            )
        except ValueError as exc:
            print(f"reliability: {exc}", file=sys.stderr)
        traps = prws.trap_statistics(
            ratings,
            trap_system=args.trap_system,
            source_system=args.source_system,
            threshold=args.trap_threshold,
            min_traps=args.min_traps,
        )
    raw_means = prws.system_means(raw)
    clustered = prws.significance_clusters(cluster_segments, alpha=args.alpha)
    systems = [
        {
            "name": row.name,
            "mean": raw_means[row.name],
            "z_mean": z_means.get(row.name),
            "n_items": sum(1 for _ in raw[row.name]),
            "cluster": row.cluster,
            "beats": row.beats,
            "meaning_changed_rate": mc_rates.get(row.name),
        }
        for row in clustered
    ]
    if args.json:
        print_json(
            {
                "format": args.format,
                "cluster_basis": basis,
                "systems": systems,
                "reliability": asdict(reliability) if reliability else None,
                "traps": [asdict(t) for t in traps],
            }
        )
        return 0
    _print_text(args, basis, systems, reliability, traps)
    return 0


def _print_text(
    args: argparse.Namespace,
    basis: str,
    systems: list[dict],
    reliability: prws.Reliability | None,
    traps: list[prws.WorkerTraps],
) -> None:
    print(f"clusters over {basis} segment scores (one-sided Mann-Whitney, p < {args.alpha})")
    print(f"{'#':>3} {'system':<20} {'mean':>9} {'z':>8} {'items':>6}")
    previous = None
    for row in systems:
        if previous is not None and row["cluster"] != previous:
            print("-" * 50)
        previous = row["cluster"]
        print(
            f"{row['cluster']:>3} {row['name']:<20} {fmt(row['mean'], 3):>9} "
            f"{fmt(row['z_mean'], 3):>8} {row['n_items']:>6}"
        )
    if reliability:
        r = reliability
        print(
            f"\nsplit-half reliability ({r.samples} samples, {r.cells} outputs): "
            f"system Pearson {fmt(r.system_pearson)} Spearman {fmt(r.system_spearman)}; "
            f"sentence Pearson {fmt(r.sentence_pearson)} Spearman {fmt(r.sentence_spearman)}"
        )
    if traps:
        print(f"\ntraps ({args.trap_system} below {args.source_system}):")
        for t in traps:
            verdict = {True: "pass", False: "FAIL", None: "too few"}[t.passed]
            print(f"  {t.worker:<20} {t.passed_traps}/{t.seen} {t.pass_rate:.2f} {verdict}")
