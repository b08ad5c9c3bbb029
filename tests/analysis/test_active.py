"""Active selection of the next comparison (pure: no database)."""

from __future__ import annotations

import pytest

from geceval.formats.judgments import PairwiseJudgment
from ranking.analysis.active import next_systems, system_estimates


def _pairs():
    # a beats b 30 times, b beats c 30 times; d was never judged
    return [PairwiseJudgment(str(i), "j", "a", 1, "b", 2) for i in range(30)] + [
        PairwiseJudgment(str(i), "j", "b", 1, "c", 2) for i in range(30)
    ]


def test_an_unjudged_system_is_shown_first_and_judged_ones_shrink_sigma():
    est = system_estimates(_pairs(), ["a", "b", "c", "d"])
    assert est["d"] == (0.0, 0.5)
    assert all(est[s][1] < 0.5 for s in "abc") and est["a"][0] > est["b"][0] > est["c"][0]
    assert next_systems(_pairs(), ["a", "b", "c", "d"], 3, seed=1)[0] == "d"


def test_opponents_close_in_mu_are_preferred_and_selection_is_seeded():
    pairs = _pairs() + [PairwiseJudgment("x", "j", "d", 1, "a", 1)] * 30
    counts = {}
    for seed in range(300):
        chosen = next_systems(pairs, ["a", "b", "c", "d"], 2, seed=seed)
        counts[chosen[1]] = counts.get(chosen[1], 0) + 1
    first = next_systems(pairs, ["a", "b", "c", "d"], 2, seed=0)[0]
    est = system_estimates(pairs, ["a", "b", "c", "d"])
    others = sorted((s for s in "abcd" if s != first), key=lambda s: abs(est[s][0] - est[first][0]))
    assert counts[others[0]] > counts[others[-1]]
    assert next_systems(pairs, list("abcd"), 3, seed=5) == next_systems(pairs, list("abcd"), 3, seed=5)


def test_k_must_fit_the_systems():
    with pytest.raises(ValueError, match="k must be between 2"):
        next_systems([], ["a", "b"], 3)
