"""``python -m geceval rank FILE``: rank systems from relative-ranking judgments (TrueSkill or Expected Wins).

Reads k-way rankings (``--format wmt-csv|appraise-xml|jsonl|mturk-csv``;
guessed from the file name when omitted, ``.csv`` read as WMT; Appraise items named as
``geceval.formats.judgments.appraise_item_key`` says, the rule printed on stderr), expands them to pairwise judgments as the
reference's ``-n 2`` and prints one line per system in ranked order with its
score (mean mu for TrueSkill, Expected Wins for ``ew``), its 95% rank range
and a rule between clusters. ``--json`` prints
``{"judgments": N, "systems": [{"name", "mu", "rank_range": [lo, hi], "cluster"}, ...]}``.

``--format mturk-csv`` reads an MTurk batch results CSV as the web import
does (``geceval.formats.mturk``: the same layout detection, rejected
assignments dropped unless ``--include-rejected``, a collapsed candidate's
rank given to each system it stands for).
"""

from __future__ import annotations

import argparse
import json
import sys

from geceval.errors import GecInputError
from geceval.formats.appraise_items import SRC_ID_BASES
from geceval.formats.inputs import display_name, read_input
from geceval.formats.judgments import FORMATS, RankingJudgment, read_rankings_keyed
from geceval.formats.mturk import parse_mturk_csv, rankings_of
from geceval.human.pairs import prepare_rankings
from geceval.human.system_ranking import METHODS, RankingResult, rank
from geceval.progress import StderrProgress

_SUFFIXES = {".csv": "wmt-csv", ".xml": "appraise-xml", ".jsonl": "jsonl"}
RANK_FORMATS = (*FORMATS, "mturk-csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="judgments file")
    parser.add_argument("--format", choices=RANK_FORMATS, help="input format (default: from the file suffix)")
    parser.add_argument("--method", choices=METHODS, default="trueskill", help="ranker (default trueskill)")
    parser.add_argument("--runs", type=int, default=1000, help="TrueSkill runs or bootstrap samples (1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed, >= 0 (0)")
    parser.add_argument(
        "--exclude-judge",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out this annotator's judgments (repeatable)",
    )
    parser.add_argument(
        "--include-rejected", action="store_true", help="mturk-csv: keep rejected assignments"
    )
    parser.add_argument(
        "--mapping", metavar="JSON", help="mturk-csv: column mapping, for a layout that cannot be detected"
    )
    parser.add_argument(
        "--src-id-base",
        type=int,
        choices=SRC_ID_BASES,
        help="appraise-xml items with src-id: sentence = src-id - BASE (default: 0 when an item has src-id 0)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes to split the runs over (1)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _format_of(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    for suffix, fmt in _SUFFIXES.items():
        if display_name(args.file).lower().endswith(suffix):
            return fmt
    raise SystemExit(f"error: cannot tell the format of {args.file}; give --format {'|'.join(RANK_FORMATS)}")


def read_judgments(args: argparse.Namespace) -> list[RankingJudgment]:
    """The k-way rankings of the file (``prepare_rankings`` turns them into pairs)."""
    fmt = _format_of(args)
    if fmt != "mturk-csv":
        if args.include_rejected or args.mapping:
            raise GecInputError("--include-rejected and --mapping apply to --format mturk-csv only")
        rankings, key = read_rankings_keyed(
            args.file, fmt, exclude_judges=args.exclude_judge, src_id_base=args.src_id_base
        )
        if key is not None:
            print(key.describe(), file=sys.stderr)
        return rankings
    if args.src_id_base is not None:
        raise GecInputError("--src-id-base applies to appraise-xml judgments only, not mturk-csv")
    mapping = None
    if args.mapping:
        try:
            with open(args.mapping, encoding="utf-8") as handle:
                mapping = json.load(handle)
        except (OSError, ValueError) as exc:
            raise GecInputError(f"cannot read the mapping: {exc}", path=args.mapping) from None
    opened = read_input(args.file)
    batch = parse_mturk_csv(
        opened.data, name=opened.name, mapping=mapping, include_rejected=args.include_rejected
    )
    excluded = set(args.exclude_judge)
    batch.judgments = [j for j in batch.judgments if j.worker not in excluded]
    return rankings_of(batch)


def format_table(result: RankingResult) -> str:
    """The reference-style table: rank range, score and system, a rule between clusters."""
    score = "mu" if result.method == "trueskill" else "exp.wins"
    width = max([len(s.name) for s in result.systems] + [6])
    header = f"{'#':>3}  {'range':<7}  {score:>8}  {'system':<{width}}"
    rule = "-" * len(header)
    header = header.rstrip()
    lines = [
        f"{result.method}: {result.judgments} pairwise judgments, {result.runs} runs, seed {result.seed}",
        header,
    ]
    previous = None
    for s in result.systems:
        if previous is not None and s.cluster != previous:
            lines.append(rule)
        previous = s.cluster
        lo, hi = s.rank_range
        lines.append(f"{s.cluster:>3}  {f'{lo}-{hi}':<7}  {s.mu:>8.3f}  {s.name:<{width}}".rstrip())
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.runs < 1:
        print("error: --runs must be at least 1", file=sys.stderr)
        return 2
    if args.seed < 0:
        print("error: --seed must be >= 0", file=sys.stderr)
        return 2
    rankings = read_judgments(args)  # a GecInputError is printed by geceval.cli
    try:
        data = prepare_rankings(rankings)
    except ValueError:
        print(f"error: {args.file}: no pairwise judgments", file=sys.stderr)
        return 2
    if args.workers > 1:
        label = f"{args.method} runs"
    else:
        label = "trueskill iterations" if args.method == "trueskill" else "bootstrap samples"
    result = rank(
        data,
        method=args.method,
        runs=args.runs,
        seed=args.seed,
        workers=args.workers,
        progress=StderrProgress(label),
    )
    if args.json:
        print(json.dumps(result.to_json(), indent=1))
    else:
        print(format_table(result))
    return 0
