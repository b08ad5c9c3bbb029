"""The GMEG ensemble metric (Napoles et al. 2019): ridge regression over other metrics' statistics.

GMEG trains a ridge regression (alpha 0.001) from corpus-level metric
statistics to system-level human (PRWS) scores, on real systems plus
synthetic ones made by hybrid super-sampling, and reports 73 features:
ERRANT per-category precision and recall, chrF P/R, M2 P/R, I-measure
statistics without F, GLEU and charGLEU. The paper does not list the 73, and
no count of the named groups from our scorers gives exactly 73; our list is
explicit instead (``feature_names``), and a saved model records it.

Features: see :mod:`geceval.metrics.ensemble.features` (75 by default, named in a saved model).

Target: the system's human score (mean of its segment means, on the scale of
the judgments). Cross-validation: ``folds``-fold, shuffled with ``seed``,
over all rows (real + synthetic); the out-of-fold predictions are correlated
with the human scores over all rows and over the real systems only. Because
a synthetic system shares sentences with its parents, CV over all rows is
optimistic; the real-only figure is the one to quote.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from geceval.errors import GecInputError
from geceval.formats.prws_csv import read_gmeg_segment_csv
from geceval.formats.text import read_lines
from geceval.human.hybrids import PROPORTIONS, hybrid_systems
from geceval.human.prws import system_means
from geceval.metrics.ensemble.features import (
    DEFAULT_COMPONENTS,
    IMEASURE_STATS,
    UNAVAILABLE_COMPONENTS,
    FeatureExtractor,
    FeatureFactory,
    ScorerFeatures,
    component_versions,
    feature_names,
)
from geceval.progress import ProgressFn, no_progress

ALPHA = 0.001
FORMAT = "geceval-gmeg-ensemble"
FORMAT_VERSION = 1

# --------------------------------------------------------------------------- model


@dataclass
class CrossValidation:
    folds: int
    seed: int
    pearson: float
    spearman: float
    pearson_real: float
    spearman_real: float
    n: int
    n_real: int


@dataclass
class EnsembleModel:
    features: list[str]
    coefficients: list[float]
    intercept: float
    alpha: float = ALPHA
    components: dict[str, str] = field(default_factory=dict)
    """Component -> version that produced the training features."""
    training: dict[str, Any] = field(default_factory=dict)

    def predict(self, features: Mapping[str, float]) -> float:
        missing = [n for n in self.features if n not in features]
        if missing:
            raise ValueError(f"features missing: {', '.join(missing[:5])}{'...' if len(missing) > 5 else ''}")
        x = np.array([features[n] for n in self.features], dtype=float)
        return float(x @ np.array(self.coefficients) + self.intercept)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, **asdict(self)}

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_json(), fh, indent=2)
            fh.write("\n")

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, path: str | None = None) -> EnsembleModel:
        if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise GecInputError(f"not a {FORMAT} v{FORMAT_VERSION} model", path=path)
        try:
            model = cls(
                features=list(data["features"]),
                coefficients=[float(c) for c in data["coefficients"]],
                intercept=float(data["intercept"]),
                alpha=float(data["alpha"]),
                components=dict(data.get("components", {})),
                training=dict(data.get("training", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise GecInputError(f"malformed model ({exc})", path=path) from None
        if len(model.features) != len(model.coefficients):
            raise GecInputError("features and coefficients differ in number", path=path)
        return model

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> EnsembleModel:
        path = os.fspath(path)
        with open(path, encoding="utf-8") as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as exc:
                raise GecInputError(f"not valid JSON ({exc.msg})", path=path, line=exc.lineno) from None
        return cls.from_json(data, path=path)


def _ridge(alpha: float):
    # lazy: scikit-learn is the optional [ensemble] extra
    from sklearn.linear_model import Ridge

    return Ridge(alpha=alpha)


def fit(x: np.ndarray, y: np.ndarray, names: Sequence[str], *, alpha: float = ALPHA) -> EnsembleModel:
    """Ridge regression (scikit-learn, intercept fitted, features unscaled)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 2 or x.shape[1] != len(names) or x.shape[0] != len(y):
        raise ValueError("feature matrix does not match the names or the targets")
    model = _ridge(alpha).fit(x, y)
    return EnsembleModel(list(names), [float(c) for c in model.coef_], float(model.intercept_), alpha)


def _corr(fn, a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    return float(fn(a, b)[0])


def cross_validate(
    x: np.ndarray,
    y: np.ndarray,
    *,
    real: Sequence[bool] | None = None,
    alpha: float = ALPHA,
    folds: int = 10,
    seed: int = 0,
) -> tuple[CrossValidation, np.ndarray]:
    """Out-of-fold predictions of ``folds``-fold CV (shuffled by ``seed``) and their correlations."""
    # lazy: scikit-learn is the optional [ensemble] extra
    from sklearn.model_selection import KFold, cross_val_predict

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    real_mask = np.ones(len(y), dtype=bool) if real is None else np.asarray(real, dtype=bool)
    folds = min(folds, len(y))
    pred = cross_val_predict(_ridge(alpha), x, y, cv=KFold(folds, shuffle=True, random_state=seed))
    cv = CrossValidation(
        folds=folds,
        seed=seed,
        pearson=_corr(stats.pearsonr, pred, y),
        spearman=_corr(stats.spearmanr, pred, y),
        pearson_real=_corr(stats.pearsonr, pred[real_mask], y[real_mask]),
        spearman_real=_corr(stats.spearmanr, pred[real_mask], y[real_mask]),
        n=len(y),
        n_real=int(real_mask.sum()),
    )
    return cv, pred


# --------------------------------------------------------------------------- GMEG-layout training data


@dataclass
class TrainingRow:
    corpus: str
    name: str
    synthetic: bool
    human: float
    features: dict[str, float]


def gmeg_corpus(
    corpus_dir: str | os.PathLike[str], *, segment_csv: str | os.PathLike[str] | None = None
) -> tuple[list[str], list[list[str]], dict[str, list[str]], dict[str, dict[str, float]]]:
    """Source, references, system outputs that have human scores, and segment scores of a GMEG dir.

    ``corpus_dir`` holds ``source``, ``ref0..N`` and one file per system;
    the segment scores are ``<corpus_dir>-segment-scores.csv`` beside it
    unless given. A system is every file whose name is a column of the CSV
    (so GMEG's ``ref`` column, which names no file, and ``source+error``,
    which has no column, are left out; ``source`` is kept as a system).
    """
    base = Path(corpus_dir)
    csv_path = Path(segment_csv) if segment_csv else base.parent / f"{base.name}-segment-scores.csv"
    if not (base / "source").exists():
        raise GecInputError(
            "no source file (GMEG layout: DIR/source, DIR/ref0..N, DIR/<system>)", path=str(base)
        )
    source = read_lines(base / "source")
    ref_paths = sorted(base.glob("ref[0-9]*"), key=lambda p: int(p.name[3:]) if p.name[3:].isdigit() else -1)
    references = [read_lines(p, allow_empty=True) for p in ref_paths if p.name[3:].isdigit()]
    if not references:
        raise GecInputError("no reference files ref0..N", path=str(base))
    segments = read_gmeg_segment_csv(csv_path)
    outputs = {}
    for name in sorted(segments):
        path = base / name
        if path.is_file():
            lines = read_lines(path, allow_empty=True)
            if len(lines) != len(source):
                raise GecInputError(
                    f"has {len(lines)} lines but the source has {len(source)}", path=str(path)
                )
            outputs[name] = lines
    if len(outputs) < 2:
        raise GecInputError(
            "fewer than 2 system files with a column in the segment scores", path=str(csv_path)
        )
    return source, references, outputs, segments


def gmeg_training_rows(
    corpus_dir: str | os.PathLike[str],
    *,
    segment_csv: str | os.PathLike[str] | None = None,
    factory: FeatureFactory = ScorerFeatures,
    synthetic: bool = True,
    proportions: Sequence[float] | None = None,
    samples: int = 1,
    seed: int = 0,
    progress: ProgressFn = no_progress,
) -> list[TrainingRow]:
    """Real systems and (optionally) hybrid synthetic systems of one GMEG corpus, featurised."""
    source, references, outputs, segments = gmeg_corpus(corpus_dir, segment_csv=segment_csv)
    corpus = Path(corpus_dir).name
    extractor = factory(source, references)
    means = system_means({n: segments[n] for n in outputs})
    hybrids = (
        hybrid_systems(
            outputs,
            {n: segments[n] for n in outputs},
            proportions=PROPORTIONS if proportions is None else proportions,
            samples=samples,
            seed=seed,
        )
        if synthetic
        else []
    )
    total = len(outputs) + len(hybrids)
    rows = []
    for name, lines in outputs.items():
        rows.append(TrainingRow(corpus, name, False, means[name], extractor(lines)))
        progress(len(rows), total)
    for h in hybrids:
        rows.append(TrainingRow(corpus, h.name, True, h.human, extractor(h.lines)))
        progress(len(rows), total)
    return rows


def matrix(rows: Sequence[TrainingRow], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.array([[r.features[n] for n in names] for r in rows], dtype=float)
    y = np.array([r.human for r in rows], dtype=float)
    real = np.array([not r.synthetic for r in rows], dtype=bool)
    return x, y, real


def train(
    rows: Sequence[TrainingRow],
    *,
    alpha: float = ALPHA,
    folds: int = 10,
    seed: int = 0,
    components: Mapping[str, str] | None = None,
) -> tuple[EnsembleModel, CrossValidation]:
    """Fit on all rows and cross-validate; the model records the CV figures and the data used."""
    if not rows:
        raise ValueError("no training rows")
    names = list(rows[0].features)
    x, y, real = matrix(rows, names)
    cv, _pred = cross_validate(x, y, real=real, alpha=alpha, folds=folds, seed=seed)
    model = fit(x, y, names, alpha=alpha)
    model.components = dict(components or {})
    model.training = {
        "corpora": sorted({r.corpus for r in rows}),
        "n_real": int(real.sum()),
        "n_synthetic": int((~real).sum()),
        "cross_validation": asdict(cv),
        "cross_corpus": cross_corpus(rows, names, alpha=alpha),
    }
    return model, cv


def cross_corpus(
    rows: Sequence[TrainingRow], names: Sequence[str], *, alpha: float = ALPHA
) -> dict[str, dict[str, float]]:
    """Leave one corpus out: fit on the other corpora's rows, correlate predictions with the
    human scores of the held-out corpus's real systems. Free of the leak that hybrids of shared
    parents cause in k-fold CV; empty with one corpus."""
    corpora = sorted({r.corpus for r in rows})
    if len(corpora) < 2:
        return {}
    x, y, real = matrix(rows, names)
    corpus_of = np.array([r.corpus for r in rows])
    out = {}
    for corpus in corpora:
        held = corpus_of == corpus
        model = _ridge(alpha).fit(x[~held], y[~held])
        test = held & real
        pred = model.predict(x[test])
        out[corpus] = {
            "pearson": _corr(stats.pearsonr, pred, y[test]),
            "spearman": _corr(stats.spearmanr, pred, y[test]),
            "n": int(test.sum()),
        }
    return out


# The features live in geceval.metrics.ensemble.features; this module is the entry point for both.
__all__ = [
    "ALPHA",
    "DEFAULT_COMPONENTS",
    "FORMAT",
    "FORMAT_VERSION",
    "IMEASURE_STATS",
    "UNAVAILABLE_COMPONENTS",
    "CrossValidation",
    "EnsembleModel",
    "FeatureExtractor",
    "FeatureFactory",
    "ScorerFeatures",
    "TrainingRow",
    "component_versions",
    "cross_corpus",
    "cross_validate",
    "feature_names",
    "fit",
    "gmeg_corpus",
    "gmeg_training_rows",
    "matrix",
    "train",
]
