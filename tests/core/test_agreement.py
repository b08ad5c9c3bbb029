"""Cohen's and quadratic-weighted kappa of pairwise judgments, within and between groups."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from geceval.human import agreement
from tests.shared_data import REPO, shared_path

FIX = Path(__file__).parent / "fixtures" / "stats"

LT, EQ, GT = -1, 0, 1


@dataclass(frozen=True)
class J:
    item: str
    annotator: str
    sys1: str
    rank1: int
    sys2: str
    rank2: int


HAND_A = [LT, LT, LT, EQ, EQ, GT, GT, GT, LT, EQ]
HAND_B = [LT, LT, EQ, EQ, GT, GT, GT, LT, LT, EQ]


def test_hand_worked_kappa_is_six_elevenths() -> None:
    # observed agreement 7/10; both marginals (0.4, 0.3, 0.3) -> expected 0.34
    assert agreement.cohen_kappa(HAND_A, HAND_B) == pytest.approx((0.7 - 0.34) / (1 - 0.34), abs=1e-15)
    assert agreement.cohen_kappa(HAND_A, HAND_B) == pytest.approx(6 / 11, abs=1e-15)


def test_hand_worked_quadratic_kappa_is_thirteen_twentythirds() -> None:
    # disagreements <=, =>, >< weigh 1, 1, 4 -> 0.6 observed; expected 0.42 + 4 * 0.24 = 1.38
    assert agreement.cohen_kappa(HAND_A, HAND_B, weights="quadratic") == pytest.approx(13 / 23, abs=1e-15)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_kappa_equals_sklearn(weights: str | None, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.choice(agreement.LABELS, size=200, p=[0.4, 0.3, 0.3]).tolist()
    b = [x if rng.random() < 0.6 else int(rng.choice(agreement.LABELS)) for x in a]
    expected = cohen_kappa_score(a, b, labels=list(agreement.LABELS), weights=weights)
    assert agreement.cohen_kappa(a, b, weights=weights) == pytest.approx(expected, abs=1e-12)


def test_kappa_is_nan_when_only_one_label_is_used() -> None:
    assert math.isnan(agreement.cohen_kappa([EQ, EQ], [EQ, EQ]))
    assert math.isnan(agreement.cohen_kappa([], []))


def test_pair_label_is_canonical_whichever_system_is_listed_first() -> None:
    assert agreement.pair_label(J("1", "x", "A", 1, "B", 2)) == (("1", "A", "B"), LT)
    assert agreement.pair_label(J("1", "y", "B", 2, "A", 1)) == (("1", "A", "B"), LT)
    assert agreement.pair_label(J("1", "y", "B", 3, "A", 3)) == (("1", "A", "B"), EQ)
    assert agreement.pair_label(J("1", "y", "B", 1, "A", 4)) == (("1", "A", "B"), GT)


def _judgments_from(labels_a: list[int], labels_b: list[int], a: str = "a1", b: str = "a2") -> list[J]:
    out = []
    for i, (x, y) in enumerate(zip(labels_a, labels_b)):
        out.append(J(str(i), a, "S", 2, "T", 2 + x))
        # the second annotator lists the systems the other way round
        out.append(J(str(i), b, "T", 2 + y, "S", 2))
    return out


def test_two_annotators_agree_only_on_pairs_both_judged() -> None:
    judgments = _judgments_from(HAND_A, HAND_B)
    judgments.append(J("99", "a1", "S", 1, "T", 2))  # a2 never judged item 99
    (row,) = agreement.group_agreement(judgments)
    # a1 says S<T when T's rank is higher: label of S vs T = sign(2 - (2 + x)) = -x
    expected = cohen_kappa_score([-x for x in HAND_A], [-y for y in HAND_B])
    assert row.n == 10
    assert row.kappa == pytest.approx(expected, abs=1e-12)
    assert row.annotator_pairs == 1


def test_first_judgment_of_a_repeated_pair_counts() -> None:
    judgments = [J("1", "a", "S", 1, "T", 2), J("1", "a", "S", 2, "T", 1), J("1", "b", "S", 1, "T", 2)]
    labels = agreement.labels_by_annotator(judgments)
    assert labels["a"] == {("1", "S", "T"): LT}


def test_groups_pool_within_and_between_annotator_pairs() -> None:
    rng = np.random.default_rng(5)
    truth = rng.choice(agreement.LABELS, size=60).tolist()

    def noisy(p: float) -> list[int]:
        return [x if rng.random() < p else int(rng.choice(agreement.LABELS)) for x in truth]

    names = {"e1": noisy(0.9), "e2": noisy(0.9), "c1": noisy(0.5), "c2": noisy(0.5)}
    judgments = [
        J(str(i), name, "S", 2, "T", 2 + x) for name, labels in names.items() for i, x in enumerate(labels)
    ]
    rows = agreement.group_agreement(judgments, {"expert": ["e1", "e2"], "crowd": ["c1", "c2"]})
    assert [r.name for r in rows] == ["expert", "crowd", "expert / crowd"]

    def labels_of(n: str) -> list[int]:
        return [-x for x in names[n]]

    expert = cohen_kappa_score(labels_of("e1"), labels_of("e2"))
    assert rows[0].kappa == pytest.approx(expert, abs=1e-12)
    assert rows[0].n == 60
    pairs = [("e1", "c1"), ("e1", "c2"), ("e2", "c1"), ("e2", "c2")]
    pooled_a = [x for a, _ in pairs for x in labels_of(a)]
    pooled_b = [x for _, b in pairs for x in labels_of(b)]
    assert rows[2].n == 240
    assert rows[2].annotator_pairs == 4
    assert rows[2].kappa == pytest.approx(cohen_kappa_score(pooled_a, pooled_b), abs=1e-12)
    assert rows[2].weighted_kappa == pytest.approx(
        cohen_kappa_score(pooled_a, pooled_b, weights="quadratic"), abs=1e-12
    )
    per_pair = [cohen_kappa_score(labels_of(a), labels_of(b)) for a, b in pairs]
    assert rows[2].mean_pair_kappa == pytest.approx(float(np.mean(per_pair)), abs=1e-12)
    assert rows[0].kappa > rows[1].kappa


def test_annotator_pair_table_lists_only_pairs_with_shared_judgments() -> None:
    judgments = [*_judgments_from(HAND_A, HAND_B), J("x", "loner", "S", 1, "U", 2)]
    rows = agreement.annotator_pair_table(judgments)
    assert [(r.name, r.n) for r in rows] == [("a1 / a2", 10)]


# ----------------------------------------------------------------------------- command


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "geceval", *args], capture_output=True, text=True, cwd=REPO, timeout=120
    )


def test_agreement_command_hand_worked_three_way_rankings() -> None:
    # j1 vs j2 on (A,B), (A,C), (B,C) of seg1 and seg2: j1 = < < < = > >, j2 = < < > > > =
    # observed 3/6; marginals (3,1,2)/6 and (2,1,3)/6 -> expected 13/36 -> kappa 5/23;
    # quadratic: observed weight 6/6, expected 62/36 -> 13/31. j3 shares nothing.
    proc = _run("agreement", str(FIX / "three_way.csv"), "--format", "wmt-csv", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["judgments"] == 15
    assert data["annotators"] == ["j1", "j2", "j3"]
    (row,) = data["groups"]
    assert row["kappa"] == pytest.approx(5 / 23, abs=1e-12)
    assert row["weighted_kappa"] == pytest.approx(13 / 31, abs=1e-12)
    assert (row["n"], row["annotator_pairs"]) == (6, 1)
    assert [p["name"] for p in data["pairs"]] == ["j1 / j2"]


def test_agreement_command_groups_and_bad_groups() -> None:
    groups = '{"one": ["j1"], "two": ["j2", "j3"]}'
    proc = _run("agreement", str(FIX / "three_way.csv"), "--format", "wmt-csv", "--groups", groups, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["groups"]
    assert [(r["name"], r["n"]) for r in rows] == [("one", 0), ("two", 0), ("one / two", 6)]
    assert rows[0]["kappa"] is None
    assert rows[2]["kappa"] == pytest.approx(5 / 23, abs=1e-12)
    bad = _run("agreement", str(FIX / "three_way.csv"), "--format", "wmt-csv", "--groups", "[1]")
    assert bad.returncode == 2
    assert "groups must be an object" in bad.stderr


@pytest.mark.shared
def test_agreement_of_gec_ranking_experts_equals_sklearn_on_shared_pairs() -> None:
    path = shared_path("gec-ranking", "data", "all_judgments.csv")
    proc = _run("agreement", str(path), "--format", "wmt-csv", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["judgments"] == 28146
    # independent pooling: first label per (annotator, item, sorted pair)
    labels: dict[str, dict[tuple[str, str, str], int]] = {}
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            s1, r1, s2, r2 = (
                row["system1Id"],
                int(row["system1rank"]),
                row["system2Id"],
                int(row["system2rank"]),
            )
            if s1 == s2:
                continue
            label = (r1 > r2) - (r1 < r2)
            key = (row["segmentId"], *sorted((s1, s2)))
            labels.setdefault(row["judgeID"], {}).setdefault(key, label if s1 < s2 else -label)
    a_all: list[int] = []
    b_all: list[int] = []
    for a, b in [("annot1", "annot2"), ("annot1", "annot3"), ("annot2", "annot3")]:
        shared = sorted(set(labels[a]) & set(labels[b]))
        a_all += [labels[a][k] for k in shared]
        b_all += [labels[b][k] for k in shared]
    (row,) = data["groups"]
    assert row["n"] == len(a_all)
    assert row["kappa"] == pytest.approx(cohen_kappa_score(a_all, b_all), abs=1e-12)
    assert row["weighted_kappa"] == pytest.approx(
        cohen_kappa_score(a_all, b_all, weights="quadratic"), abs=1e-12
    )
