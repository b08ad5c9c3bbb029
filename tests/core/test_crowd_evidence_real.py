"""The one-person check on real judges (issue 41): the human rankings Napoles et al. (2015) and
Sakaguchi et al. (2016) published, where every judge is a distinct person. Our careful models stood in
for careful people until now; these are people. None of them may be called another's twin, and an
account planted to copy one of them must be found."""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from collections import defaultdict

import pytest

from geceval.human.crowd_evidence import same_person
from tests.shared_data import shared_path


def _napoles2015() -> dict:
    """item -> judge -> system -> rank: the four judges of gec-ranking's all_judgments.xml."""
    answers: dict = defaultdict(dict)
    path = shared_path("gec-ranking", "data", "all_judgments.xml", required_in_ci=True)
    for item in ET.parse(path).iter("ranking-item"):
        ranks = {t.get("system"): int(t.get("rank")) for t in item.iter("translation")}
        if ranks:
            answers[item.get("id")][item.get("user")] = ranks
    return answers


def _sakaguchi2016(name: str) -> dict:
    """(type, sentence, systems) -> MTurk worker -> system -> rank: one batch of the paper's ranking
    tasks as MTurk exported it (two workers a HIT)."""
    answers: dict = defaultdict(dict)
    path = shared_path("reassess-gec", "inter_annotator_agreements", name, required_in_ci=True)
    with path.open(encoding="utf-8", errors="replace", newline="") as f:
        for row in csv.DictReader(f):
            systems = tuple(row[f"Input.system{i}"] for i in range(1, 6))
            # a HIT of fewer than five texts fills the rest with "###", left unranked
            ranks = {s: row[f"Answer.rank_{i}"] for i, s in enumerate(systems, 1) if s and s != "###"}
            if not all(ranks.values()):  # 14 rows leave a text unranked: no whole answer to compare
                continue
            answers[(row["Input.type"], row["Input.sentID"], systems)][row["WorkerId"]] = ranks
    return answers


SETS = {
    "napoles2015": _napoles2015,
    "sakaguchi2016-main": lambda: _sakaguchi2016("Main_merged.csv"),
    "sakaguchi2016-ctrl": lambda: _sakaguchi2016("Ctrl_merged.csv"),
}


@pytest.mark.parametrize("name", SETS)
def test_real_judges_are_not_one_person_and_a_copy_of_one_is(name):
    answers = SETS[name]()
    judges = sorted({j for by_judge in answers.values() for j in by_judge})
    assert len(judges) >= 4 and sum(len(b) > 1 for b in answers.values()) >= 280  # the files as published
    assert {j: same_person(answers, j) for j in judges} == {j: [] for j in judges}
    # an account that copies the busiest judge's ranks on every screen it takes (one in three)
    busiest = max(judges, key=lambda j: sum(j in b for b in answers.values()))
    theirs = [s for s, b in answers.items() if busiest in b]
    for s in theirs[::3]:
        answers[s]["copy"] = dict(answers[s][busiest])
    assert [t.other for t in same_person(answers, "copy")] == [busiest]
    assert [t.other for t in same_person(answers, busiest)] == ["copy"]
    assert all(same_person(answers, j) == [] for j in judges if j != busiest)
