"""GMEG ensemble metric: ridge model on synthetic features, JSON round trip, training plumbing,
real features equal the scorers', and (slow) training on GMEG dev."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import KFold

from geceval.errors import GecInputError
from geceval.formats.text import read_lines
from geceval.metrics.ensemble import model as ensemble
from tests.shared_data import REPO, shared_path

FIX = Path(__file__).parent / "fixtures" / "stats"
TINY = FIX / "gmeg_tiny"


def _synthetic(n: int = 80, d: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, (n, d))
    w = rng.normal(0, 10, d)
    return x, x @ w + 50.0, w


# ----------------------------------------------------------------------------- model on synthetic features


def test_fit_is_sklearn_ridge_with_alpha_0_001_and_recovers_a_linear_target() -> None:
    x, y, w = _synthetic()
    names = [f"f{i}" for i in range(x.shape[1])]
    model = ensemble.fit(x, y, names)
    ref = Ridge(alpha=0.001).fit(x, y)
    assert model.alpha == 0.001
    assert model.coefficients == pytest.approx(list(ref.coef_), abs=1e-12)
    assert model.intercept == pytest.approx(ref.intercept_, abs=1e-12)
    assert model.coefficients == pytest.approx(list(w), abs=0.05)
    row = dict(zip(names, x[3]))
    assert model.predict(row) == pytest.approx(float(ref.predict(x[3:4])[0]), abs=1e-9)


def test_cross_validation_equals_a_manual_kfold_loop() -> None:
    x, y, _ = _synthetic(seed=1)
    y = y + np.random.default_rng(2).normal(0, 1, len(y))
    real = np.zeros(len(y), dtype=bool)
    real[:10] = True
    cv, pred = ensemble.cross_validate(x, y, real=real, folds=5, seed=3)
    manual = np.empty(len(y))
    for train, test in KFold(5, shuffle=True, random_state=3).split(x):
        manual[test] = Ridge(alpha=0.001).fit(x[train], y[train]).predict(x[test])
    assert pred == pytest.approx(manual, abs=1e-9)
    assert cv.pearson == pytest.approx(float(np.corrcoef(manual, y)[0, 1]), abs=1e-12)
    assert cv.pearson_real == pytest.approx(float(np.corrcoef(manual[:10], y[:10])[0, 1]), abs=1e-12)
    assert (cv.n, cv.n_real, cv.folds) == (80, 10, 5)


def test_model_json_round_trip_keeps_feature_order_and_predictions(tmp_path: Path) -> None:
    x, y, _ = _synthetic(seed=4)
    names = ["b", "a", "d", "c", "f", "e"]
    model = ensemble.fit(x, y, names)
    model.components = {"geceval": "0.1.0", "sacrebleu": "2.6.0"}
    path = tmp_path / "m.json"
    model.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "geceval-gmeg-ensemble"
    assert data["features"] == names
    loaded = ensemble.EnsembleModel.load(path)
    assert loaded == model
    features = dict(zip(names, x[0]))
    assert loaded.predict(features) == model.predict(features)


def test_prediction_needs_every_feature_and_bad_model_files_are_errors(tmp_path: Path) -> None:
    model = ensemble.EnsembleModel(["a", "b"], [1.0, 2.0], 3.0)
    assert model.predict({"a": 1.0, "b": 1.0, "extra": 9.0}) == 6.0
    with pytest.raises(ValueError, match="features missing: b"):
        model.predict({"a": 1.0})
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "geceval-gmeg-ensemble", "format_version": 1, "features": ["a"]}')
    with pytest.raises(GecInputError, match="malformed model"):
        ensemble.EnsembleModel.load(bad)
    bad.write_text("{not json")
    with pytest.raises(GecInputError, match=r"bad\.json:1: not valid JSON"):
        ensemble.EnsembleModel.load(bad)


def test_default_feature_list_has_75_features_in_a_fixed_order() -> None:
    names = ensemble.feature_names()
    assert len(names) == 48 + 2 + 2 + 21 + 1 + 1
    assert names[:2] == ["errant:ADJ:p", "errant:ADJ:r"]
    assert names[48:52] == ["chrf:p", "chrf:r", "m2:p", "m2:r"]
    assert names[52] == "imeasure:correction:tp"
    assert "imeasure:detection:fpn" not in names
    assert names[-3:] == ["imeasure:detection:i", "gleu", "chargleu"]
    with pytest.raises(ValueError, match="unknown feature component 'bleu'"):
        ensemble.feature_names(["bleu"])


# ----------------------------------------------------------------------------- training plumbing (fake features)


class _FakeFeatures:
    """Share of lines equal to the first reference, and mean length: no scorer needed."""

    names = ["exact", "length"]

    def __init__(self, source: Sequence[str], references: Sequence[Sequence[str]]) -> None:
        self.ref = list(references[0])

    def __call__(self, hypothesis: Sequence[str]) -> dict[str, float]:
        exact = sum(h == r for h, r in zip(hypothesis, self.ref)) / len(self.ref)
        return {"exact": exact, "length": float(np.mean([len(h.split()) for h in hypothesis]))}


def test_gmeg_training_rows_have_real_and_hybrid_systems_with_human_means() -> None:
    rows = ensemble.gmeg_training_rows(TINY, factory=_FakeFeatures, seed=0)
    real = [r for r in rows if not r.synthetic]
    assert [r.name for r in real] == ["sysA", "sysB", "sysC", "sysD"]  # ref has no file
    assert real[0].human == pytest.approx((95 + 90 + 92 + 94 + 93 + 91) / 6)
    assert real[0].features == {"exact": 1.0, "length": pytest.approx(34 / 6)}
    assert len(rows) == 4 + 6 * 9
    assert rows[4].name == "sysA+sysB@10"
    assert {r.corpus for r in rows} == {"gmeg_tiny"}
    model, cv = ensemble.train(rows, folds=5, seed=0)
    assert model.features == ["exact", "length"]
    assert model.training["n_real"] == 4 and model.training["n_synthetic"] == 54
    assert cv.pearson > 0.8  # the exact-match share explains most of these human means
    assert model.training["cross_corpus"] == {}  # one corpus only


def test_cross_corpus_fits_on_the_other_corpora_and_scores_real_systems_only() -> None:
    x, y, _ = _synthetic(n=40, d=2, seed=7)
    rows = [
        ensemble.TrainingRow(
            "c1" if i < 20 else "c2", f"s{i}", i % 4 != 0, float(y[i]), {"a": x[i, 0], "b": x[i, 1]}
        )
        for i in range(40)
    ]
    out = ensemble.cross_corpus(rows, ["a", "b"])
    held = Ridge(alpha=0.001).fit(x[20:], y[20:]).predict(x[[0, 4, 8, 12, 16]])
    assert out["c1"]["n"] == 5
    assert out["c1"]["pearson"] == pytest.approx(
        float(np.corrcoef(held, y[[0, 4, 8, 12, 16]])[0, 1]), abs=1e-12
    )


def test_gmeg_layout_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(GecInputError, match="no source file"):
        ensemble.gmeg_corpus(tmp_path)


# ----------------------------------------------------------------------------- real features and the command


def test_scorer_features_equal_the_scorers_on_real_and_mixed_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    from geceval.metrics import sacre
    from geceval.metrics.errant import scorer as errant_scorer
    from geceval.metrics.gleu import plus as gleu
    from geceval.metrics.imeasure import scorer as imeasure
    from geceval.metrics.m2 import scorer as m2

    source = read_lines(TINY / "source")
    refs = [read_lines(TINY / f"ref{k}") for k in range(2)]
    extractor = ensemble.ScorerFeatures(source, refs)
    ref_m2 = errant_scorer.errant_annotate_references(source, refs).m2
    igold = imeasure.gold_from_m2(ref_m2)
    hyp_b, hyp_d = read_lines(TINY / "sysB"), read_lines(TINY / "sysD")
    mixed = [b if i % 2 else d for i, (b, d) in enumerate(zip(hyp_b, hyp_d))]
    annotated: list[int] = []
    annotate_lines = errant_scorer.annotate_lines

    def counting(ref_set, indices, lines, **kw):  # type: ignore[no-untyped-def]
        annotated.extend(indices)
        return annotate_lines(ref_set, indices, lines, **kw)

    monkeypatch.setattr(errant_scorer, "annotate_lines", counting)
    # ERRANT annotates only (index, line) pairs it has not seen: none for a mix of seen outputs
    new_lines = (list(range(len(hyp_b))), [i for i, (b, d) in enumerate(zip(hyp_b, hyp_d)) if b != d], [])
    for hyp, expected in zip((hyp_b, hyp_d, mixed), new_lines):
        annotated.clear()
        f = extractor(hyp)
        assert annotated == expected
        assert list(f) == ensemble.feature_names()
        assert f["gleu"] == gleu.gleu_plus(source, refs, hyp).score
        assert f["chargleu"] == gleu.char_gleu(source, refs, hyp).score
        c = sacre.chrf(refs, hyp)
        assert (f["chrf:p"], f["chrf:r"]) == (pytest.approx(c.precision / 100), pytest.approx(c.recall / 100))
        m = m2.m2_score(hyp, ref_m2)
        assert (f["m2:p"], f["m2:r"]) == (m.p, m.r)
        im = imeasure.imeasure(hyp, igold, mix=False)
        for mode, scores in (("correction", im.correction), ("detection", im.detection)):
            columns = scores.tp + scores.tn + scores.fp + scores.fn
            assert f[f"imeasure:{mode}:tp"] == scores.tp / columns
            assert f[f"imeasure:{mode}:fn"] == scores.fn / columns
            for stat in ("p", "r", "acc", "wacc", "baseline_wacc", "i"):
                assert f[f"imeasure:{mode}:{stat}"] == pytest.approx(getattr(scores, stat), abs=1e-15)
        e = errant_scorer.errant_score_texts(source, refs, hyp)
        for cat, s in e.per_category.items():
            assert f[f"errant:{cat}:p"] == (1.0 if s.p is None else s.p)
            assert f[f"errant:{cat}:r"] == (1.0 if s.r is None else s.r)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=600
    )


def test_ensemble_command_trains_saves_and_predicts(tmp_path: Path) -> None:
    model_path = tmp_path / "model.json"
    proc = _run("ensemble", "train", str(TINY), "--out", str(model_path), "--folds", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["n_real"], data["n_synthetic"]) == (4, 54)
    assert data["cross_validation"]["folds"] == 4
    saved = json.loads(model_path.read_text())
    assert saved["features"] == data["features"] == ensemble.feature_names()
    assert saved["components"]["errant"] == "3.0.2"
    assert saved["components"]["sacrebleu"] == "2.6.0"
    refs = [str(TINY / "ref0"), str(TINY / "ref1")]
    hyps = [str(TINY / "sysA"), str(TINY / "sysC")]
    pred = _run(
        "ensemble",
        "predict",
        *hyps,
        "--model",
        str(model_path),
        "--source",
        str(TINY / "source"),
        "--refs",
        *refs,
        "--json",
    )
    assert pred.returncode == 0, pred.stderr
    scores = json.loads(pred.stdout)["scores"]
    assert [s["hyp"] for s in scores] == hyps
    assert scores[0]["score"] > scores[1]["score"]  # the perfect output beats the source copy


# ----------------------------------------------------------------------------- GMEG dev (slow)


@pytest.mark.slow
@pytest.mark.shared
def test_train_and_cross_validate_on_gmeg_dev_fce_and_wiki() -> None:
    started = time.monotonic()
    rows = []
    for corpus in ("fce", "wiki"):
        rows += ensemble.gmeg_training_rows(
            shared_path("GMEG", "data", "dev", corpus), proportions=(0.2, 0.5, 0.8), seed=0
        )
    model, cv = ensemble.train(rows, folds=10, seed=0)
    elapsed = time.monotonic() - started
    print(f"GMEG dev ensemble: {cv} in {elapsed:.0f} s")
    assert (model.training["n_real"], model.training["n_synthetic"]) == (14, 2 * 21 * 3)
    assert len(model.features) == 75
    assert not math.isnan(cv.pearson)
    assert cv.pearson > 0.8
    assert cv.pearson_real > 0.5
    print("leave-one-corpus-out:", model.training["cross_corpus"])
    assert set(model.training["cross_corpus"]) == {"fce", "wiki"}
