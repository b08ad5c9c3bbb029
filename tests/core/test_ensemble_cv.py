"""GMEG Table 9 core: the on-disk feature cache and the domain cross-validation."""

from __future__ import annotations

import numpy as np
import pytest

from geceval.metrics.ensemble.cross_validation import FeatureCache, domain_cross_validation
from geceval.metrics.ensemble.features import ScorerFeatures
from geceval.metrics.ensemble.model import TrainingRow

SOURCE = ["this are a test .", "he go home .", "fine sentence ."]
REFS = [
    ["this is a test .", "he goes home .", "fine sentence ."],
    ["this is a test .", "he went home .", "fine sentence ."],
]


def test_feature_cache_featurises_a_hypothesis_once_and_reads_it_back_from_disk(tmp_path) -> None:
    cache = FeatureCache(tmp_path, SOURCE, REFS, ["chrf", "gleu"])
    first = cache.features(REFS[0])
    assert cache.features(REFS[0]) == first and (cache.hits, cache.misses) == (1, 1)
    cache.save()
    again = FeatureCache(tmp_path, SOURCE, REFS, ["chrf", "gleu"])
    assert again.features(REFS[0]) == first and (again.hits, again.misses) == (1, 0)
    assert again._extractor is None  # nothing loaded when every row is cached
    # another reference set or component list is another cache entry
    other = FeatureCache(tmp_path, SOURCE, REFS[:1], ["chrf", "gleu"])
    assert other.path != again.path


def test_feature_cache_uses_a_shared_extractor_and_its_per_sentence_statistics(tmp_path) -> None:
    # reproduce gmeg's Table 8 scores its metrics and GMEG-Metric's features with one extractor:
    # a hypothesis the metrics scored costs the features no new per-sentence statistics
    shared = ScorerFeatures(SOURCE, REFS, components=["chrf", "gleu"])
    shared.metric_scores(REFS[1], ["chrf", "gleu"])
    seen = {k: len(v) for k, v in shared._rows.items()}
    cache = FeatureCache(tmp_path, SOURCE, REFS, ["chrf", "gleu"], extractor=shared)
    value = cache.features(REFS[1])
    assert cache._extractor is shared and cache.misses == 1
    assert {k: len(v) for k, v in shared._rows.items()} == seen  # nothing scored again
    alone = FeatureCache(tmp_path / "other", SOURCE, REFS, ["chrf", "gleu"]).features(REFS[1])
    assert value == alone


def test_feature_cache_refuses_an_extractor_of_other_data_or_components(tmp_path) -> None:
    with pytest.raises(ValueError, match="other data or components"):
        FeatureCache(
            tmp_path,
            SOURCE,
            REFS,
            ["chrf", "gleu"],
            extractor=ScorerFeatures(SOURCE, REFS, components=["chrf"]),
        )
    with pytest.raises(ValueError, match="other data or components"):
        FeatureCache(
            tmp_path, SOURCE, REFS[:1], ["chrf"], extractor=ScorerFeatures(SOURCE, REFS, components=["chrf"])
        )


def test_feature_cache_recomputes_a_damaged_file(tmp_path) -> None:
    cache = FeatureCache(tmp_path, SOURCE, REFS, ["chrf"])
    value = cache.features(SOURCE)
    cache.save()
    cache.path.write_text("{not json", encoding="utf-8")
    fresh = FeatureCache(tmp_path, SOURCE, REFS, ["chrf"])
    assert fresh.features(SOURCE) == value and fresh.misses == 1


def _rows(domain: str, n: int, rng: np.random.Generator, weight: float) -> list[TrainingRow]:
    out = []
    for i in range(n):
        f = rng.normal(size=3)
        out.append(
            TrainingRow(
                domain,
                f"{domain}{i}",
                i > 5,
                float(weight * f[0] + 0.1 * f[1]),
                {"a": f[0], "b": f[1], "c": f[2]},
            )
        )
    return out


def test_domain_cross_validation_learns_shared_signal_and_ablation_shows_a_domain_that_differs() -> None:
    rng = np.random.default_rng(0)
    rows = _rows("same1", 60, rng, 1.0) + _rows("same2", 60, rng, 1.0) + _rows("flipped", 60, rng, -1.0)
    cv = {c.domain: c for c in domain_cross_validation(rows, folds=5, seed=1)}
    assert cv["same1"].folds_used == 5
    assert cv["same1"].all == pytest.approx(0.9593095112575479, abs=1e-12)
    # ablated, same1 is predicted by same2 diluted by the contradicting domain
    assert cv["same1"].ablation == pytest.approx(0.8713413224532907, abs=1e-12)
    # trained without it, the model predicts the flipped domain backwards
    assert cv["flipped"].ablation < -0.9
    assert cv == {c.domain: c for c in domain_cross_validation(rows, folds=5, seed=1)}


def test_domain_cross_validation_with_one_domain_has_no_ablation() -> None:
    rows = _rows("only", 40, np.random.default_rng(2), 1.0)
    (cv,) = domain_cross_validation(rows, folds=3)
    assert cv.ablation is None and cv.all == pytest.approx(cv.all) and cv.all > 0.9


def test_metrics_then_features_of_one_hypothesis_score_errant_m2_and_gleu_once(monkeypatch) -> None:
    # GMEG Table 8 asks each hybrid's metrics, then GMEG-Metric's features of the same lines: ERRANT
    # and M2 at beta 0.5 and GLEU are computed once for both, with the same values as alone
    from geceval.metrics.ensemble import features as feats

    calls = {"m2": 0, "errant": 0}
    score_candidates, compare_pairs = feats.score_candidates, feats.errant_scorer.compare_pairs

    def m2(*a, **k):
        calls["m2"] += 1
        return score_candidates(*a, **k)

    def errant(*a, **k):
        calls["errant"] += 1
        return compare_pairs(*a, **k)

    components = ["errant", "m2", "gleu"]
    metrics = ["errant-0.5", "m2-0.5", "m2-0.2", "gleu"]
    expected = (  # each from an extractor of its own
        ScorerFeatures(SOURCE, REFS, components=components).metric_scores(REFS[1], metrics),
        ScorerFeatures(SOURCE, REFS, components=components)(REFS[1]),
    )
    monkeypatch.setattr(feats, "score_candidates", m2)
    monkeypatch.setattr(feats.errant_scorer, "compare_pairs", errant)
    shared = ScorerFeatures(SOURCE, REFS, components=components)
    assert shared.metric_scores(list(REFS[1]), metrics) == expected[0]
    assert shared(list(REFS[1])) == expected[1]
    assert calls == {"m2": 2, "errant": 1}  # m2 at 0.5 and 0.2; errant at 0.5
    shared(REFS[0])  # another hypothesis is scored anew
    assert calls == {"m2": 3, "errant": 2}


def test_domain_rows_keep_source_as_a_row_but_mix_it_into_no_hybrid(tmp_path) -> None:
    # GMEG section 6: only "the upper- and lower-bounds (Reference and Source+error)" are left out
    # of "any of the correlation calculations" (Table 9's too); section 5.2: hybrids are sampled from
    # pairs of systems "not including Reference, Source, and Source+error"
    from geceval.metrics.ensemble.cross_validation import domain_rows

    corpus = tmp_path / "fce"
    corpus.mkdir()
    outputs = {"source": SOURCE, "a": REFS[0], "b": REFS[1], "c": [*SOURCE[:2], "fine sentences ."]}
    for name, lines in {**outputs, "ref0": REFS[0], "ref1": REFS[1], "source+error": SOURCE}.items():
        (corpus / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    names = [*outputs, "ref"]
    scores = [[50, 90, 80, 60, 95], [40, 85, 70, 45, 90], [70, 70, 70, 65, 75]]
    (tmp_path / "fce-segment-scores.csv").write_text(
        ",".join(names) + "\n" + "".join(",".join(map(str, row)) + "\n" for row in scores)
    )
    rows, _cache = domain_rows(corpus, components=["gleu"], hybrids=9, seed=0, cache_dir=tmp_path / "cache")
    real = sorted(r.name for r in rows if not r.synthetic)
    assert real == ["a", "b", "c", "source"]
    assert next(r.human for r in rows if r.name == "source") == pytest.approx(160 / 3)
    mixed = [r.name for r in rows if r.synthetic]
    assert len(mixed) == 9 and not any("source" in name for name in mixed)
