"""GMEG-Metric (GMEG 2019, section 5.2): the ensemble trained on the dev split of the domains present,
as Table 8's last row scores the test hybrids (``reproduce gmeg``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from geceval.metrics.ensemble.cross_validation import FeatureCache, default_cache_dir, domain_rows
from geceval.metrics.ensemble.features import DEFAULT_COMPONENTS, ScorerFeatures
from geceval.metrics.ensemble.model import ALPHA, EnsembleModel, fit, matrix

GMEG_METRIC = "gmeg-metric"
GMEG_METRIC_DOMAINS = ("fce", "wiki", "yahoo")
"""The dev domains GMEG-Metric is trained on (section 5.2: "We train a single model on the combined
data from all domains"; "GMEG-Metric is trained on the development set")."""


@dataclass
class GmegMetric:
    """The ensemble trained on the dev split of the domains present, scoring any test hybrid."""

    model: EnsembleModel
    domains: list[str]

    def factory(self, caches: list[FeatureCache], shared: dict[str, ScorerFeatures] | None = None):
        """An ``extra`` scorer factory for :func:`hybrid_meta_eval`; the feature caches it opens
        are appended to ``caches`` (to be saved). ``shared["features"]``, when set by the time a
        scorer is made, is the extractor Table 8's metrics use on the same data (see ``table8``):
        GMEG-Metric's features then reuse its per-sentence statistics."""

        def make(source: list[str], references: list[list[str]]):
            extractor = (shared or {}).get("features")
            cache = FeatureCache(
                default_cache_dir(), source, references, list(DEFAULT_COMPONENTS), extractor=extractor
            )
            caches.append(cache)
            return lambda lines: self.model.predict(cache.features(lines))

        return make


def train_gmeg_metric(data: Path, *, seed: int, hybrids: int) -> GmegMetric | None:
    """Ridge regression (alpha 0.001, :func:`geceval.metrics.ensemble.model.fit`) on the real systems (Source included, as Table 9) and
    ``hybrids`` hybrids of every dev domain present, all feature groups; None without dev texts."""
    domains = [d for d in GMEG_METRIC_DOMAINS if (data / "dev" / d / "source").is_file()]
    if not domains:
        return None
    rows = []
    for domain in domains:
        rows += domain_rows(data / "dev" / domain, hybrids=hybrids, seed=seed)[0]
    names = list(rows[0].features)
    x, y, _real = matrix(rows, names)
    return GmegMetric(fit(x, y, names, alpha=ALPHA), domains)
