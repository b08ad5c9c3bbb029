"""``python -m geceval meta-eval --metric-scores CSV [CSV ...] --human-scores CSV``.

Both CSVs have a header with ``system`` and ``score`` columns (found by name,
case-insensitive, any order, other columns ignored; GMEG's
``*-corpus-scores.csv`` and ``python -m geceval score`` output reduced to
those columns both fit). Human scores may be PRWS means or TrueSkill mu.
Systems named in ``--exclude`` (default: ref, reference, references,
refmix1, source+error; ``--exclude`` with no names excludes nothing) are left
out, in every mode (with ``--hybrids`` on top of GMEG's own: they leave the real systems, so
no hybrid is made of them either). Every mode refuses (exit 2, naming what did not match and
what was there) when fewer than 90% of the judged systems (judged pairs at sentence level) find
their scores; ``--allow-missing`` (no value) lowers the share to 0 on purpose
(:mod:`geceval.formats.joins`). An option the chosen mode does not read is refused, never dropped.
With two or more metric files, each pair is also compared with the Williams test (one-sided:
does the first correlate more strongly with the human scores than the second?).

``--json`` prints ``{"human_scores": path, "metrics": [{"metric": path, "n",
"systems", "excluded", "unmatched", "pearson", "pearson_p", "spearman",
"spearman_p", "kendall", "kendall_p"}, ...], "williams": [{"metric1",
"metric2", "t", "df", "p"}, ...]}``. Score files may also be TSV or JSON
(:func:`geceval.metaeval.kobayashi2024.read_system_scores`): a metric run elsewhere is
meta-evaluated like ours.

``--tags``/``--tag``, ``--subset``, ``--window [K]`` and ``--sentence-level`` switch to
the 2024 modes (Kobayashi et al. 2024): :mod:`geceval.cli.meta_eval_2024`.

``python -m geceval meta-eval --hybrids N --seed S --data DIR [--segment-scores CSV]
[--metrics M ...] [--json]`` is GMEG 2019 Table 8 and Figure 3 for one
GMEG-layout domain (``DIR/source``, ``DIR/ref0..N``, one file per system,
``DIR-segment-scores.csv`` beside it): the real systems minus ref and source+error (GMEG
section 6; Source is correlated but mixed into no hybrid, section 5.2) and minus ``--exclude``,
plus N hybrid systems (Graham and Liu 2016; GMEG used 674) of the GEC systems
drawn with seed S as :mod:`geceval.metaeval.hybrids` documents; the metrics (default
all of Table 8: chrf, errant-0.2, errant-0.5, gleu, chargleu, imeasure,
m2-0.2, m2-0.5) score every system; it reports Pearson r and Spearman rho and
the Williams matrix (one-sided p that the row metric beats the column metric).
``--json`` prints ``{"data", "seed", "hybrids", "n_real", "real_systems", "hybrid_bases",
"left_out", "metrics": [{"metric", "pearson", "spearman"}], "williams":
{row: {column: p}}}``.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict
from itertools import permutations

import numpy as np
from scipy import stats

from geceval.cli import meta_eval_2024
from geceval.cli.output import fmt, print_json
from geceval.errors import GecInputError
from geceval.formats import joins
from geceval.metaeval import correlation as metaeval
from geceval.metaeval.kobayashi2024 import read_system_scores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric-scores", nargs="+", metavar="CSV", help="system,score")
    parser.add_argument("--human-scores", metavar="CSV", help="system,score")
    parser.add_argument(
        "--hybrids", type=int, metavar="N", help="add N hybrid systems (GMEG: 674); needs --data"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the hybrids (default 0)")
    parser.add_argument("--data", metavar="DIR", help="GMEG-layout domain dir (source, ref0..N, systems)")
    parser.add_argument("--segment-scores", metavar="CSV", help="default: DIR-segment-scores.csv beside DIR")
    parser.add_argument(
        "--metrics",
        nargs="+",
        metavar="M",
        default=None,
        help=(
            "with --hybrids: chrf errant-0.2 errant-0.5 gleu chargleu imeasure m2-0.2 m2-0.5 (default all); "
            "with --sentence-level --outputs: m2 errant gotoscorer gleu bleu chrf (default all)"
        ),
    )
    parser.add_argument(
        "--exclude",
        nargs="*",
        default=list(metaeval.DEFAULT_EXCLUDE),
        metavar="NAME",
        help="systems to leave out (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--allow-missing", action="store_true", help=joins.ALLOW_MISSING_HELP)
    meta_eval_2024.add_arguments(parser)


# What each mode reads; any other option given is refused, never dropped.
_COMMON = {"exclude", "json", "allow_missing"}
_MODES: dict[str, set[str]] = {
    "--hybrids": {"hybrids", "seed", "data", "segment_scores", "metrics"},
    "--sentence-level": {
        "sentence_level",
        "judgments",
        "judgments_format",
        "src_id_base",
        "exclude_judges",
        "metric_sentence_scores",
        "outputs",
        "gold",
        "source",
        "refs",
        "alias",
        "metrics",
        "tags",
        "tag",
        "subset",
    },
    "the 2024 system level (--tags, --tag, --subset, --window)": {
        "metric_scores",
        "human_scores",
        "tags",
        "tag",
        "subset",
        "window",
    },
    "the system level (--metric-scores, --human-scores)": {"metric_scores", "human_scores"},
}


def _mode(args: argparse.Namespace) -> str:
    if args.hybrids is not None:
        return "--hybrids"
    if args.sentence_level:
        return "--sentence-level"
    if meta_eval_2024.wanted(args):
        return "the 2024 system level (--tags, --tag, --subset, --window)"
    return "the system level (--metric-scores, --human-scores)"


def refuse_unused(args: argparse.Namespace) -> None:
    """Refuse every option the chosen mode would not read (an option is never silently dropped)."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    defaults = {a.dest: a.default for a in parser._actions}
    mode = _mode(args)
    allowed = _MODES[mode] | _COMMON
    given = [a for a in parser._actions if a.dest in vars(args) and getattr(args, a.dest) != defaults[a.dest]]
    unused = [a.option_strings[0] for a in given if a.dest not in allowed]
    if mode == "--sentence-level" and not args.outputs:
        unused += [f"--{d}" for d in ("metrics", "gold", "source", "refs") if getattr(args, d)]
    if unused:
        raise GecInputError(f"{', '.join(sorted(unused))}: not used by {mode}; leave it out")


def run(args: argparse.Namespace) -> int:
    refuse_unused(args)
    if args.hybrids is not None:
        return _run_hybrids(args)
    if meta_eval_2024.wanted(args):
        return meta_eval_2024.run(args)
    if not args.metric_scores or not args.human_scores:
        raise GecInputError("give --metric-scores and --human-scores, or --hybrids N --data DIR")
    human = read_system_scores(args.human_scores)
    metrics = {path: read_system_scores(path) for path in args.metric_scores}
    share = joins.min_share(args.allow_missing)
    for path, scores in metrics.items():
        joins.require_share(
            joins.system_join(human, scores, exclude=args.exclude), min_share=share, where=path
        )
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


def _run_hybrids(args: argparse.Namespace) -> int:
    # lazy: the hybrid path loads the scorers (and spaCy for ERRANT), the CSV path needs none
    from geceval.metaeval import hybrids as hybrid_metaeval

    if args.data is None:
        raise GecInputError("--hybrids needs --data DIR (a GMEG-layout domain directory)")
    if args.hybrids < 0:
        raise GecInputError("--hybrids must be >= 0")
    metrics = args.metrics or list(hybrid_metaeval.TABLE8_METRICS)
    unknown = [m for m in metrics if m not in hybrid_metaeval.TABLE8_METRICS]
    if unknown:
        raise GecInputError(
            f"unknown metric {unknown[0]!r}; choose from {', '.join(hybrid_metaeval.TABLE8_METRICS)}"
        )
    result = hybrid_metaeval.hybrid_meta_eval(
        args.data,
        metrics=metrics,
        count=args.hybrids,
        seed=args.seed,
        segment_csv=args.segment_scores,
        left_out=(*hybrid_metaeval.GMEG_CORRELATION_LEFT_OUT, *args.exclude),
        min_share=joins.min_share(args.allow_missing),
    )
    rows = [asdict(c) for c in result.correlations]
    if args.json:
        print_json(
            {
                "data": args.data,
                "seed": result.seed,
                "hybrids": result.n_hybrids,
                "n_real": result.n_real,
                "real_systems": result.real_systems,
                "hybrid_bases": result.hybrid_bases,
                "left_out": result.left_out,
                "metrics": rows,
                "williams": result.williams,
            }
        )
        return 0
    print(
        f"{args.data}: {result.n_real} real systems ({', '.join(result.real_systems)}) + "
        f"{result.n_hybrids} hybrids of {', '.join(result.hybrid_bases)}, seed {result.seed}; "
        f"left out: {', '.join(result.left_out) or 'none'}"
    )
    print(f"{'metric':<12} {'r':>7} {'rho':>7}")
    for row in rows:
        print(f"{row['metric']:<12} {fmt(row['pearson'], 3):>7} {fmt(row['spearman'], 3):>7}")
    print("Williams test, one-sided p that the row metric correlates better than the column metric:")
    print(" " * 12 + "".join(f"{m:>11}" for m in metrics))
    for a in metrics:
        cells = "".join(f"{fmt(result.williams[a][b], 4):>11}" for b in metrics)
        print(f"{a:<12}{cells}")
    return 0
