"""Builders for analysis tests: small judgment sets with known answers."""

from __future__ import annotations

import random

from geceval.judgments import PrwsRating, RankingJudgment
from tests import factories

STRENGTH = {"best": 3.0, "good": 2.0, "mid": 1.0, "src": 0.0}


def synthetic_rankings(n: int = 300, seed: int = 1) -> list[RankingJudgment]:
    """3-way rankings of 4 systems of known strength (noisy), deterministic for a seed."""
    rng = random.Random(seed)
    names = sorted(STRENGTH)
    out = []
    for i in range(n):
        shown = rng.sample(names, 3)
        noisy = {s: STRENGTH[s] + rng.gauss(0, 1.0) for s in shown}
        order = sorted(shown, key=lambda s: -noisy[s])
        out.append(
            RankingJudgment(f"item{i % 40}", f"judge{i % 7}", tuple((s, order.index(s) + 1) for s in shown))
        )
    return out


def synthetic_ratings(items: int = 30, judges: int = 4, seed: int = 2) -> list[PrwsRating]:
    rng = random.Random(seed)
    out = []
    for i in range(items):
        for j in range(judges):
            for s, strength in STRENGTH.items():
                score = max(0, min(100, round(40 + 15 * strength + rng.gauss(0, 10))))
                out.append(PrwsRating(f"s{i}", f"w{j}", s, float(score), s == "best" and i % 5 == 0))
    return out


def researcher_and_project(username: str = "res"):
    user = factories.user(username, "researcher")
    return user, factories.project(user)


def ranking_campaign(n: int = 300, seed: int = 1, name: str = "synthetic"):
    user, project = researcher_and_project()
    rankings = synthetic_rankings(n, seed)
    campaign = factories.imported_campaign(project, name, rankings=rankings)
    return user, campaign, rankings


def prws_campaign(name: str = "prws"):
    user, project = researcher_and_project()
    ratings = synthetic_ratings()
    campaign = factories.imported_campaign(project, name, ratings=ratings)
    return user, campaign, ratings


def prws_corpus_campaign():
    """A PRWS judgment set over a real 10-sentence corpus with one reference and 4 systems whose
    human scores follow how many sentences they corrected."""
    user, project = researcher_and_project()
    sources = [f"He go to school {i} ." for i in range(10)]
    good = [f"He goes to school {i} ." for i in range(10)]
    systems = {
        "ref": good,
        "a": good[:8] + sources[8:],
        "b": good[:4] + sources[4:],
        "c": good[:1] + sources[1:],
        "src": sources,
    }
    kinds = {"ref": "reference", "src": "source"}
    corpus, _made = factories.corpus_with_systems(project, sources=sources, systems=systems, kinds=kinds)
    ratings = [
        PrwsRating(str(i), f"w{j}", name, 90.0 if lines[i] == good[i] else 30.0 + j, False)
        for i in range(10)
        for j in range(2)
        for name, lines in systems.items()
        if name != "ref"
    ]
    campaign = factories.imported_campaign(project, "p", ratings=ratings, corpus=corpus)
    return user, campaign
