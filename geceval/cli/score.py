"""``python -m geceval score METRIC --source F --refs F [F ...] --hyp F [F ...] [--json]``.

Every metric is a :class:`geceval.metrics.base.Metric` class; this module builds the flags from
their parameters (a default lives on its class only), refuses a flag the chosen metric does not
read, asks the metric to score the files and prints. A result dict is
``{"hyp": path, "metric": name, "score": number, ...the metric's own fields,
"metric_signature": "metric:...|nrefs:...|..."}``; with ``--sentence`` it also holds
``"sentences": [...]``; ``--json`` adds what produced it (variant, versions, parameters).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import geceval
from geceval import cache
from geceval.errors import GecInputError
from geceval.formats.inputs import read_input
from geceval.formats.ixml import read_ixml
from geceval.metrics import METRICS
from geceval.metrics.base import Metric, Parameter, package_version


def _options() -> dict[str, tuple[Parameter, list[str]]]:
    """Each parameter of any metric (first declaration wins its flag and help), with the metrics
    that read it."""
    out: dict[str, tuple[Parameter, list[str]]] = {}
    for name, cls in METRICS.items():
        for p in cls.parameters:
            out.setdefault(p.name, (p, []))[1].append(name)
    return out


def _help(p: Parameter, readers: list[str]) -> str:
    defaults: dict[str, list[str]] = {}
    for name in readers:
        (own,) = [q for q in METRICS[name].parameters if q.name == p.name]
        defaults.setdefault(str(own.default), []).append(name)
    if p.type is None or (p.choices is not None and len(defaults) == 1):
        return p.help
    listed = "; ".join("/".join(names) + f" {d}" for d, names in defaults.items())
    return f"{p.help} (default {listed})"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "metric",
        type=_metric_names,
        metavar="METRIC[,METRIC...]",
        help=", ".join(METRICS) + "; several, comma-separated, score every system with each (a shared task)",
    )
    parser.add_argument("--source", help="source file (one sentence a line)")
    parser.add_argument(
        "--refs", nargs="+", required=True, help="reference text files, or one M2 / I-measure XML file"
    )
    parser.add_argument("--hyp", nargs="+", required=True, help="system output files, or folders of them")
    for p, readers in _options().values():
        if p.type is None:
            parser.add_argument(p.cli_flag, dest=p.name, action="store_true", help=p.help)
        else:
            # None when not given: the metric's own default applies, and another metric refuses it
            parser.add_argument(
                p.cli_flag, dest=p.name, type=p.type, choices=p.choices, default=None, help=_help(p, readers)
            )
    parser.add_argument("--sentence", action="store_true", help="add per-sentence scores")
    table = parser.add_mutually_exclusive_group()
    table.add_argument("--json", action="store_true", help="print JSON instead of a table")
    table.add_argument("--csv", action="store_true", help="print CSV: a row a system and metric")
    table.add_argument("--latex", action="store_true", help="print the table as a LaTeX tabular")
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the cache in $GECEVAL_CACHE"
    )


def _metric_names(text: str) -> str | list[str]:
    """One metric's name as it was, or the list of several (``geceval.cli.shared_task``)."""
    return text if "," not in text and text in METRICS else metric_names(text)


def metric_names(text: str) -> list[str]:
    """``m2,gleu`` -> ["m2", "gleu"]; an unknown or repeated name is refused."""
    names = [n.strip() for n in text.split(",")]
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown metric {', '.join(map(repr, unknown))} (choose from {', '.join(METRICS)})"
        )
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"a metric is named twice in {text!r}")
    return names


def hypothesis_files(paths: list[str]) -> list[str]:
    """``--hyp`` with each folder replaced by the files in it (sorted, hidden files left out)."""
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            inside = sorted(e.path for e in os.scandir(path) if e.is_file() and not e.name.startswith("."))
            if not inside:
                raise GecInputError("this folder holds no system output", path=path)
            out += inside
        else:
            out.append(path)
    return out


def refuse_unread(args: argparse.Namespace) -> None:
    """An option the metric does not read is refused, never dropped (issue 34)."""
    cls = METRICS[args.metric]
    own = {p.name for p in cls.parameters}
    unread = [
        p.cli_flag
        for p, _ in _options().values()
        if p.name not in own and getattr(args, p.name) not in (None, False)
    ]
    if args.sentence and not cls.offers_sentences:
        unread.append("--sentence")
    if args.source is not None and not cls.reads_source:
        unread.append("--source")
    if unread:
        raise GecInputError(f"{', '.join(unread)}: not used by {args.metric}; leave it out")


def metric_of(args: argparse.Namespace) -> Metric:
    """The metric object the command line asks for: its flags given, its own defaults otherwise."""
    cls = METRICS[args.metric]
    return cls(**{p.name: getattr(args, p.name) for p in cls.parameters if getattr(args, p.name) is not None})


def reference_count(refs: list[str]) -> int:
    """How many references ``--refs`` gives: its files, or the annotators of one M2 / XML file."""
    if len(refs) != 1:
        return len(refs)
    text = read_input(refs[0]).data.decode("utf-8", errors="replace")  # gzip or not
    head = text.lstrip()[:1]
    if head == "<":
        return max(1, *(sentence.num_annotators for sentence in read_ixml(refs[0])))
    annotators = {line.rsplit("|||", 1)[-1].strip() for line in text.splitlines() if line.startswith("A ")}
    return max(1, len(annotators)) if head == "S" else 1


def references_of(name: str, refs: list[str]) -> list[str]:
    """The files of ``--refs`` one metric reads: all of them when they hold one gold format; when
    they mix formats (the shared task's M2, XML and text references), those of the first format in
    the metric's ``gold_formats``, as a multi-metric run chooses them."""
    if len(refs) == 1:
        return refs
    from geceval.cli import shared_task  # lazy: shared_task builds on this module

    if len({shared_task.gold_format(path) for path in refs}) == 1:
        return refs
    return shared_task.metric_refs(METRICS[name], shared_task.references_for(refs))


def run(args: argparse.Namespace) -> int:
    if args.no_cache:
        cache.configure(enabled=False)
    if isinstance(args.metric, list) or args.csv or args.latex:
        # lazy: shared_task builds on this module's helpers, so it cannot be imported at its top
        from geceval.cli import shared_task

        return shared_task.run(args)
    if args.variant is not None and args.metric != "gleu":
        raise GecInputError("--variant applies to gleu only")
    refuse_unread(args)
    metric = metric_of(args)
    hyps = hypothesis_files(list(args.hyp))
    refs = references_of(args.metric, list(args.refs))
    results = metric.score_files(refs=refs, hyps=hyps, source=args.source, sentence=args.sentence)
    signature = str(metric.signature(reference_count(refs)))
    for row in results:
        row["metric_signature"] = signature
    if args.json:
        stamp = provenance(metric)
        for row in results:
            for key, value in stamp.items():
                row.setdefault(key, value)
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(results)
    return 0


def _python_version() -> str:
    return sys.version.split()[0]


def provenance(metric: Metric) -> dict[str, Any]:
    """What produced a score: variant, parameters, and the versions of geceval, Python and the
    libraries (and spaCy model) the metric uses; a metric's own fields take precedence."""
    versions = {"geceval": geceval.__version__, "python": _python_version()}
    packages = metric.uses_packages()
    for package in packages:
        versions[package] = package_version(package)
    out: dict[str, Any] = {"variant": metric.name, "versions": versions}
    if packages and metric.model is not None:
        out["model"] = metric.model
    out["parameters"] = metric.provenance_parameters()
    return out


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in d.items():
        if key in ("hyp", "metric", "sentences"):
            continue
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        elif isinstance(value, list | tuple) and all(isinstance(v, int | float) for v in value):
            out[prefix + key] = "[" + ", ".join(_fmt(v) for v in value) + "]"
        elif not isinstance(value, list | tuple):
            out[prefix + key] = value
    return out


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6f}" if abs(v) < 1000 else f"{v:.1f}"
    return str(v)


def print_table(results: list[dict[str, Any]]) -> None:
    rows = [{"hyp": r["hyp"], **_flatten(r)} for r in results]
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    cells = [[_fmt(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for r in cells:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
    for r in results:
        for i, s in enumerate(r.get("sentences", []), start=1):
            print(f"{r['hyp']}\t{i}\t{json.dumps(s)}")
