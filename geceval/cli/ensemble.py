"""``python -m geceval ensemble train|predict``: the GMEG ensemble metric.

``ensemble train DIR [DIR ...] --out MODEL.json [--segment-scores CSV ...]
[--seed 0] [--folds 10] [--samples 1] [--proportions P ...] [--no-synthetic]
[--alpha 0.001] [--json]``
trains on GMEG-layout corpora (``DIR/source``, ``DIR/ref0..N``, one file per
system, ``DIR-segment-scores.csv`` beside ``DIR`` unless ``--segment-scores``
names one per DIR): real systems plus hybrid synthetic ones (9 mixes per pair
of systems, seeded), ridge regression, k-fold cross-validation. ``--json``
prints ``{"model": path, "features": [...], "n_real", "n_synthetic",
"cross_validation": {"folds", "seed", "pearson", "spearman", "pearson_real",
"spearman_real", "n", "n_real"}, "cross_corpus": {corpus: {"pearson",
"spearman", "n"}}}`` (cross_corpus: leave one corpus out, real systems of
the held-out corpus; empty with one corpus).

``ensemble predict --model MODEL.json --source SRC --refs REF [REF ...] HYP
[HYP ...] [--json]`` scores each system output; ``--json`` prints
``{"model": path, "scores": [{"hyp": path, "metric": "gmeg-ensemble",
"score": x}, ...]}``. The components' versions now are compared with those
the model was trained with; a difference is a warning on stderr.
"""

from __future__ import annotations

import argparse
import sys

from geceval.cli.output import fmt, print_json
from geceval.errors import GecInputError
from geceval.formats.text import read_lines
from geceval.metrics.ensemble import model as ensemble
from geceval.progress import StderrProgress


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="train|predict")
    tr = sub.add_parser("train", help="train on GMEG-layout corpora")
    tr.add_argument("dirs", nargs="+", metavar="DIR")
    tr.add_argument("--out", required=True, help="model JSON to write")
    tr.add_argument("--segment-scores", nargs="*", default=None, metavar="CSV", help="one per DIR")
    tr.add_argument("--seed", type=int, default=0, help="seed of the hybrid mixes and the CV folds")
    tr.add_argument("--folds", type=int, default=10)
    tr.add_argument("--samples", type=int, default=1, help="hybrids per pair and proportion")
    tr.add_argument(
        "--proportions",
        type=float,
        nargs="+",
        default=None,
        help="shares of the first system in a hybrid (default 0.1 .. 0.9)",
    )
    tr.add_argument("--no-synthetic", action="store_true", help="real systems only")
    tr.add_argument("--alpha", type=float, default=ensemble.ALPHA)
    tr.add_argument("--json", action="store_true")
    pr = sub.add_parser("predict", help="score system outputs with a trained model")
    pr.add_argument("hyps", nargs="+", metavar="HYP")
    pr.add_argument("--model", required=True)
    pr.add_argument("--source", required=True)
    pr.add_argument("--refs", nargs="+", required=True)
    pr.add_argument("--json", action="store_true")


def _components_of(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        component = name.split(":", 1)[0]
        if component not in out:
            out.append(component)
    return out


def run(args: argparse.Namespace) -> int:
    return _train(args) if args.action == "train" else _predict(args)


def _train(args: argparse.Namespace) -> int:
    if args.no_synthetic:
        # nothing is mixed without synthetic systems: these would be dropped (issue 34)
        unused = [f for f, v in (("--samples", args.samples != 1), ("--proportions", args.proportions)) if v]
        if unused:
            raise GecInputError(f"{', '.join(unused)}: not used with --no-synthetic; leave it out")
    if args.segment_scores is not None and len(args.segment_scores) != len(args.dirs):
        raise GecInputError("--segment-scores needs one CSV per DIR")
    rows: list[ensemble.TrainingRow] = []
    for i, directory in enumerate(args.dirs):
        csv_path = args.segment_scores[i] if args.segment_scores else None
        rows += ensemble.gmeg_training_rows(
            directory,
            segment_csv=csv_path,
            synthetic=not args.no_synthetic,
            proportions=args.proportions,
            samples=args.samples,
            seed=args.seed,
            progress=StderrProgress(f"features {directory}"),
        )
    components = ensemble.component_versions(_components_of(list(rows[0].features)))
    model, cv = ensemble.train(
        rows, alpha=args.alpha, folds=args.folds, seed=args.seed, components=components
    )
    model.save(args.out)
    if args.json:
        print_json(
            {
                "model": args.out,
                "features": model.features,
                "n_real": model.training["n_real"],
                "n_synthetic": model.training["n_synthetic"],
                "cross_validation": model.training["cross_validation"],
                "cross_corpus": model.training["cross_corpus"],
            }
        )
        return 0
    print(
        f"trained on {model.training['n_real']} real + {model.training['n_synthetic']} synthetic systems, "
        f"{len(model.features)} features -> {args.out}"
    )
    print(
        f"{cv.folds}-fold CV: Pearson {fmt(cv.pearson)} Spearman {fmt(cv.spearman)} (all); "
        f"Pearson {fmt(cv.pearson_real)} Spearman {fmt(cv.spearman_real)} (real systems)"
    )
    for corpus, c in model.training["cross_corpus"].items():
        print(
            f"trained without {corpus}: Pearson {fmt(c['pearson'])} Spearman {fmt(c['spearman'])} "
            f"on its {c['n']} real systems"
        )
    return 0


def _predict(args: argparse.Namespace) -> int:
    model = ensemble.EnsembleModel.load(args.model)
    components = _components_of(model.features)
    now = ensemble.component_versions(components)
    for package, version in model.components.items():
        if now.get(package, version) != version:
            print(
                f"warning: model trained with {package} {version}, now {now[package]}: features may differ",
                file=sys.stderr,
            )
    source = read_lines(args.source)
    refs = [read_lines(p, allow_empty=True) for p in args.refs]
    extractor = ensemble.ScorerFeatures(
        source, refs, components=components, progress=StderrProgress("annotating references")
    )
    if extractor.names != model.features:
        raise GecInputError("the model's features are not the ones this version extracts", path=args.model)
    scores = []
    for path in args.hyps:
        hyp = read_lines(path, allow_empty=True)
        if len(hyp) != len(source):
            raise GecInputError(f"has {len(hyp)} lines but the source has {len(source)}", path=path)
        scores.append({"hyp": path, "metric": "gmeg-ensemble", "score": model.predict(extractor(hyp))})
    if args.json:
        print_json({"model": args.model, "scores": scores})
        return 0
    for s in scores:
        print(f"{s['hyp']}\t{s['score']:.4f}")
    return 0
