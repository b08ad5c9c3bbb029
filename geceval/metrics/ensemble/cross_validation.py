"""GMEG 2019 Table 9: the ensemble metric cross-validated by domain, with domain ablation.

Section 6.1 of the paper: 50 folds of cross-validation with a 75/25
train/test split over the development data of all domains (real systems and
674 hybrids per domain); "All" is the mean Pearson r, on each domain's test
rows, of a model trained on the training rows of every domain; "Ablation" the
same with that domain's rows left out of training. Choices the paper leaves
open (ours): a fold is an independent random 75/25 split of all rows
(``numpy.random.default_rng([seed, fold])``), not a partition; real systems
minus ref and source+error (Source is a row: section 6 leaves only "the upper- and lower-bounds"
out of "any of the correlation calculations", and section 5.2 trains "with each system as an
instance") plus :func:`geceval.metaeval.hybrid_plan`'s hybrids of the GEC systems (not Source)
are the rows; ridge regression (alpha 0.001) on unscaled features as
:mod:`geceval.metrics.ensemble.model`; a fold where a domain has fewer than 3 test rows is
skipped for that domain.

Featurisation dominates the cost (ERRANT, M2 and I-measure of every real
system). :class:`FeatureCache` stores each hypothesis's features on disk,
keyed by the content of the source, the references, the hypothesis, the
feature components and their versions, so a second run (another fold count,
another seed of the CV) featurises nothing, and the scorers (and spaCy) are
not even loaded when every row is cached.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy import stats

from geceval import cache as disk
from geceval.cache import default_cache_dir
from geceval.cache import digest as _digest
from geceval.human.hybrids import GMEG_HYBRID_LEFT_OUT, GMEG_HYBRIDS, GMEG_LEFT_OUT, hybrid_systems
from geceval.human.prws import system_means
from geceval.metrics.ensemble.features import DEFAULT_COMPONENTS, ScorerFeatures, component_versions
from geceval.metrics.ensemble.model import ALPHA, TrainingRow, _ridge, gmeg_corpus
from geceval.progress import ProgressFn, no_progress

GMEG_FOLDS = 50
TEST_SHARE = 0.25


class FeatureCache:
    """Features of hypotheses against one (source, references, components) set, on disk."""

    def __init__(
        self,
        cache_dir: str | os.PathLike[str],
        source: Sequence[str],
        references: Sequence[Sequence[str]],
        components: Sequence[str],
        *,
        extractor: ScorerFeatures | None = None,
    ) -> None:
        """``extractor``: a :class:`ScorerFeatures` of the same source, references and components
        already in use (GMEG Table 8 scores its metrics and GMEG-Metric's features over the same
        systems): the features of a hypothesis not on disk come from its per-sentence caches instead
        of a second extractor that would score every real system again."""
        self.source = list(source)
        self.references = [list(r) for r in references]
        self.components = list(components)
        if extractor is not None and (
            extractor.components != self.components
            or extractor.source != self.source
            or extractor.references != self.references
        ):
            raise ValueError("the shared extractor scores other data or components than this cache")
        key = _digest(self.source, self.references, self.components, component_versions(self.components))
        self.path = Path(cache_dir) / "ensemble-features" / f"{key}.json"
        self._data: dict[str, dict[str, float]] = {}
        try:
            self._data = json.loads(self.path.read_text(encoding="utf-8"))
            disk.touch(self.path)  # used: the cache's pruning keeps it (geceval.cache)
        except FileNotFoundError:
            pass  # not cached yet, or pruned: computed
        except (OSError, ValueError):
            self._data = {}  # a damaged cache is recomputed, never trusted
        self._extractor: ScorerFeatures | None = extractor
        self.hits = self.misses = 0

    def features(self, hypothesis: Sequence[str]) -> dict[str, float]:
        key = _digest(list(hypothesis))
        cached = self._data.get(key)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        if self._extractor is None:
            self._extractor = ScorerFeatures(self.source, self.references, components=self.components)
        value = self._extractor(hypothesis)
        self._data[key] = value
        return value

    def save(self) -> None:
        if not self.misses:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(self._data, fh)
        os.replace(tmp, self.path)  # atomic: a concurrent reader sees the old or the new file
        with contextlib.suppress(OSError):  # pruned meanwhile by another process: nothing to count
            disk.written(self.path.parents[1], self.path.stat().st_size)  # over the cap: pruned


def domain_rows(
    corpus_dir: str | os.PathLike[str],
    *,
    components: Sequence[str] = DEFAULT_COMPONENTS,
    hybrids: int = GMEG_HYBRIDS,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: ProgressFn = no_progress,
) -> tuple[list[TrainingRow], FeatureCache]:
    """Real systems (minus ref and source+error: Source is a row) and hybrids of one domain (mixed from
    the GEC systems only, not Source), featurised via the cache."""
    source, references, outputs, segments = gmeg_corpus(corpus_dir)
    dropped = {x.lower() for x in GMEG_LEFT_OUT}
    real = {n: lines for n, lines in outputs.items() if n.lower() not in dropped}
    unmixed = {x.lower() for x in GMEG_HYBRID_LEFT_OUT}
    bases = {n: lines for n, lines in real.items() if n.lower() not in unmixed}
    cache = FeatureCache(cache_dir or default_cache_dir(), source, references, components)
    pairs = list(combinations(sorted(bases), 2))
    mixes = hybrid_systems(bases, {n: segments[n] for n in bases}, pairs=pairs, count=hybrids, seed=seed)
    means = system_means({n: segments[n] for n in real})
    corpus = Path(corpus_dir).name
    todo = [(n, False, means[n], real[n]) for n in sorted(real)]
    todo += [(h.name, True, h.human, h.lines) for h in mixes if not math.isnan(h.human)]
    rows = []
    for k, (name, synthetic, human, lines) in enumerate(todo):
        rows.append(TrainingRow(corpus, name, synthetic, human, cache.features(lines)))
        progress(k + 1, len(todo))
    cache.save()
    return rows, cache


@dataclass
class DomainCV:
    domain: str
    all: float
    ablation: float | None
    folds_used: int


def domain_cross_validation(
    rows: Sequence[TrainingRow],
    *,
    folds: int = GMEG_FOLDS,
    seed: int = 0,
    alpha: float = ALPHA,
    test_share: float = TEST_SHARE,
) -> list[DomainCV]:
    """Mean Pearson r per domain over ``folds`` random 75/25 splits, trained on all domains and
    with the domain ablated (None with a single domain: nothing left to train on)."""
    names = list(rows[0].features)
    x = np.array([[r.features[n] for n in names] for r in rows], dtype=float)
    y = np.array([r.human for r in rows], dtype=float)
    domain = np.array([r.corpus for r in rows])
    domains = sorted(set(domain.tolist()))
    r_all: dict[str, list[float]] = {d: [] for d in domains}
    r_abl: dict[str, list[float]] = {d: [] for d in domains}
    n_test = max(1, round(test_share * len(y)))
    for fold in range(folds):
        order = np.random.default_rng([seed, fold]).permutation(len(y))
        test = np.zeros(len(y), dtype=bool)
        test[order[:n_test]] = True
        pred_all = _ridge(alpha).fit(x[~test], y[~test]).predict(x)
        for d in domains:
            held = test & (domain == d)
            if held.sum() < 3 or np.ptp(y[held]) == 0:
                continue
            r_all[d].append(float(stats.pearsonr(pred_all[held], y[held])[0]))
            train = ~test & (domain != d)
            if train.sum() >= 2:
                pred = _ridge(alpha).fit(x[train], y[train]).predict(x[held])
                r_abl[d].append(float(stats.pearsonr(pred, y[held])[0]) if np.ptp(pred) > 0 else math.nan)
    return [
        DomainCV(
            d,
            float(np.mean(r_all[d])) if r_all[d] else math.nan,
            float(np.nanmean(r_abl[d])) if r_abl[d] else None,
            len(r_all[d]),
        )
        for d in domains
    ]
