"""``python -m geceval agreement FILE --format wmt-csv|appraise-xml|jsonl|mturk-csv [--groups JSON] [--src-id-base 0|1]
[--unit systems|shown] [--include-rejected] [--mapping JSON]``.

``--format mturk-csv`` reads an MTurk batch results CSV as ``rank --format mturk-csv`` does
(``geceval.formats.mturk``: the same layout detection; rejected assignments left out unless
``--include-rejected``), e.g. reassess-gec's ``inter_annotator_agreements/Ctrl_merged.csv``, the
non-experts' judgments of Sakaguchi et al. 2016 Table 7. ``--unit shown`` labels pairs of candidates
as shown (a candidate standing for several systems with identical outputs stays one), as
Grundkiewicz et al.'s ``agreement.pl`` and Sakaguchi et al.'s Table 7; ``systems`` (the default)
expands them into systems first (``geceval.human.agreement``).

Appraise items are named as ``geceval.formats.judgments.appraise_item_key`` says (printed on stderr): two
annotators agree or not on the same sentence, which ``src-id`` names when the items carry it.

Cohen's kappa and quadratic-weighted kappa of the pairwise judgments (labels
< = >) between annotators, on the pairs both judged (see
``geceval.human.agreement``). Without ``--groups``: one pooled row over all
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

from geceval.cli.output import fmt, print_json
from geceval.cli.rank import read_judgments
from geceval.errors import GecInputError
from geceval.formats.appraise_items import SRC_ID_BASES
from geceval.formats.judgments import expand_pairwise
from geceval.human import agreement

FORMATS = ("wmt-csv", "appraise-xml", "jsonl", "mturk-csv")


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
    parser.add_argument(
        "--unit",
        choices=("systems", "shown"),
        default="systems",
        help="label pairs of systems (collapsed candidates expanded) or of candidates as shown",
    )
    parser.add_argument(
        "--include-rejected", action="store_true", help="mturk-csv: keep rejected assignments"
    )
    parser.add_argument("--mapping", metavar="JSON", help="mturk-csv: column mapping (as rank)")
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
    # the same reading as ``rank`` (its refusals of options that do not fit the format included)
    rankings = read_judgments(args)
    judgments = expand_pairwise(rankings)
    if args.unit == "shown":
        labels = agreement.shown_labels_by_annotator(rankings)
    else:
        labels = agreement.labels_by_annotator(judgments)
    annotators = sorted(labels)
    if groups:
        unknown = sorted({a for members in groups.values() for a in members} - set(annotators))
        if unknown:
            print(f"warning: annotators in --groups with no judgments: {', '.join(unknown)}", file=sys.stderr)
    rows = agreement.group_agreement_of_labels(labels, groups)
    pairs = agreement.annotator_pair_table_of_labels(labels)
    if args.json:
        print_json(
            {
                "judgments": len(judgments),
                "unit": args.unit,
                "labels": sum(len(v) for v in labels.values()),
                "annotators": annotators,
                "groups": [asdict(r) for r in rows],
                "pairs": [asdict(r) for r in pairs],
            }
        )
        return 0
    print(
        f"{len(judgments)} pairwise judgments, {len(annotators)} annotators, "
        f"{sum(len(v) for v in labels.values())} labels of {args.unit} pairs"
    )
    print(f"{'':<30} {'kappa':>7} {'w-kappa':>7} {'n':>7} {'pairs':>5}")
    for r in [*rows, None, *pairs]:
        if r is None:
            print()
            continue
        print(
            f"{r.name:<30} {fmt(r.kappa, 3):>7} {fmt(r.weighted_kappa, 3):>7} {r.n:>7} {r.annotator_pairs:>5}"
        )
    return 0
