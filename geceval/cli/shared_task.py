"""``python -m geceval score METRIC,METRIC... --refs FILES... --hyp FILES_OR_FOLDER...``: a shared task.

Every system output is scored with every metric in one process. ``--refs`` may mix the gold
formats the metrics read: an M2 file, an I-measure XML file and text references; each metric takes
the first format in its :meth:`~geceval.metrics.base.Metric.gold_formats` that ``--refs`` holds
(M2 for m2/sentm2/errant, the XML for imeasure, text for gleu/bleu/chrf). Inside
:func:`~geceval.formats.once.reading_once` the source, the references and every output are parsed
once for all the metrics. One table: text (systems by metrics, then each metric's signature),
``--json`` (the rows ``score METRIC --json`` prints, every metric's together), ``--csv`` (one row
a system and metric) or ``--latex`` (the text table as a tabular, signatures as comments).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from typing import Any

from geceval.cli import score as single
from geceval.cli.output import clean, fmt, print_json
from geceval.errors import GecInputError
from geceval.formats.inputs import read_input
from geceval.formats.once import reading_once
from geceval.metrics import METRICS
from geceval.metrics.base import Metric


def gold_format(path: str) -> str:
    """ "m2" (its first line is an S line), "ixml" (it opens with ``<``) or "text"."""
    head = read_input(path).data[:4096].lstrip()  # gzip or not
    if head.startswith(b"<"):
        return "ixml"
    return "m2" if head.startswith((b"S ", b"S\n")) else "text"


def references_for(refs: list[str]) -> dict[str, list[str]]:
    by_format: dict[str, list[str]] = {}
    for path in refs:
        by_format.setdefault(gold_format(path), []).append(path)
    for fmt_name in ("m2", "ixml"):
        if len(by_format.get(fmt_name, [])) > 1:
            raise GecInputError(f"give one {fmt_name} gold file, not {len(by_format[fmt_name])}")
    return by_format


def metric_refs(cls: type[Metric], by_format: dict[str, list[str]]) -> list[str]:
    for fmt_name in cls.gold_formats():
        if by_format.get(fmt_name):
            return by_format[fmt_name]
    wants = " or ".join(cls.gold_formats())
    raise GecInputError(f"{cls.name} reads {wants} references; --refs holds none")


def refuse_unread(args: argparse.Namespace, names: list[str]) -> None:
    """A flag none of the chosen metrics reads is refused, as ``score METRIC`` refuses it."""
    own = {p.name for name in names for p in METRICS[name].parameters}
    unread = [
        p.cli_flag
        for p, _ in single._options().values()
        if p.name not in own and getattr(args, p.name) not in (None, False)
    ]
    if args.sentence:
        unread.append("--sentence (score one metric at a time for per-sentence scores)")
    if args.source is not None and not any(METRICS[name].reads_source for name in names):
        unread.append("--source")
    if unread:
        raise GecInputError(f"{', '.join(unread)}: not used by {', '.join(names)}; leave it out")


def score_all(args: argparse.Namespace, names: list[str], hyps: list[str]) -> list[dict[str, Any]]:
    """Every system with every metric: the rows ``score METRIC --json`` prints, metric by metric."""
    by_format = references_for(list(args.refs))
    rows: list[dict[str, Any]] = []
    with reading_once():
        for name in names:
            cls = METRICS[name]
            refs = metric_refs(cls, by_format)
            metric = single.metric_of(argparse.Namespace(**{**vars(args), "metric": name}))
            source = args.source if cls.reads_source else None
            results = metric.score_files(refs=refs, hyps=hyps, source=source)
            signature = str(metric.signature(single.reference_count(refs)))
            stamp = single.provenance(metric)
            for row in results:
                row["metric_signature"] = signature
                for key, value in stamp.items():
                    row.setdefault(key, value)
            rows += results
    return rows


def run(args: argparse.Namespace) -> int:
    names = [args.metric] if isinstance(args.metric, str) else list(args.metric)
    refuse_unread(args, names)
    rows = score_all(args, names, single.hypothesis_files(list(args.hyp)))
    if args.json:
        print_json(rows)
    elif args.csv:
        print_csv(rows)
    elif args.latex:
        print_latex(rows, names)
    else:
        print_text(rows, names)
    return 0


def _systems(rows: list[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(row["hyp"] for row in rows))


def _labels(systems: list[str]) -> dict[str, str]:
    """Each system by its file name, or by its path where two outputs share a file name."""
    names = [os.path.basename(s) for s in systems]
    return {s: n if names.count(n) == 1 else s for s, n in zip(systems, names)}


def _grid(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    return {(row["hyp"], row["metric"]): row["score"] for row in rows}


def _signatures(rows: list[dict[str, Any]], names: list[str]) -> list[tuple[str, str]]:
    first = {row["metric"]: row["metric_signature"] for row in reversed(rows)}
    return [(name, first[name]) for name in names]


def print_text(rows: list[dict[str, Any]], names: list[str]) -> None:
    systems, grid = _systems(rows), _grid(rows)
    labels = _labels(systems)
    cells = [["system", *names]] + [[labels[s], *(fmt(grid[s, n], 6) for n in names)] for s in systems]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    for r in cells:
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths))))
    print()
    for name, signature in _signatures(rows, names):
        print(f"{name}: {signature}")


def print_csv(rows: list[dict[str, Any]]) -> None:
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["hyp", "metric", "score", "metric_signature"])
    for row in rows:
        score = clean(row["score"])
        out.writerow(
            [row["hyp"], row["metric"], "" if score is None else repr(score), row["metric_signature"]]
        )


_TEX = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_TEX |= {char: "\\" + char for char in "&%$#_{}"}


def _tex(text: str) -> str:
    return "".join(_TEX.get(char, char) for char in text)


def print_latex(rows: list[dict[str, Any]], names: list[str]) -> None:
    systems, grid = _systems(rows), _grid(rows)
    labels = _labels(systems)
    print(r"\begin{tabular}{l" + "r" * len(names) + "}")
    print(r"\hline")
    print(" & ".join(["System", *(_tex(n) for n in names)]) + r" \\")
    print(r"\hline")
    for s in systems:
        print(" & ".join([_tex(labels[s]), *(fmt(grid[s, n], 4) for n in names)]) + r" \\")
    print(r"\hline")
    print(r"\end{tabular}")
    for name, signature in _signatures(rows, names):
        print(f"% {name}: {signature}")
