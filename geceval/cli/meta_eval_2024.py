"""The 2024 meta-evaluation modes of ``python -m geceval meta-eval`` (:mod:`geceval.metaeval.kobayashi2024`).

System level (with ``--metric-scores`` and ``--human-scores``)::

    meta-eval --metric-scores M1 M2 --human-scores H [--tags FILE | --tag SYS=TAG+TAG ...]
              [--subset classic classic+input ... all+input] [--window [K]] [--json]

Pearson and Spearman per subset (default: all six when systems are tagged, else ``all+input``),
the Williams test between each pair of metrics per subset (one-sided, reported in the direction
of the better Pearson r), and with ``--window`` (K default 4) the window analysis over the first
subset named. ``--exclude`` still applies on top of the subsets.

Sentence level::

    meta-eval --sentence-level --judgments all_judgments.xml
              [--metric-sentence-scores FILE ...]
              [--outputs DIR --metrics m2 errant ... --gold GOLD.m2 --source SRC --refs R0 R1]
              [--alias src=INPUT] [--subset ...] [--tags ...] [--json]

WMT Kendall tau variant and pairwise accuracy (:func:`geceval.metaeval.correlation.sentence_agreement`) over
the pairs of outputs of one sentence that a person ranked differently. Scores come from files
(any metric, :func:`geceval.metaeval.kobayashi2024.read_sentence_scores`) or are computed for our
metrics on the judged sentences (``--outputs DIR``: one file per system, named as the system;
``--alias JUDGED=FILE`` when the judgments name a system differently, e.g. ``src=INPUT``).
Items are 0-based sentence indices: an Appraise file's ``src-id`` minus its base when the items
carry ``src-id`` (``--src-id-base 0|1``, else detected: 0 when an item has ``src-id="0"``, 1 when
an item has the corpus' line count, from ``--source`` or the outputs; otherwise refused), else its
``id`` (the CoNLL-14 file of gec-ranking); the command prints which (``items`` in ``--json``).
Fewer than 90% of the judged pairs finding both scores is refused (``--allow-missing``).
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import asdict
from itertools import permutations
from typing import Any

import numpy as np
from scipy import stats

from geceval.cli.output import fmt, print_json
from geceval.errors import GecInputError
from geceval.formats import joins
from geceval.formats.appraise_items import SRC_ID_BASES
from geceval.metaeval import correlation as metaeval
from geceval.metaeval import kobayashi2024 as m24


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tags", metavar="FILE", help="system tags: SYSTEM,TAG[+TAG] lines or JSON")
    parser.add_argument("--tag", action="append", default=[], metavar="SYS=TAG[+TAG]", help="tag a system")
    parser.add_argument("--subset", nargs="+", metavar="NAME", help=", ".join(m24.SUBSETS))
    parser.add_argument(
        "--window", nargs="?", type=int, const=m24.DEFAULT_WINDOW, metavar="K", help="window analysis (K=4)"
    )
    parser.add_argument("--sentence-level", action="store_true", help="tau and accuracy on sentence rankings")
    parser.add_argument("--judgments", metavar="FILE", help="sentence-level rankings (Appraise XML, ...)")
    parser.add_argument(
        "--judgments-format", default="appraise-xml", choices=["appraise-xml", "wmt-csv", "jsonl"]
    )
    parser.add_argument(
        "--src-id-base",
        type=int,
        choices=SRC_ID_BASES,
        help="Appraise XML items with src-id: sentence = src-id - BASE (default: detected, see the docs)",
    )
    parser.add_argument("--exclude-judges", nargs="*", default=[], metavar="NAME")
    parser.add_argument("--metric-sentence-scores", nargs="+", metavar="FILE", default=[])
    parser.add_argument("--outputs", metavar="DIR", help="system outputs, one file per system")
    parser.add_argument("--gold", metavar="M2", help="gold M2 (m2, errant, gotoscorer)")
    parser.add_argument("--source", metavar="FILE", help="source (gleu, bleu, chrf)")
    parser.add_argument("--refs", nargs="+", metavar="FILE", help="text references (gleu, bleu, chrf)")
    parser.add_argument("--alias", action="append", default=[], metavar="JUDGED=FILE")


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.sentence_level or args.subset or args.window or args.tags or args.tag)


def _tags(args: argparse.Namespace) -> dict[str, frozenset[str]]:
    tags: dict[str, frozenset[str]] = {}
    if args.tags:
        with open(args.tags, encoding="utf-8") as fh:
            tags.update(m24.parse_tags(fh.read(), where=args.tags))
    if args.tag:
        tags.update(m24.parse_tags("\n".join(t.replace("=", ",", 1) for t in args.tag), where="--tag"))
    return tags


def _subsets(args: argparse.Namespace, tags: dict[str, frozenset[str]]) -> list[str]:
    names = args.subset or (list(m24.SUBSETS) if tags else ["all+input"])
    for name in names:
        if name not in m24.SUBSETS:
            raise GecInputError(f"unknown subset {name!r}; choose from {', '.join(m24.SUBSETS)}")
    return names


def _williams(
    metrics: dict[str, dict[str, float]], human: dict[str, float], systems: list[str]
) -> list[dict]:
    out = []
    for (p1, m1), (p2, m2) in permutations(metrics.items(), 2):
        common = [s for s in systems if s in m1 and s in m2 and s in human]
        if len(common) <= 3:
            continue
        h, a, b = (np.array([d[s] for s in common]) for d in (human, m1, m2))
        if min(np.ptp(h), np.ptp(a), np.ptp(b)) == 0:
            continue
        if stats.pearsonr(h, a)[0] <= stats.pearsonr(h, b)[0]:
            continue
        w = metaeval.williams_from_scores(h, a, b)
        out.append({"metric1": p1, "metric2": p2, "t": w.t, "df": w.df, "p": w.p})
    return out


def run(args: argparse.Namespace) -> int:
    if args.sentence_level:
        return _run_sentence(args)
    if not args.metric_scores or not args.human_scores:
        raise GecInputError("give --metric-scores and --human-scores (or --sentence-level --judgments FILE)")
    tags = _tags(args)
    subsets = _subsets(args, tags)
    human = m24.read_system_scores(args.human_scores)
    metrics = {path: m24.read_system_scores(path) for path in args.metric_scores}
    share = joins.min_share(args.allow_missing)
    for path, scores in metrics.items():
        joins.require_share(
            joins.system_join(human, scores, exclude=args.exclude), min_share=share, where=path
        )
    exclude = [e.lower() for e in args.exclude]
    everyone = sorted(set(human).union(*metrics.values()))
    report: dict[str, Any] = {
        "human_scores": args.human_scores,
        "tags": {k: sorted(v) for k, v in tags.items()},
    }
    report["subsets"] = {}
    for name in subsets:
        members = [s for s in m24.subset_members(name, everyone, tags) if s.lower() not in exclude]
        rows = [
            {
                "metric": path,
                **asdict(m24.subset_correlations(scores, human, tags, name, exclude=args.exclude)),
            }
            for path, scores in metrics.items()
        ]
        report["subsets"][name] = {
            "systems": members,
            "metrics": rows,
            "williams": _williams(metrics, human, members),
        }
    if args.window:
        first = subsets[0]
        members = report["subsets"][first]["systems"]
        report["window"] = {
            "k": args.window,
            "subset": first,
            "order": m24.human_order(human, [s for s in members if s in human]),
            "metrics": {
                path: [asdict(w) for w in m24.window_correlations(scores, human, members, args.window)]
                for path, scores in metrics.items()
            },
        }
    if args.json:
        print_json(report)
        return 0
    _print_system(report)
    return 0


def _print_system(report: dict[str, Any]) -> None:
    print(f"human scores: {report['human_scores']}")
    for name, sub in report["subsets"].items():
        print(f"\n[{name}] {len(sub['systems'])} systems: {', '.join(sub['systems']) or 'none'}")
        print(f"  {'metric':<40} {'n':>3} {'pearson':>8} {'spearman':>8}")
        for row in sub["metrics"]:
            print(f"  {row['metric']:<40} {row['n']:>3} {fmt(row['pearson']):>8} {fmt(row['spearman']):>8}")
        for w in sub["williams"]:
            star = " *" if not math.isnan(w["p"]) and w["p"] < 0.05 else ""
            print(
                f"  Williams: {w['metric1']} > {w['metric2']}: t({w['df']}) = {w['t']:.3f}, p = {w['p']:.4g}{star}"
            )
    if "window" in report:
        win = report["window"]
        print(
            f"\nwindow analysis, k = {win['k']}, over [{win['subset']}] in human order: {', '.join(win['order'])}"
        )
        for path, rows in win["metrics"].items():
            cells = " ".join(f"{r['start']}:{fmt(r['pearson'], 2)}/{fmt(r['spearman'], 2)}" for r in rows)
            print(f"  {path}: (start: pearson/spearman) {cells}")


# --------------------------------------------------------------------------- sentence level


def _aliases(args: argparse.Namespace) -> dict[str, str]:
    out = {}
    for text in args.alias:
        judged, sep, name = text.partition("=")
        if not sep or not judged or not name:
            raise GecInputError(f"--alias {text!r}: expected JUDGED=FILE, e.g. src=INPUT")
        out[name] = judged
    return out


def _read_outputs(args: argparse.Namespace) -> dict[str, list[str]]:
    from geceval.formats.text import read_lines  # lazy: the scores-file path reads no outputs

    if not os.path.isdir(args.outputs):
        raise GecInputError(f"{args.outputs}: not a directory of system outputs")
    aliases = _aliases(args)
    outputs = {}
    for name in sorted(os.listdir(args.outputs)):
        path = os.path.join(args.outputs, name)
        if os.path.isfile(path) and not name.startswith("."):
            outputs[aliases.get(name, name)] = read_lines(path, allow_empty=True)
    return outputs


def _corpus_lines(args: argparse.Namespace, outputs: dict[str, list[str]] | None) -> int | None:
    """The corpus' line count (to detect a 1-based src-id): the source's, else the outputs' when
    they agree; None without either."""
    from geceval.formats.text import read_lines  # lazy: as above

    if args.source:
        return len(read_lines(args.source, allow_empty=True))
    counts = {len(lines) for lines in (outputs or {}).values()}
    return counts.pop() if len(counts) == 1 else None


def _computed_scores(
    args: argparse.Namespace, items: list[int], outputs: dict[str, list[str]]
) -> dict[str, dict[str, dict[str, float]]]:
    # lazy: the scorers (ERRANT, sacrebleu) load only when sentences are to be scored here
    from geceval.formats.m2 import read_m2  # lazy: as above
    from geceval.formats.text import read_lines  # lazy: as above
    from geceval.metaeval.sentence_scores import (  # lazy: as above
        NEEDS_GOLD,
        SENTENCE_METRICS,
        sentence_level_scores,
    )

    metrics = args.metrics or list(SENTENCE_METRICS)
    gold = read_m2(args.gold) if args.gold and any(m in NEEDS_GOLD for m in metrics) else None
    source = read_lines(args.source) if args.source else None
    refs = [read_lines(r, allow_empty=True) for r in args.refs] if args.refs else None
    return {
        m: sentence_level_scores(m, items, outputs, source=source, references=refs, gold=gold)
        for m in metrics
    }


def _run_sentence(args: argparse.Namespace) -> int:
    # lazy: the system-level path reads no judgments
    from geceval.formats.judgments import expand_pairwise, read_rankings_keyed

    if not args.judgments:
        raise GecInputError("--sentence-level needs --judgments FILE (sentence-level rankings)")
    if not args.metric_sentence_scores and not args.outputs:
        raise GecInputError("give --metric-sentence-scores FILE ... or --outputs DIR to score")
    outputs = _read_outputs(args) if args.outputs else None
    rankings, key = read_rankings_keyed(
        args.judgments,
        args.judgments_format,
        exclude_judges=args.exclude_judges,
        src_id_base=args.src_id_base,
        corpus_lines=_corpus_lines(args, outputs),
    )
    judgments = expand_pairwise(rankings)
    aliases = _aliases(args)
    metric_scores: dict[str, dict[str, dict[str, float]]] = {}
    for path in args.metric_sentence_scores:
        scores = m24.read_sentence_scores(path)
        metric_scores[path] = {aliases.get(s, s): v for s, v in scores.items()}
    if args.outputs:
        items = []
        for j in judgments:
            try:
                items.append(int(j.item))
            except ValueError:
                raise GecInputError(f"judgment item {j.item!r} is not a sentence index") from None
        metric_scores.update(_computed_scores(args, items, outputs or {}))
    tags = _tags(args)
    subsets = _subsets(args, tags)
    systems = sorted({j.sys1 for j in judgments} | {j.sys2 for j in judgments})
    share = joins.min_share(args.allow_missing)
    joined = {
        metric: joins.require_share(
            joins.pair_join(judgments, scores, exclude=args.exclude), min_share=share, where=metric
        )
        for metric, scores in metric_scores.items()
    }
    report: dict[str, Any] = {
        "judgments": args.judgments,
        "items": key.as_dict() if key is not None else None,
        "joined": {m: {"matched": c.matched, "total": c.total} for m, c in joined.items()},
        "subsets": {},
    }
    for name in subsets:
        members = m24.subset_members(name, systems, tags)
        chosen = m24.judgments_in(judgments, members)
        rows = [
            {"metric": metric, **asdict(metaeval.sentence_agreement(chosen, scores, exclude=args.exclude))}
            for metric, scores in metric_scores.items()
        ]
        report["subsets"][name] = {"systems": members, "metrics": rows}
    if args.json:
        print_json(report)
        return 0
    print(
        f"judgments: {args.judgments} ({len(judgments)} pairwise); excluded: {', '.join(args.exclude) or 'none'}"
    )
    if key is not None:
        print(key.describe())
    for metric, count in joined.items():
        print(f"{metric}: {count.describe()}")
    for name, sub in report["subsets"].items():
        print(f"\n[{name}] {len(sub['systems'])} systems")
        print(
            f"  {'metric':<40} {'tau':>7} {'acc':>7} {'C':>6} {'D':>6} {'m.ties':>6} {'h.ties':>6} {'missing':>7}"
        )
        for r in sub["metrics"]:
            print(
                f"  {r['metric']:<40} {fmt(r['tau']):>7} {fmt(r['accuracy']):>7} {r['concordant']:>6} "
                f"{r['discordant']:>6} {r['metric_ties']:>6} {r['human_ties']:>6} {r['missing']:>7}"
            )
    return 0
