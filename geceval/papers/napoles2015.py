"""Napoles et al. 2015 ("Ground Truth for GEC Metrics") Table 1: correlations among the judges.

Table 1 gives "Pearson's r and Spearman's rho correlations among judges (excluding the
reference)"; §3: "The annotators had strong correlations in terms of the total system ranking
and estimated quality". So each judge's own judgments give a total ranking (TrueSkill, "as done
in WMT 2014"); r compares two judges' estimated quality (TrueSkill mu) over the 13 systems
(reference left out), rho their ranks. Judges 1-3 are taken as gec-ranking's ``annot1``-``annot3``
(the release names no other mapping; ``non-native`` is not one of the "three native English
speakers").
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from scipy.stats import pearsonr, spearmanr

from geceval.formats.judgments import read_rankings_keyed
from geceval.human.pairs import prepare_rankings
from geceval.human.system_ranking import rank

JUDGMENTS = ("gec-ranking", "data", "all_judgments.xml")
JUDGES = ("annot1", "annot2", "annot3")
REFERENCE = "refmix1"
PUBLISHED: dict[tuple[int, int], tuple[float, float]] = {
    (1, 2): (0.80, 0.69),
    (1, 3): (0.73, 0.80),
    (2, 3): (0.81, 0.71),
}
"""(judge, judge) -> (Pearson's r, Spearman's rho), as printed in Table 1."""


@dataclass(frozen=True)
class Table1Cell:
    judges: tuple[int, int]
    r: float
    rho: float
    published: tuple[float, float]


def judge_scores(data: str | Path, *, runs: int = 1000, seed: int = 0) -> dict[str, dict[str, float]]:
    """Per judge, TrueSkill mu of each system from that judge's judgments alone (reference left out)."""
    rankings, _key = read_rankings_keyed(str(Path(data).joinpath(*JUDGMENTS)), "appraise-xml")
    out = {}
    for judge in JUDGES:
        mine = [r for r in rankings if r.annotator == judge]
        result = rank(prepare_rankings(mine), method="trueskill", runs=runs, seed=seed)
        out[judge] = {s.name: s.mu for s in result.systems if s.name != REFERENCE}
    return out


def table1(data: str | Path, *, runs: int = 1000, seed: int = 0) -> list[Table1Cell]:
    scores = judge_scores(data, runs=runs, seed=seed)
    cells = []
    for a, b in combinations(range(1, len(JUDGES) + 1), 2):
        sa, sb = scores[JUDGES[a - 1]], scores[JUDGES[b - 1]]
        names = sorted(set(sa) & set(sb))
        x, y = [sa[n] for n in names], [sb[n] for n in names]
        cells.append(
            Table1Cell((a, b), float(pearsonr(x, y)[0]), float(spearmanr(x, y)[0]), PUBLISHED[(a, b)])
        )
    return cells
