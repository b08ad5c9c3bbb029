"""TrueSkill's active selection of what to compare next (Sakaguchi, Post and Van Durme 2014).

For a campaign that lets TrueSkill choose the systems of its next ranking screens: from the
judgments so far, one TrueSkill run gives each system a mean mu and an uncertainty sigma; the
next screen shows the system TrueSkill is least sure of (largest sigma², ties: larger name, as
the ranking run's own selection) and ``k - 1`` opponents drawn without replacement with
probability proportional to ``exp(-|mu_a - mu_b|)`` (close systems are the informative
comparisons). Systems never judged yet come first (they have the prior's sigma, the largest).

Pure function over plain data: the caller (screen creation in ranking.services) decides when
to use it and how to seed it (e.g. campaign seed and screen number).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geceval.formats.judgments import PairwiseJudgment
from geceval.human.pairs import prepare
from geceval.human.trueskill import MU, SIGMA, trueskill_runs


def system_estimates(pairs: Sequence[PairwiseJudgment], systems: Sequence[str], *, seed: int = 0) -> dict:
    """System -> (mu, sigma) after one TrueSkill run over ``pairs``; unjudged systems keep the prior."""
    out = dict.fromkeys(systems, (MU, SIGMA))
    usable = [p for p in pairs if p.sys1 in out and p.sys2 in out]
    if usable and len({s for p in usable for s in (p.sys1, p.sys2)}) >= 2:
        data = prepare(usable)
        mu, sigma = trueskill_runs(data, [0], seed)
        for i, name in enumerate(data.systems):
            out[name] = (float(mu[0, i]), float(sigma[0, i]))
    return out


def next_systems(
    pairs: Sequence[PairwiseJudgment], systems: Sequence[str], k: int, *, seed: int = 0
) -> list[str]:
    """The ``k`` systems the next ranking screen should show (module docstring)."""
    if k < 2 or k > len(systems):
        raise ValueError("k must be between 2 and the number of systems")
    estimates = system_estimates(pairs, systems, seed=seed)
    first = max(systems, key=lambda s: (estimates[s][1] ** 2, s))
    rng = np.random.default_rng(seed)
    chosen = [first]
    rest = [s for s in sorted(systems) if s != first]
    mu_a = estimates[first][0]
    while len(chosen) < k:
        weights = np.array([np.exp(-abs(mu_a - estimates[s][0])) for s in rest])
        pick = int(rng.choice(len(rest), p=weights / weights.sum()))
        chosen.append(rest.pop(pick))
    return chosen
