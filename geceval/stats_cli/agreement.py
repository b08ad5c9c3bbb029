"""``python -m geceval agreement FILE --format wmt-csv|appraise-xml|jsonl [--groups JSON] [--src-id-base 0|1]``.

Appraise items are named as ``geceval.judgments.appraise_item_key`` says (printed on stderr): two
annotators agree or not on the same sentence, which ``src-id`` names when the items carry it.

Cohen's kappa and quadratic-weighted kappa of the pairwise judgments (labels
< = >) between annotators, on the pairs both judged (see
``geceval.agreement``). Without ``--groups``: one pooled row over all
annotator pairs, plus a row per annotator pair. ``--groups`` is a JSON object
(inline or a path to a file) mapping a group name to its annotators, e.g.
``{"expert": ["annot1", "annot2"], "crowd": ["w1", "w2"]}``: a row within
each group and between each two groups.

``--json`` prints ``{"judgments": <pairwise judgments read>, "annotators":
[...], "groups": [{"name", "kappa", "weighted_kappa", "n", "annotator_pairs",
"mean_pair_kappa"}, ...], "pairs": [same fields, one per annotator pair]}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict

from geceval import agreement
from geceval.appraise_items import SRC_ID_BASES
from geceval.errors import GecInputError
from geceval.judgments import expand_pairwise, read_rankings_keyed
from geceval.stats_cli import fmt, print_json

FORMATS = ("wmt-csv", "appraise-xml", "jsonl")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="judgments file")
    parser.add_argument("--format", choices=FORMATS, required=True)
    parser.add_argument("--groups", help='JSON object {"group": ["annotator", ...]} or a path to one')
    parser.add_argument("--exclude-judge", nargs="*", default=[], metavar="NAME")
    parser.add_argument(
        "--src-id-base",
        type=int,
        choices=SRC_ID_BASES,
        help="appraise-xml items with src-id: sentence = src-id - BASE (default: 0 when an item has src-id 0)",
    )
    parser.add_argument("--json", action="store_true")


def _groups(text: str | None) -> dict[str, list[str]] | None:
    if not text:
        return None
    source = "--groups"
    if os.path.exists(text):
        source = text
        with open(text, encoding="utf-8") as fh:
            text = fh.read()
    try:
        groups = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GecInputError(f"not valid JSON ({exc.msg})", path=source, line=exc.lineno) from None
    if not isinstance(groups, dict) or not all(
        isinstance(v, list) and all(isinstance(a, str) for a in v) for v in groups.values()
    ):
        raise GecInputError('groups must be an object {"name": ["annotator", ...]}', path=source)
    return groups


def run(args: argparse.Namespace) -> int:
    groups = _groups(args.groups)
    rankings, key = read_rankings_keyed(
        args.file, args.format, exclude_judges=args.exclude_judge, src_id_base=args.src_id_base
    )
    if key is not None:
        print(key.describe(), file=sys.stderr)
    judgments = expand_pairwise(rankings)
    annotators = sorted({j.annotator for j in judgments})
    if groups:
        unknown = sorted({a for members in groups.values() for a in members} - set(annotators))
        if unknown:
            print(f"warning: annotators in --groups with no judgments: {', '.join(unknown)}", file=sys.stderr)
    rows = agreement.group_agreement(judgments, groups)
    pairs = agreement.annotator_pair_table(judgments)
    if args.json:
        print_json(
            {
                "judgments": len(judgments),
                "annotators": annotators,
                "groups": [asdict(r) for r in rows],
                "pairs": [asdict(r) for r in pairs],
            }
        )
        return 0
    print(f"{len(judgments)} pairwise judgments, {len(annotators)} annotators")
    print(f"{'':<30} {'kappa':>7} {'w-kappa':>7} {'n':>7} {'pairs':>5}")
    for r in [*rows, None, *pairs]:
        if r is None:
            print()
            continue
        print(
            f"{r.name:<30} {fmt(r.kappa, 3):>7} {fmt(r.weighted_kappa, 3):>7} {r.n:>7} {r.annotator_pairs:>5}"
        )
    return 0
