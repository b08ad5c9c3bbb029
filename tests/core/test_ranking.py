"""TrueSkill (the keisks/wmt-trueskill procedure) and Expected Wins rankers, chunking, and the ``rank`` command."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trueskill
from trueskill import backends

from geceval.formats.judgments import (
    PairwiseJudgment,
    RankingJudgment,
    expand_pairwise,
    read_pairwise,
    read_rankings,
)
from geceval.human.expected_wins import expected_wins
from geceval.human.pairs import PairData, prepare, prepare_rankings, run_rng
from geceval.human.system_ranking import ChunkResult, clusters, merge, rank, rank_ranges, run_chunk
from geceval.human.trueskill import (
    cdf,
    draw_margin,
    erfc,
    pdf,
    ppf,
    rate_pair,
    reference_beta,
    trueskill_runs,
)
from tests.shared_data import requires_shared, shared_path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "judgments"


def synthetic_judgments(n: int, seed: int = 5) -> list[PairwiseJudgment]:
    """Pairwise judgments of 5 systems with a latent quality order; E and A are never compared."""
    rng = random.Random(seed)
    quality = {"A": 1.0, "B": 0.6, "C": 0.5, "D": 0.0, "E": -0.8}
    pairs = [(x, y) for x in quality for y in quality if x < y and {x, y} != {"A", "E"}]
    out = []
    for k in range(n):
        x, y = rng.choice(pairs)
        if rng.random() < 0.5:
            x, y = y, x
        diff = quality[x] - quality[y] + rng.gauss(0, 0.7)
        rx, ry = (1, 1) if abs(diff) < 0.3 else ((1, 2) if diff > 0 else (2, 1))
        out.append(PairwiseJudgment(str(k), f"ann{k % 3}", x, rx, y, ry))
    return out


# --- the statistics backend and one game -------------------------------------------------------------------


def test_erfc_cdf_pdf_ppf_equal_the_trueskill_default_backend():
    for x in np.linspace(-6, 6, 241):
        assert erfc(x) == backends.erfc(x)
        assert cdf(x) == pytest.approx(backends.cdf(x), rel=1e-15, abs=1e-300)
        assert pdf(x) == pytest.approx(backends.pdf(x), rel=1e-15, abs=1e-300)
    for p in (0.01, 0.3, 0.5, 0.625, 0.9, 0.999):
        assert ppf(p) == pytest.approx(backends.ppf(p), rel=1e-15)


def test_draw_margin_and_beta_are_the_references():
    beta = reference_beta(28146)
    assert beta == 0.5 * 28147 / 40
    env = trueskill.TrueSkill(mu=0, sigma=0.5, beta=beta, tau=0, draw_probability=0.25)
    assert draw_margin(0.25, beta) == pytest.approx(trueskill.calc_draw_margin(0.25, 2, env), rel=1e-15)


def test_every_game_equals_trueskill_rate_1vs1_to_1e_9_including_draws():
    rng = random.Random(11)
    games = 0
    for _ in range(1500):
        beta = rng.choice([rng.uniform(0.05, 2.0), rng.uniform(2.0, 400.0)])
        env = trueskill.TrueSkill(mu=0, sigma=0.5, beta=beta, tau=0, draw_probability=0.25)
        margin = draw_margin(0.25, beta)
        mu1, mu2 = rng.uniform(-2, 2), rng.uniform(-2, 2)
        s1, s2 = rng.uniform(0.05, 0.6), rng.uniform(0.05, 0.6)
        outcome = rng.choice([1, -1, 0, 0])
        r1, r2 = env.create_rating(mu1, s1), env.create_rating(mu2, s2)
        try:
            if outcome == -1:
                n2, n1 = trueskill.rate_1vs1(r2, r1, env=env)
            else:
                n1, n2 = trueskill.rate_1vs1(r1, r2, drawn=outcome == 0, env=env)
        except FloatingPointError:
            with pytest.raises(FloatingPointError):
                rate_pair(mu1, s1, mu2, s2, outcome, beta=beta, margin=margin)
            continue
        expected = (n1.mu, n1.sigma, n2.mu, n2.sigma)
        assert rate_pair(mu1, s1, mu2, s2, outcome, beta=beta, margin=margin) == pytest.approx(
            expected, abs=1e-9, rel=0
        )
        games += 1
    assert games > 1200


def package_run(judgments: list[PairwiseJudgment], seed: int, run: int) -> dict[str, float]:
    """The reference procedure game by game through the trueskill package (slow: a factor graph per game),
    with our random stream: two uniforms per iteration (opponent, judgment)."""
    systems = sorted({j.sys1 for j in judgments} | {j.sys2 for j in judgments})
    by_pair: dict[tuple[str, str], list[int]] = {}
    for j in judgments:  # the order PairData uses: first orientation, then the flipped one
        by_pair.setdefault((j.sys1, j.sys2), []).append(j.outcome)
    for j in judgments:
        by_pair.setdefault((j.sys2, j.sys1), []).append(-j.outcome)
    n = len(judgments) + 1
    beta = 0.5 * n / 40
    env = trueskill.TrueSkill(mu=0.0, sigma=0.5, beta=beta, tau=0.0, draw_probability=0.25)
    ratings = {s: env.create_rating() for s in systems}
    uniforms = run_rng(seed, run).random((n, 2))
    for u_pick, u_judgment in uniforms:
        a = max(systems, key=lambda s: (ratings[s].sigma ** 2, s))
        cum, total = [], 0.0
        for s in systems:
            if s != a and (a, s) in by_pair:
                total += math.exp(-abs(ratings[a].mu - ratings[s].mu))
            cum.append(total)
        target = (1.0 - u_pick) * total
        b = systems[next(i for i, c in enumerate(cum) if c >= target)]
        outcomes = by_pair[(a, b)]
        outcome = outcomes[int(u_judgment * len(outcomes))]
        if outcome == -1:
            ratings[b], ratings[a] = trueskill.rate_1vs1(ratings[b], ratings[a], env=env)
        else:
            ratings[a], ratings[b] = trueskill.rate_1vs1(ratings[a], ratings[b], drawn=outcome == 0, env=env)
    return {s: r.mu for s, r in ratings.items()}


def test_lockstep_runs_equal_game_by_game_runs_through_the_trueskill_package():
    # 161 games a run, A and E never compared
    judgments = synthetic_judgments(160)
    data = prepare(judgments)
    mu, sigma = trueskill_runs(data, [0, 7, 3], seed=42)
    for row, run in enumerate([0, 7, 3]):
        expected = package_run(judgments, 42, run)
        assert mu[row] == pytest.approx([expected[s] for s in data.systems], abs=1e-9, rel=0)
    assert np.all(sigma < 0.5)


# --- encoding, ranges, clusters, Expected Wins -------------------------------------------------------------


def test_prepare_encodes_systems_in_name_order_and_both_orientations():
    judgments = [
        PairwiseJudgment("1", "a", "b", 1, "A", 2),
        PairwiseJudgment("2", "a", "A", 1, "b", 1),
        PairwiseJudgment("3", "a", "c", 2, "A", 1),
        PairwiseJudgment("4", "a", "c", -1, "A", 1),
        PairwiseJudgment("5", "a", "c", 1, "c", 2),
    ]
    data = prepare(judgments)
    assert data.systems == ("A", "b", "c")  # Python string order: upper case first
    assert data.judgments == 3
    q_ab, q_ba, q_ac = 0 * 3 + 1, 1 * 3 + 0, 0 * 3 + 2
    seen = {
        q: data.outcomes[data.offsets[q] : data.offsets[q] + data.counts[q]].tolist()
        for q in (q_ab, q_ba, q_ac)
    }
    assert seen == {q_ab: [0.0, -1.0], q_ba: [1.0, 0.0], q_ac: [1.0]}
    assert data.winner_loser.tolist() == [1 * 3 + 0, -1, 0 * 3 + 2]


def test_pair_data_survives_its_json_form():
    data = prepare(synthetic_judgments(60))
    again = PairData.from_dict(json.loads(json.dumps(data.to_dict())))
    assert again.systems == data.systems and again.judgments == data.judgments
    for field in ("winner_loser", "offsets", "counts", "outcomes"):
        assert np.array_equal(getattr(again, field), getattr(data, field))
        assert getattr(again, field).dtype == getattr(data, field).dtype


def test_rank_ranges_drop_ceil_2_5_percent_at_each_end():
    # 1000 runs: system 0 is first in 970 runs, second in 30 -> 25 dropped at the bottom end keeps rank 2
    scores = np.zeros((1000, 2))
    scores[:, 0] = 1.0
    scores[970:, 0] = -1.0
    assert rank_ranges(scores) == [(1, 2), (1, 2)]
    scores[980:, 0] = 1.0  # now second in 10 runs only: all dropped
    assert rank_ranges(scores) == [(1, 1), (2, 2)]
    # 40 runs drop ceil(1.0) = 1 at each end; 3 runs keep at least the median
    forty = np.array([[1.0, 0.0]] * 38 + [[0.0, 1.0]] * 2)
    assert rank_ranges(forty) == [(1, 2), (1, 2)]
    assert rank_ranges(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])) == [(1, 1), (2, 2)]


def test_cluster_boundary_needs_range_max_below_every_later_range_min():
    ranges = [(1, 1), (2, 2), (3, 4), (3, 4), (5, 7), (5, 8), (6, 9), (5, 10), (7, 10), (7, 10)]
    ranges += [(11, 12), (11, 12), (12, 13), (14, 14)]
    assert clusters(ranges) == [1, 2, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 6]
    # a later system reaching back prevents the boundary: (2, 4) starts below (3, 3)'s max
    assert clusters([(1, 2), (3, 3), (2, 4)]) == [1, 1, 1]
    assert clusters([(1, 1), (2, 3), (2, 3), (4, 4)]) == [1, 2, 2, 3]
    assert clusters([(1, 1)]) == [1]


def test_expected_wins_ignore_ties_and_average_over_opponents():
    judgments = [
        PairwiseJudgment("1", "a", "X", 1, "Y", 2),
        PairwiseJudgment("2", "a", "X", 1, "Y", 2),
        PairwiseJudgment("3", "a", "Y", 1, "X", 2),
        PairwiseJudgment("4", "a", "X", 1, "Y", 1),
        PairwiseJudgment("5", "a", "Z", 1, "X", 2),
        PairwiseJudgment("6", "a", "Y", 2, "Z", 2),
    ]
    data = prepare(judgments)
    # X: 2/3 against Y, 0/1 against Z -> 1/3; Y: 1/3 (Z only tied); Z: 1/1
    assert expected_wins(data).tolist() == pytest.approx([1 / 3, 1 / 3, 1.0])
    # a resample of judgments 1 and 3 only
    assert expected_wins(data, np.array([0, 2, 2])).tolist() == pytest.approx([1 / 3, 2 / 3, 0.0])


# --- seeds, chunks, merge ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["trueskill", "ew"])
def test_same_seed_same_result_and_another_seed_another(method):
    judgments = synthetic_judgments(300)
    first = rank(judgments, method=method, runs=40, seed=3)
    assert rank(judgments, method=method, runs=40, seed=3) == first
    other = run_chunk(judgments, range(40), 4, method=method).scores
    assert not np.array_equal(run_chunk(judgments, range(40), 3, method=method).scores, other)


@pytest.mark.parametrize("method", ["trueskill", "ew"])
def test_chunks_in_any_split_merge_to_the_single_process_result(method):
    judgments = synthetic_judgments(300)
    single = run_chunk(judgments, range(30), 9, method=method)
    parts = [
        run_chunk(judgments, indices, 9, method=method)
        for indices in ([29, 3, 17], range(3), range(4, 17), range(18, 29))
    ]
    # through JSON, as Celery would carry them
    parts = [ChunkResult.from_dict(json.loads(json.dumps(p.to_dict()))) for p in parts]
    assert merge(parts) == merge([single])
    merged_scores = np.concatenate([p.scores for p in parts])[
        np.argsort(np.concatenate([p.run_indices for p in parts]))
    ]
    assert np.array_equal(merged_scores, single.scores)


def test_worker_processes_give_the_single_process_result():
    judgments = synthetic_judgments(200)
    assert rank(judgments, runs=9, seed=1, workers=2) == rank(judgments, runs=9, seed=1)


def test_merge_refuses_overlapping_or_foreign_chunks():
    judgments = synthetic_judgments(100)
    a = run_chunk(judgments, [0, 1], 0)
    with pytest.raises(ValueError, match="overlap"):
        merge([a, run_chunk(judgments, [1, 2], 0)])
    with pytest.raises(ValueError, match="different ranking jobs"):
        merge([a, run_chunk(judgments, [2], 1)])


def test_missing_pairs_are_never_played_and_order_follows_quality():
    judgments = synthetic_judgments(400)
    result = rank(judgments, runs=50, seed=0)
    assert (result.systems[0].name, result.systems[-1].name) == ("A", "E")
    assert result.judgments == 400
    # A and E never met: a game between them would need a judgment that does not exist
    data = prepare(judgments)
    assert data.counts[0 * 5 + 4] == 0 and data.counts[4 * 5 + 0] == 0


# --- the public data: reference figures ---------------------------------------------------------------------

GEC_RANKING_REFERENCE = [
    # name, mean mu, rank range, cluster (keisks/wmt-trueskill, 1000 runs; REFERENCE_FIGURES.md)
    ("refmix1", 1.191, (1, 1), 1),
    ("CAMB", 0.162, (2, 2), 2),
    ("AMU", 0.055, (3, 4), 3),
    ("RAC", 0.038, (3, 4), 3),
    ("src", -0.030, (5, 7), 4),
    ("UFC", -0.041, (5, 8), 4),
    ("IITB", -0.073, (6, 9), 4),
    ("CUUI", -0.076, (5, 10), 4),
    ("SJTU", -0.106, (7, 10), 4),
    ("POST", -0.107, (7, 10), 4),
    ("UMC", -0.199, (11, 12), 5),
    ("PKU", -0.209, (11, 12), 5),
    ("IPN", -0.268, (12, 13), 5),
    ("NTHU", -0.337, (14, 14), 6),
]


def boundaries(cluster_ids: list[int]) -> set[int]:
    """Positions i after which a new cluster starts."""
    return {i for i in range(len(cluster_ids) - 1) if cluster_ids[i + 1] != cluster_ids[i]}


@requires_shared
def test_gec_ranking_1000_runs_reproduce_the_reference_table():
    judgments = read_pairwise(shared_path("gec-ranking", "data", "all_judgments.csv"), "wmt-csv")
    chunk = run_chunk(judgments, range(1000), seed=0)
    result = merge([chunk])
    assert result.judgments == 28146
    ours = {s.name: s for s in result.systems}
    for name, mu, (lo, hi), _cluster in GEC_RANKING_REFERENCE:
        assert ours[name].mu == pytest.approx(mu, abs=0.02), name
        assert abs(ours[name].rank_range[0] - lo) <= 1 and abs(ours[name].rank_range[1] - hi) <= 1, name
    # the order by mean mu may swap systems whose means differ by less than the run-to-run noise
    # (CUUI/IITB 0.003 apart, SJTU/POST 0.001): compare clusters by name
    assert {s.name: s.cluster for s in result.systems} == {name: c for name, _, _, c in GEC_RANKING_REFERENCE}
    # Unstable boundary, IPN | NTHU: NTHU is not last in about 2.5% of the runs, right at the 25 runs
    # the 95% range drops at each end (24 runs with seed 0, 28 and 30 with seeds 1 and 2), so with
    # seeds 1, 2 and 6 (of 0-6) NTHU's range becomes (13, 14) and the last two clusters merge. The
    # reference's one stream fell on the (14, 14) side. Every other boundary held over seeds 0-6.
    nthu = result.systems[-1]
    assert nthu.name == "NTHU"
    index = chunk.systems.index("NTHU")
    nthu_not_last = int(
        (chunk.scores[:, index][:, None] > np.delete(chunk.scores, index, axis=1)).any(axis=1).sum()
    )
    assert 20 <= nthu_not_last <= 30


@requires_shared
def test_jfleg_pairwise_reproduces_paper_table_5_within_0_02():
    judgments = read_pairwise(shared_path("jfleg", "EACL_exp", "mturk", "pairwise.csv"), "wmt-csv")
    result = rank(judgments, runs=1000, seed=0)
    table5 = [("turk", 2.60, 1), ("NMT", 0.21, 2), ("NUS", -0.20, 3), ("AMU", -0.46, 3), ("CAMB", -0.51, 3)]
    table5 += [("orig", -1.64, 4)]
    assert [s.name for s in result.systems] == [name for name, _, _ in table5]
    for ours, (name, mu, cluster) in zip(result.systems, table5):
        assert ours.mu == pytest.approx(mu, abs=0.02), name
        assert ours.cluster == cluster, name
    # and the reference tool's own 1000-run ranges (REFERENCE_FIGURES.md) within ±1
    reference_ranges = [(1, 1), (2, 2), (3, 4), (3, 5), (4, 5), (6, 6)]
    for ours, (lo, hi) in zip(result.systems, reference_ranges):
        assert abs(ours.rank_range[0] - lo) <= 1 and abs(ours.rank_range[1] - hi) <= 1


# --- the command line -------------------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "geceval", "rank", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_rank_command_json_lists_systems_in_ranked_order(tmp_path):
    path = tmp_path / "judgments.csv"
    lines = ["system1Id,system1rank,system2Id,system2rank,segmentId,judgeId"]
    lines += [
        f"{j.sys1},{j.rank1},{j.sys2},{j.rank2},{j.item},{j.annotator}" for j in synthetic_judgments(300)
    ]
    path.write_text("\n".join(lines) + "\n")
    done = run_cli(str(path), "--format", "wmt-csv", "--runs", "30", "--seed", "2", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    expected = rank(synthetic_judgments(300), runs=30, seed=2).to_json()
    assert out == expected
    assert out["judgments"] == 300
    assert out["systems"][0]["name"] == "A"
    assert set(out["systems"][0]) == {"name", "mu", "rank_range", "cluster"}
    assert "trueskill iterations" in done.stderr


def test_rank_command_table_and_excluded_judge_on_appraise_xml():
    done = run_cli(
        str(FIXTURES / "small.xml"), "--runs", "20", "--exclude-judge", "learner", "--method", "ew"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "ew: 9 pairwise judgments, 20 runs, seed 0"
    assert done.stdout.splitlines()[1].split() == ["#", "range", "exp.wins", "system"]


def test_rank_command_malformed_file_names_the_line():
    done = run_cli(str(FIXTURES / "bad_rank.csv"), "--format", "wmt-csv")
    assert done.returncode == 2
    assert f"{FIXTURES / 'bad_rank.csv'}:3: " in done.stderr


def _same_pair_data(a: PairData, b: PairData) -> bool:
    return (a.systems, a.judgments) == (b.systems, b.judgments) and all(
        np.array_equal(getattr(a, f), getattr(b, f)) and getattr(a, f).dtype == getattr(b, f).dtype
        for f in ("winner_loser", "offsets", "counts", "outcomes")
    )


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("small.xml", "appraise-xml"),
        ("small.jsonl", "jsonl"),
        ("fiveway.csv", "wmt-csv"),
        ("small.csv", "wmt-csv"),
    ],
)
def test_prepare_rankings_equals_prepare_of_the_expanded_pairs(name, fmt):
    rankings = read_rankings(FIXTURES / name, fmt)
    assert _same_pair_data(prepare_rankings(rankings), prepare(expand_pairwise(rankings)))


def test_prepare_rankings_drops_skipped_entries_and_self_pairs_as_expand_pairwise_does():
    rankings = [
        RankingJudgment("1", "a", (("A", 1), ("B", -1), ("C", 2), ("A", 3))),
        RankingJudgment("2", "b", (("C", 1), ("B", 1))),
    ]
    data = prepare_rankings(rankings)
    assert data.judgments == 3  # A-C and C-A, then the tie C-B; B's skipped rank and A-A drop out
    assert _same_pair_data(data, prepare(expand_pairwise(rankings)))
    with pytest.raises(ValueError, match="no usable pairwise judgments"):
        prepare_rankings([RankingJudgment("1", "a", (("A", 1), ("A", 2), ("B", -1)))])


@requires_shared
def test_prepare_rankings_equals_prepare_on_the_gec_ranking_judgments():
    rankings = read_rankings(shared_path("gec-ranking", "data", "all_judgments.csv"), "wmt-csv")
    data = prepare_rankings(rankings)
    assert data.judgments == 28146
    assert _same_pair_data(data, prepare(expand_pairwise(rankings)))
