"""Meta-evaluation: system correlations, sentence-level tau, Williams test, hybrid super-sampling."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from geceval.formats import prws_csv
from geceval.formats.text import read_lines
from geceval.human import prws
from geceval.metaeval import correlation as metaeval
from tests.shared_data import REPO, shared_path

FIX = Path(__file__).parent / "fixtures" / "stats"


@dataclass(frozen=True)
class J:
    item: str
    annotator: str
    sys1: str
    rank1: int
    sys2: str
    rank2: int


# ----------------------------------------------------------------------------- system level


def test_system_correlations_equal_scipy_and_leave_out_reference_and_trap() -> None:
    human = prws_csv.read_system_scores_csv(FIX / "human_scores.csv")
    metric = prws_csv.read_system_scores_csv(FIX / "metric1_scores.csv")
    corr = metaeval.system_correlations(metric, human)
    assert corr.systems == ["A", "B", "C", "D", "E"]
    assert corr.excluded == ["ref"]
    assert corr.unmatched == ["F", "Source+Error", "source+error"]
    x = [0.70, 0.62, 0.64, 0.50, 0.55]
    y = [70, 60, 65, 50, 58]
    assert corr.pearson == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert corr.pearson_p == pytest.approx(stats.pearsonr(x, y)[1], abs=1e-12)
    assert corr.spearman == pytest.approx(1.0)
    assert corr.kendall == pytest.approx(1.0)
    assert corr.kendall_p == pytest.approx(stats.kendalltau(x, y)[1], abs=1e-12)


def test_exclusion_list_is_a_parameter_and_case_insensitive() -> None:
    human = {"A": 1.0, "B": 2.0, "C": 3.0, "Reference": 9.0}
    metric = {"A": 1.0, "B": 3.0, "C": 2.0, "Reference": 4.0}
    assert metaeval.system_correlations(metric, human).n == 3
    everything = metaeval.system_correlations(metric, human, exclude=())
    assert everything.n == 4
    assert everything.spearman == pytest.approx(stats.spearmanr([1, 3, 2, 4], [1, 2, 3, 9])[0])


def test_fewer_than_three_systems_gives_nan() -> None:
    corr = metaeval.system_correlations({"A": 1.0, "B": 2.0}, {"A": 1.0, "B": 2.0})
    assert corr.n == 2
    assert math.isnan(corr.pearson)


# ----------------------------------------------------------------------------- sentence level


def test_sentence_agreement_counts_metric_ties_as_discordant_like_wmt() -> None:
    metric = {"A": {"1": 0.9, "2": 0.5, "3": 0.4}, "B": {"1": 0.1, "2": 0.5, "3": 0.6}}
    judgments = [
        J("1", "x", "A", 1, "B", 2),  # human A better, metric A better: concordant
        J("1", "y", "B", 1, "A", 2),  # human B better, metric A better: discordant
        J("2", "x", "A", 1, "B", 2),  # metric tie: discordant (WMT 2018/19)
        J("3", "x", "A", 2, "B", 1),  # human B better, metric B better: concordant
        J("3", "y", "A", 1, "B", 1),  # human tie: not counted
        J("4", "x", "A", 1, "B", 2),  # no metric score for item 4
        J("1", "x", "A", 1, "ref", 2),  # reference excluded
    ]
    res = metaeval.sentence_agreement(judgments, metric)
    assert (res.concordant, res.discordant, res.metric_ties, res.human_ties, res.missing) == (2, 2, 1, 1, 1)
    assert res.tau == 0.0
    assert res.accuracy == 0.5
    dropped = metaeval.sentence_agreement(judgments, metric, metric_ties="exclude")
    assert (dropped.concordant, dropped.discordant) == (2, 1)
    assert dropped.tau == pytest.approx(1 / 3)
    assert dropped.accuracy == pytest.approx(2 / 3)


# ----------------------------------------------------------------------------- Williams


def test_williams_reproduces_published_example() -> None:
    # bruceR::cor_diff(r1=0.20, r2=0.45, n=100, rcov=0.80) prints
    # "Difference of correlation: t(97) = -4.56, p = 1e-05" (two-sided, Williams/Steiger).
    res = metaeval.williams_test(0.20, 0.45, 0.80, 100, two_sided=True)
    assert res.df == 97
    assert round(res.t, 2) == -4.56
    assert f"{res.p:.0e}" == "1e-05"


def test_williams_hand_worked_example() -> None:
    r12, r13, r23, n = 0.5, 0.3, 0.4, 30
    k = 1 - 0.25 - 0.09 - 0.16 + 2 * 0.5 * 0.3 * 0.4  # 0.62
    t = 0.2 * math.sqrt(29 * 1.4) / math.sqrt(2 * k * 29 / 27 + (0.8**2 / 4) * 0.6**3)
    assert t == pytest.approx(1.0901900, abs=1e-7)
    res = metaeval.williams_test(r12, r13, r23, n)
    assert res.t == pytest.approx(t, abs=1e-12)
    assert res.p == pytest.approx(stats.t.sf(t, 27), abs=1e-12)
    assert metaeval.williams_test(r13, r12, r23, n).t == pytest.approx(-t, abs=1e-12)


def test_williams_from_scores_uses_pearson_of_the_three_variables() -> None:
    rng = np.random.default_rng(0)
    human = rng.normal(size=40)
    good = human + rng.normal(scale=0.5, size=40)
    bad = human + rng.normal(scale=2.0, size=40)
    res = metaeval.williams_from_scores(human, good, bad)
    r12 = stats.pearsonr(human, good)[0]
    r13 = stats.pearsonr(human, bad)[0]
    r23 = stats.pearsonr(good, bad)[0]
    assert res.t == pytest.approx(metaeval.williams_test(r12, r13, r23, 40).t, abs=1e-12)
    assert res.p < 0.05


# ----------------------------------------------------------------------------- hybrid super-sampling


def _toy() -> tuple[dict[str, list[str]], dict[str, dict[str, float]]]:
    outputs = {"A": [f"a{i}" for i in range(20)], "B": [f"b{i}" for i in range(20)]}
    scores = {"A": {str(i): 100.0 for i in range(20)}, "B": {str(i): float(i) for i in range(20)}}
    del scores["B"]["0"]  # sentence 0 of B was not scored
    return outputs, scores


def test_hybrid_takes_exact_share_from_a_and_averages_chosen_human_scores() -> None:
    outputs, scores = _toy()
    systems = metaeval.hybrid_systems(
        outputs, scores, seed=3, metric=lambda lines: sum(line[0] == "a" for line in lines)
    )
    assert [s.name for s in systems] == [f"A+B@{p}" for p in range(10, 100, 10)]
    for s in systems:
        assert sum(s.from_a) == round(s.proportion * 20)
        assert s.lines == [f"a{i}" if a else f"b{i}" for i, a in enumerate(s.from_a)]
        chosen = [100.0 if a else float(i) for i, a in enumerate(s.from_a) if a or i != 0]
        assert s.human == pytest.approx(sum(chosen) / len(chosen), abs=1e-12)
        assert s.metric == sum(s.from_a)


def test_hybrid_is_reproducible_with_a_seed() -> None:
    outputs, scores = _toy()
    first = metaeval.hybrid_systems(outputs, scores, seed=1, samples=2)
    again = metaeval.hybrid_systems(outputs, scores, seed=1, samples=2)
    other = metaeval.hybrid_systems(outputs, scores, seed=2, samples=2)
    assert [s.from_a for s in first] == [s.from_a for s in again]
    assert [s.from_a for s in first] != [s.from_a for s in other]
    assert first[0].name == "A+B@10#0"
    assert len(first) == 18


@pytest.mark.shared
def test_hybrids_of_gmeg_fce_outputs_lie_between_their_parents() -> None:
    base = shared_path("GMEG", "data", "dev", "fce")
    outputs = {name: read_lines(base / name) for name in ("amu", "marian")}
    seg = prws_csv.read_gmeg_segment_csv(shared_path("GMEG", "data", "dev", "fce-segment-scores.csv"))
    means = prws.system_means(seg)
    systems = metaeval.hybrid_systems(outputs, seg, seed=0)
    humans = [s.human for s in systems]
    assert all(means["amu"] < h < means["marian"] for h in humans)
    # more of amu (the weaker) -> lower human score, on the whole
    assert stats.spearmanr([s.proportion for s in systems], humans)[0] < -0.9


# ----------------------------------------------------------------------------- command


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_meta_eval_command_json_with_williams() -> None:
    m1, m2, h = (str(FIX / f) for f in ("metric1_scores.csv", "metric2_scores.csv", "human_scores.csv"))
    proc = _run("meta-eval", "--metric-scores", m1, m2, "--human-scores", h, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    first, second = data["metrics"]
    assert first["n"] == 5
    assert first["spearman"] == pytest.approx(1.0)
    assert second["unmatched"] == ["REF", "Source+Error", "ref"]  # names match case-sensitively
    assert second["pearson"] == pytest.approx(
        stats.pearsonr([0.50, 0.60, 0.55, 0.52, 0.58], [70, 60, 65, 50, 58])[0], abs=1e-12
    )
    (w,) = data["williams"]
    assert (w["metric1"], w["metric2"], w["df"]) == (m1, m2, 2)


def test_meta_eval_command_exclude_nothing() -> None:
    m1, h = str(FIX / "metric1_scores.csv"), str(FIX / "human_scores.csv")
    # with nothing excluded, the human scores' Source+Error finds no score (metric1 says
    # source+error): 6 of 7 judged systems is under the 90% share, refused unless allowed
    proc = _run("meta-eval", "--metric-scores", m1, "--human-scores", h, "--exclude", "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "only 6 of 7 judged systems" in proc.stderr and "name Source+Error" in proc.stderr
    assert "the scores have F, source+error" in proc.stderr
    proc = _run(
        "meta-eval", "--metric-scores", m1, "--human-scores", h, "--exclude", "--allow-missing", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["metrics"][0]["n"] == 6
    text = _run("meta-eval", "--metric-scores", m1, "--human-scores", h)
    assert "pearson" in text.stdout
