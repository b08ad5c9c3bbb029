"""PRWS statistics: means, z-scores, clusters, split-half reliability, traps, readers, command."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from geceval.errors import GecInputError
from geceval.formats import prws_csv
from geceval.human import prws
from tests.shared_data import REPO, shared_path

FIX = Path(__file__).parent / "fixtures" / "stats"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


# ----------------------------------------------------------------------------- GMEG dev (published)


@pytest.mark.shared
@pytest.mark.parametrize("corpus", ["fce", "wiki", "yahoo"])
def test_gmeg_dev_system_means_from_segment_csv_equal_corpus_csv(corpus: str) -> None:
    seg = prws_csv.read_gmeg_segment_csv(shared_path("GMEG", "data", "dev", f"{corpus}-segment-scores.csv"))
    corpus_scores = prws_csv.read_gmeg_corpus_csv(
        shared_path("GMEG", "data", "dev", f"{corpus}-corpus-scores.csv")
    )
    means = prws.system_means(seg)
    assert sorted(means) == sorted(corpus_scores)
    for name, value in corpus_scores.items():
        assert means[name] == pytest.approx(value, abs=1e-9)


@pytest.mark.shared
def test_gmeg_fce_dev_means_match_reference_figures() -> None:
    seg = prws_csv.read_gmeg_segment_csv(shared_path("GMEG", "data", "dev", "fce-segment-scores.csv"))
    means = prws.system_means(seg)
    expected = {
        "amu": 70.126752,
        "marian": 76.654540,
        "nus": 73.620932,
        "lstm": 74.063921,
        "lstm-r": 74.252941,
        "ref": 83.539715,
        "source": 67.589244,
        "transformer": 73.674738,
    }
    for name, value in expected.items():
        assert means[name] == pytest.approx(value, abs=5e-7)


@pytest.mark.shared
def test_gmeg_fce_dev_clusters_put_ref_alone_on_top_and_source_alone_at_bottom() -> None:
    seg = prws_csv.read_gmeg_segment_csv(shared_path("GMEG", "data", "dev", "fce-segment-scores.csv"))
    rows = prws.significance_clusters(seg)
    assert [(r.name, r.cluster) for r in rows] == [
        ("ref", 1),
        ("marian", 2),
        ("lstm-r", 3),
        ("lstm", 3),
        ("transformer", 3),
        ("nus", 3),
        ("amu", 4),
        ("source", 5),
    ]


@pytest.mark.shared
def test_prws_command_on_gmeg_segment_csv_prints_json() -> None:
    path = shared_path("GMEG", "data", "dev", "wiki-segment-scores.csv")
    proc = _run("prws", str(path), "--format", "gmeg-segment-csv", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["cluster_basis"] == "raw"
    assert data["reliability"] is None
    assert data["systems"][0]["name"] == "ref"
    corpus = prws_csv.read_gmeg_corpus_csv(shared_path("GMEG", "data", "dev", "wiki-corpus-scores.csv"))
    assert data["systems"][0]["mean"] == pytest.approx(corpus["ref"], abs=1e-9)
    assert all(s["z_mean"] is None for s in data["systems"])


# ----------------------------------------------------------------------------- hand-made fixture


def _small() -> list[prws.Rating]:
    return prws_csv.read_prws_csv(FIX / "prws_small.csv")


def test_prws_csv_reader_finds_columns_by_header_in_any_order_and_case() -> None:
    ratings = _small()
    assert len(ratings) == 12
    assert ratings[0] == prws.Rating("i1", "w1", "source", 80.0, False)
    assert [r.meaning_changed for r in ratings[:6]] == [False, True, False, False, False, True]


def test_segment_and_system_means_are_means_of_ratings() -> None:
    seg = prws.segment_means(_small())
    assert seg["sysA"] == {"i1": 95.0, "i2": 65.0}
    assert seg["source+error"] == {"i1": 50.0, "i2": 50.0}
    assert prws.system_means(seg) == {"source": 65.0, "source+error": 50.0, "sysA": 80.0}


def test_system_mean_ignores_missing_cells() -> None:
    seg = prws_csv.read_gmeg_segment_csv(FIX / "gmeg_segments_small.csv")
    assert seg["partial"] == {"1": 50.0, "2": 60.0}
    assert prws.system_means(seg) == {"good": 80.0, "bad": 20.0, "partial": 55.0}


def test_z_scores_use_each_annotators_population_std() -> None:
    ratings = _small()
    z = prws.z_scores(ratings)
    w1 = np.array([80, 60, 90, 70, 70, 50], dtype=float)
    w2 = np.array([50, 40, 100, 60, 30, 80], dtype=float)
    # w1: mean 70, variance 1000/6; w2: mean 60, variance 3400/6
    assert z[:6] == pytest.approx(list((w1 - 70) / math.sqrt(1000 / 6)), abs=1e-12)
    assert z[6:] == pytest.approx(list((w2 - 60) / math.sqrt(3400 / 6)), abs=1e-12)
    z1 = prws.z_scores(ratings, ddof=1)
    assert z1[0] == pytest.approx(10 / math.sqrt(1000 / 5), abs=1e-12)


def test_z_score_of_annotator_with_constant_scores_is_zero() -> None:
    ratings = [prws.Rating("i1", "w", "A", 50.0), prws.Rating("i2", "w", "B", 50.0)]
    assert prws.z_scores(ratings) == [0.0, 0.0]


def test_trap_passes_only_when_strictly_below_source_and_ties_fail() -> None:
    rows = prws.trap_statistics(_small(), min_traps=2)
    assert [(t.worker, t.seen, t.passed_traps, t.pass_rate, t.passed) for t in rows] == [
        ("w1", 2, 1, 0.5, False),
        ("w2", 2, 2, 1.0, True),
    ]


def test_trap_verdict_needs_minimum_traps_and_threshold_is_a_parameter() -> None:
    rows = prws.trap_statistics(_small(), min_traps=3)
    assert [t.passed for t in rows] == [None, None]
    rows = prws.trap_statistics(_small(), min_traps=1, threshold=0.5)
    assert [t.passed for t in rows] == [True, True]


def test_meaning_changed_rate_per_system() -> None:
    assert prws.meaning_changed_rates(_small()) == {"source": 0.0, "source+error": 0.5, "sysA": 0.25}


def test_mann_whitney_uses_only_items_both_systems_have() -> None:
    seg = {"a": {"1": 5.0, "2": 6.0, "3": 7.0, "4": 100.0}, "b": {"1": 1.0, "2": 2.0, "3": 6.0, "9": 0.0}}
    expected = stats.mannwhitneyu([5.0, 6.0, 7.0], [1.0, 2.0, 6.0], alternative="greater").pvalue
    assert prws.mann_whitney_p(seg, "a", "b") == pytest.approx(expected, abs=1e-15)


def test_clusters_split_only_where_every_system_above_beats_every_system_below() -> None:
    rng = np.random.default_rng(1)
    n = 200
    base = rng.normal(0, 1, n)
    seg = {
        "top": {str(i): v + 3 for i, v in enumerate(base)},
        "mid1": {str(i): v + 1.5 + rng.normal(0, 0.3) for i, v in enumerate(base)},
        "mid2": {str(i): v + 1.45 + rng.normal(0, 0.3) for i, v in enumerate(base)},
        "low": {str(i): v for i, v in enumerate(base)},
    }
    rows = prws.significance_clusters(seg)
    assert [(r.name, r.cluster) for r in rows] == [("top", 1), ("mid1", 2), ("mid2", 2), ("low", 3)]
    assert rows[0].beats == ["mid1", "mid2", "low"]


def test_identical_systems_are_not_significant_and_share_a_cluster() -> None:
    seg = {"a": {"1": 1.0, "2": 2.0}, "b": {"1": 1.0, "2": 2.0}}
    assert [r.cluster for r in prws.significance_clusters(seg)] == [1, 1]


def _eight_ratings(noise: float, seed: int) -> list[prws.Rating]:
    rng = np.random.default_rng(seed)
    ratings = []
    for s, offset in enumerate([0, 5, 10, 20]):
        for item in range(50):
            true = 50 + offset + (item % 7)
            for k in range(8):
                score = true + (noise * rng.normal() if noise else 0.0)
                ratings.append(prws.Rating(str(item), f"w{k}", f"sys{s}", score))
    return ratings


def test_split_half_is_exactly_one_when_all_ratings_of_an_output_agree() -> None:
    rel = prws.split_half_reliability(_eight_ratings(0.0, 0), samples=5, seed=3)
    assert (rel.system_pearson, rel.system_spearman) == (pytest.approx(1.0), pytest.approx(1.0))
    assert (rel.sentence_pearson, rel.sentence_spearman) == (pytest.approx(1.0), pytest.approx(1.0))
    assert rel.cells == 200


def test_split_half_of_pure_noise_has_no_sentence_level_correlation() -> None:
    rng = np.random.default_rng(0)
    ratings = [
        prws.Rating(str(i), f"w{k}", "A", float(rng.uniform(0, 100))) for i in range(400) for k in range(8)
    ]
    rel = prws.split_half_reliability(ratings, samples=20, seed=0)
    assert abs(rel.sentence_pearson) < 0.1
    assert math.isnan(rel.system_pearson)  # one system: no system-level correlation


def test_split_half_is_reproducible_with_a_seed_and_changes_with_it() -> None:
    ratings = _eight_ratings(15.0, 1)
    a = prws.split_half_reliability(ratings, samples=10, seed=7)
    b = prws.split_half_reliability(ratings, samples=10, seed=7)
    c = prws.split_half_reliability(ratings, samples=10, seed=8)
    assert a == b
    assert a.sentence_pearson != c.sentence_pearson
    assert 0.0 < a.sentence_pearson < 1.0


def test_split_half_skips_outputs_with_too_few_ratings_for_the_group_size() -> None:
    ratings = _eight_ratings(1.0, 2)
    ratings.append(prws.Rating("extra", "w0", "sys0", 10.0))
    rel = prws.split_half_reliability(ratings, samples=2, group_size=4)
    assert rel.cells == 200


# ----------------------------------------------------------------------------- readers: errors


def test_bad_score_names_file_and_line() -> None:
    with pytest.raises(GecInputError, match=r"bad_score\.csv:3: score 'eighty' is not a number"):
        prws_csv.read_prws_csv(FIX / "bad_score.csv")


def test_missing_column_names_the_header_line(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("item,worker,score\ni,w,1\n")
    with pytest.raises(GecInputError, match=r"r\.csv:1: no 'system' column"):
        prws_csv.read_prws_csv(path)


def test_ragged_segment_row_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("a,b\n1,2\n3\n")
    with pytest.raises(GecInputError, match=r"s\.csv:3: 1 cells, header has 2"):
        prws_csv.read_gmeg_segment_csv(path)


# ----------------------------------------------------------------------------- command


def test_prws_command_json_on_ratings(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["item", "worker", "system", "score", "meaning_changed"])
        for r in _eight_ratings(5.0, 4):
            w.writerow([r.item, r.annotator, r.system, r.score, 0])
    proc = _run("prws", str(path), "--json", "--seed", "1", "--samples", "10")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["cluster_basis"] == "z"
    assert [s["name"] for s in data["systems"]] == ["sys3", "sys2", "sys1", "sys0"]
    assert [s["cluster"] for s in data["systems"]] == [1, 2, 3, 4]
    assert data["systems"][0]["mean"] == pytest.approx(
        prws.system_means(prws.segment_means(_eight_ratings(5.0, 4)))["sys3"], abs=1e-9
    )
    assert data["reliability"]["samples"] == 10
    assert data["reliability"]["system_pearson"] > 0.99
    assert data["traps"] == []
    assert "split-half samples" in proc.stderr


def test_prws_command_reports_traps_and_bad_input() -> None:
    proc = _run("prws", str(FIX / "prws_small.csv"), "--json", "--min-traps", "2", "--samples", "3")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["traps"] == [
        {"worker": "w1", "seen": 2, "passed_traps": 1, "pass_rate": 0.5, "passed": False},
        {"worker": "w2", "seen": 2, "passed_traps": 2, "pass_rate": 1.0, "passed": True},
    ]
    bad = _run("prws", str(FIX / "bad_score.csv"))
    assert bad.returncode == 2
    assert "bad_score.csv:3" in bad.stderr
