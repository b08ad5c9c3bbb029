"""meta-eval --hybrids (GMEG 2019 Table 8 / Figure 3) and edit-stats (GMEG Table 3, Sakaguchi Table 4)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from geceval import cli
from geceval.metaeval import correlation as metaeval
from geceval.metaeval import hybrids as hybrid_metaeval
from tests.shared_data import REPO, shared_path

PAIRS = list(combinations("abcdef", 2))


def _geceval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_hybrid_plan_spreads_674_over_15_pairs_44_each_and_14_drawn_pairs_one_more() -> None:
    plan = metaeval.hybrid_plan(PAIRS, 674, np.random.default_rng(0))
    per_pair = Counter((a, b) for a, b, _ in plan)
    assert len(plan) == 674
    assert sorted(Counter(per_pair.values()).items()) == [(44, 1), (45, 14)]
    for pair, k in per_pair.items():
        shares = Counter(p for a, b, p in plan if (a, b) == pair)
        assert set(shares) == set(metaeval.PROPORTIONS)
        # 44 = 4 full rounds + 8 distinct drawn, 45 = 5 full rounds
        assert sorted(Counter(shares.values()).items()) == ([(4, 1), (5, 8)] if k == 44 else [(5, 9)])


def test_hybrid_plan_is_fixed_by_the_seed() -> None:
    one = metaeval.hybrid_plan(PAIRS, 674, np.random.default_rng(3))
    assert one == metaeval.hybrid_plan(PAIRS, 674, np.random.default_rng(3))
    assert one != metaeval.hybrid_plan(PAIRS, 674, np.random.default_rng(4))
    small = metaeval.hybrid_plan(PAIRS, 30, np.random.default_rng(0))
    assert Counter(Counter((a, b) for a, b, _ in small).values()) == {2: 15}


def test_hybrid_plan_rejects_a_negative_count() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        metaeval.hybrid_plan(PAIRS, -1, np.random.default_rng(0))


def test_hybrid_systems_with_count_mix_exact_shares_and_average_the_chosen_human_scores() -> None:
    outputs = {
        "a": [f"a{i}" for i in range(10)],
        "b": [f"b{i}" for i in range(10)],
        "c": [f"c{i}" for i in range(10)],
    }
    scores = {name: {str(i): float(10 * k + i) for i in range(10)} for k, name in enumerate("abc")}
    systems = metaeval.hybrid_systems(outputs, scores, count=7, seed=5)
    assert len(systems) == 7 and len({s.name for s in systems}) == 7
    for s in systems:
        assert sum(s.from_a) == round(10 * s.proportion)
        expected = [scores[s.system_a if f else s.system_b][str(i)] for i, f in enumerate(s.from_a)]
        assert s.human == sum(expected) / 10
        assert s.lines == [outputs[s.system_a if f else s.system_b][i] for i, f in enumerate(s.from_a)]


def test_williams_matrix_diagonal_is_none_and_opposite_cells_sum_to_one() -> None:
    rng = np.random.default_rng(0)
    human = rng.normal(size=40)
    metrics = {"good": human + rng.normal(scale=0.3, size=40), "bad": human + rng.normal(scale=2.0, size=40)}
    w = hybrid_metaeval.williams_matrix(human.tolist(), metrics)
    assert w["good"]["good"] is None and w["bad"]["bad"] is None
    assert w["good"]["bad"] + w["bad"]["good"] == pytest.approx(1.0, abs=1e-12)
    assert w["good"]["bad"] < 0.05


@pytest.mark.slow
def test_meta_eval_hybrids_on_gmeg_fce_dev_reports_r_rho_and_williams() -> None:
    data = shared_path("GMEG", "data", "dev", "fce")
    result = _geceval(
        "meta-eval",
        "--hybrids",
        "30",
        "--seed",
        "1",
        "--data",
        str(data),
        "--metrics",
        "gleu",
        "chargleu",
        "chrf",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    # Source is correlated but mixed into no hybrid (GMEG sections 5.2 and 6; issue 42)
    assert out["hybrids"] == 30 and out["n_real"] == 7
    assert out["real_systems"] == ["amu", "lstm", "lstm-r", "marian", "nus", "source", "transformer"]
    assert out["hybrid_bases"] == ["amu", "lstm", "lstm-r", "marian", "nus", "transformer"]
    assert out["left_out"] == []
    got = {m["metric"]: (m["pearson"], m["spearman"]) for m in out["metrics"]}
    assert got["gleu"] == pytest.approx((0.9227087390193102, 0.8715030820293977), abs=1e-9)
    assert got["chargleu"] == pytest.approx((0.9896038230492833, 0.9642010431484115), abs=1e-9)
    assert got["chrf"] == pytest.approx((0.6281502418893194, 0.7069701280227595), abs=1e-9)
    assert out["williams"]["gleu"]["chrf"] == pytest.approx(9.043932727946905e-05, abs=1e-9)
    assert out["williams"]["chargleu"]["gleu"] == pytest.approx(5.16028984500336e-09, abs=1e-12)
    assert out["williams"]["chrf"]["chrf"] is None


def test_meta_eval_hybrids_needs_data_and_known_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert cli.main(["meta-eval", "--hybrids", "10"]) == 2
    assert "--hybrids needs --data DIR" in capsys.readouterr().err
    assert cli.main(["meta-eval", "--hybrids", "10", "--data", str(tmp_path), "--metrics", "bleu"]) == 2
    assert "unknown metric 'bleu'" in capsys.readouterr().err
    assert cli.main(["meta-eval"]) == 2
    assert "give --metric-scores and --human-scores" in capsys.readouterr().err


def test_edit_stats_describes_the_first_60_gmeg_fce_test_sentences(tmp_path: Path) -> None:
    data = shared_path("GMEG", "data", "test", "fce")
    for name in ("source", "ref0", "ref1", "ref2", "ref3"):
        lines = (data / name).read_text(encoding="utf-8").splitlines(keepends=True)[:60]
        (tmp_path / name).write_text("".join(lines), encoding="utf-8")
    refs = [str(tmp_path / f"ref{k}") for k in range(4)]
    result = _geceval("edit-stats", "--source", str(tmp_path / "source"), "--corrections", *refs, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    t = out["table3"]
    assert t["sentences"] == 60
    assert t["tokens_per_sentence"] == pytest.approx(16.516666666666666, abs=1e-12)
    assert t["tokens_per_sentence_sd"] == pytest.approx(10.151340907595518, abs=1e-12)
    assert t["pct_unchanged"] == pytest.approx(30.833333333333332, abs=1e-12)
    assert t["edits_per_changed_sentence"] == pytest.approx(2.683673469387755, abs=1e-12)
    assert t["tokens_per_edit"] == pytest.approx(1.2775665399239544, abs=1e-12)
    assert t["type_token_ratio"] == pytest.approx(0.4147325933400605, abs=1e-12)
    assert list(t["error_types"])[:3] == ["PUNCT", "OTHER", "SPELL"]
    assert t["error_types"]["PUNCT"] == pytest.approx(0.1634980988593156, abs=1e-12)
    assert out["files"][0]["n_unchanged"] == 13 and out["files"][0]["mean_char_ld"] == pytest.approx(8.6)
    assert len(out["pairs"]) == 6
    assert out["pairs"][0]["n_identical"] == 25
    assert out["pairs_mean"]["pct_identical"] == pytest.approx(42.22222222222222, abs=1e-12)
    assert out["pairs_mean"]["mean_ster"] == pytest.approx(1.8722222222222225, abs=1e-9)  # edits/sentence
    assert out["pairs_mean"]["mean_ter_x100"] == pytest.approx(10.605101385404033, abs=1e-9)  # as before
    assert "GMEG release does not include" in out["gmeg_table4"]


def test_edit_stats_rejects_misaligned_corrections(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "src").write_text("a b\nc d\n", encoding="utf-8")
    (tmp_path / "ref").write_text("a b\n", encoding="utf-8")
    assert (
        cli.main(["edit-stats", "--source", str(tmp_path / "src"), "--corrections", str(tmp_path / "ref")])
        == 2
    )
    assert "line-aligned" in capsys.readouterr().err
