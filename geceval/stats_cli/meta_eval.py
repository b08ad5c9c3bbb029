"""``python -m geceval meta-eval --metric-scores CSV [CSV ...] --human-scores CSV``.

Both CSVs have a header with ``system`` and ``score`` columns (found by name,
case-insensitive, any order, other columns ignored; GMEG's
``*-corpus-scores.csv`` and ``python -m geceval score`` output reduced to
those columns both fit). Human scores may be PRWS means or TrueSkill mu.
Systems named in ``--exclude`` (default: ref, reference, references,
refmix1, source+error; ``--exclude`` with no names excludes nothing) are left
out. With two or more metric files, each pair is also compared with the
Williams test (one-sided: does the first correlate more strongly with the
human scores than the second?).

``--json`` prints ``{"human_scores": path, "metrics": [{"metric": path, "n",
"systems", "excluded", "unmatched", "pearson", "pearson_p", "spearman",
"spearman_p", "kendall", "kendall_p"}, ...], "williams": [{"metric1",
"metric2", "t", "df", "p"}, ...]}``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict
from itertools import permutations

import numpy as np
from scipy import stats

from geceval import metaeval
from geceval.prws import read_system_scores_csv
from geceval.stats_cli import fmt, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric-scores", nargs="+", required=True, metavar="CSV", help="system,score")
    parser.add_argument("--human-scores", required=True, metavar="CSV", help="system,score")
    parser.add_argument(
        "--exclude",
        nargs="*",
        default=list(metaeval.DEFAULT_EXCLUDE),
        metavar="NAME",
        help="systems to leave out (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    human = read_system_scores_csv(args.human_scores)
    metrics = {path: read_system_scores_csv(path) for path in args.metric_scores}
    rows = []
    for path, scores in metrics.items():
        corr = metaeval.system_correlations(scores, human, exclude=args.exclude)
        rows.append({"metric": path, **asdict(corr)})
    williams = []
    for (p1, m1), (p2, m2) in permutations(metrics.items(), 2):
        systems = sorted(
            s for s in set(m1) & set(m2) & set(human) if s.lower() not in {e.lower() for e in args.exclude}
        )
        if len(systems) <= 3:
            continue
        h = np.array([human[s] for s in systems])
        a = np.array([m1[s] for s in systems])
        b = np.array([m2[s] for s in systems])
        if min(np.ptp(h), np.ptp(a), np.ptp(b)) == 0:
            continue
        r12, r13 = stats.pearsonr(h, a)[0], stats.pearsonr(h, b)[0]
        if r12 <= r13:
            continue  # report each pair once, in the direction of the better metric
        w = metaeval.williams_from_scores(h, a, b)
        williams.append({"metric1": p1, "metric2": p2, "t": w.t, "df": w.df, "p": w.p})
    if args.json:
        print_json({"human_scores": args.human_scores, "metrics": rows, "williams": williams})
        return 0
    print(f"human scores: {args.human_scores}; excluded: {', '.join(args.exclude) or 'none'}")
    print(f"{'metric':<40} {'n':>3} {'pearson':>8} {'spearman':>8} {'kendall':>8}")
    for row in rows:
        print(
            f"{row['metric']:<40} {row['n']:>3} {fmt(row['pearson']):>8} "
            f"{fmt(row['spearman']):>8} {fmt(row['kendall']):>8}"
        )
        if row["unmatched"]:
            print(f"  (in only one file: {', '.join(row['unmatched'])})")
    for w in williams:
        star = " *" if not math.isnan(w["p"]) and w["p"] < 0.05 else ""
        print(
            f"Williams: {w['metric1']} > {w['metric2']}: t({w['df']}) = {w['t']:.3f}, p = {w['p']:.4g}{star}"
        )
    return 0
