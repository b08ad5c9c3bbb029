"""The one-person check on real judges (issue 41): the human rankings Napoles et al. (2015) and
Sakaguchi et al. (2016) published, where every judge is a distinct person. Our careful models stood in
for careful people until now; these are people. None of them may be called another's twin, and an
account planted to copy one of them must be found."""

from __future__ import annotations

import csv
import random
import xml.etree.ElementTree as ET
from collections import defaultdict
from datetime import datetime

import pytest

from geceval.human.crowd_evidence import (
    agreement_drift_start,
    family,
    far_below,
    fence,
    leave_one_out,
    same_person,
    vouches,
)
from tests.alike import one_pair_changed
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
            answers[(row["Input.type"], row["Input.sentID"], systems)][row["WorkerId"]] = {
                s: int(r) for s, r in ranks.items()
            }
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
    assert {j: same_person(answers, j, ranks=True) for j in judges} == {j: [] for j in judges}
    # an account that copies the busiest judge's ranks on every screen it takes (one in three)
    busiest = max(judges, key=lambda j: sum(j in b for b in answers.values()))
    theirs = [s for s, b in answers.items() if busiest in b]
    for s in theirs[::3]:
        answers[s]["copy"] = dict(answers[s][busiest])
    assert [t.other for t in same_person(answers, "copy", ranks=True)] == [busiest]
    assert [t.other for t in same_person(answers, busiest, ranks=True)] == ["copy"]
    assert all(same_person(answers, j, ranks=True) == [] for j in judges if j != busiest)
    # near-identical: another that copies them on other screens with one pair of candidates ordered
    # otherwise where one pair alone can be
    for s in theirs[1::3]:
        answers[s]["near"] = one_pair_changed(answers[s][busiest])
    assert same_person(answers, "near") == []  # identical screens alone miss it
    assert [t.other for t in same_person(answers, "near", ranks=True)] == [busiest]


def _sakaguchi2016_in_order(name: str) -> tuple[dict, dict]:
    """One batch as the agreement evidence reads it: (type, sentence, systems) -> worker -> system ->
    rank (a number), and each worker's HITs in the order they submitted them."""
    answers: dict = defaultdict(dict)
    submitted: dict = defaultdict(list)
    path = shared_path("reassess-gec", "inter_annotator_agreements", name, required_in_ci=True)
    with path.open(encoding="utf-8", errors="replace", newline="") as f:
        for row in csv.DictReader(f):
            systems = tuple(row[f"Input.system{i}"] for i in range(1, 6))
            ranks = {
                s: float(row[f"Answer.rank_{i}"])
                for i, s in enumerate(systems, 1)
                if s and s != "###" and row[f"Answer.rank_{i}"]
            }
            screen = (row["Input.type"], row["Input.sentID"], systems)
            answers[screen][row["WorkerId"]] = ranks
            when = datetime.strptime(
                row["SubmitTime"].replace("PDT ", "").replace("PST ", ""), "%a %b %d %H:%M:%S %Y"
            )
            submitted[row["WorkerId"]].append((when, screen))
    return answers, {w: [s for _, s in sorted(hits)] for w, hits in submitted.items()}


@pytest.mark.parametrize("name", ["Main_merged.csv", "Ctrl_merged.csv"])
def test_real_workers_agree_with_the_crowd_and_do_not_drift_and_a_random_account_does_not(name):
    """The agreement evidence on people (two MTurk workers a HIT, seven in a batch): every worker's
    leave-one-out r (0.33-0.59) is above the campaign's fence (about 0.2) and at least half the median
    worker's (the crowd vouches for them), and no worker's agreement drifts. An account ranking at random on every third HIT of the busiest worker is far below it,
    and an account that ranks as that worker does and then at random drifts where it turned."""
    answers, order = _sakaguchi2016_in_order(name)
    workers = [w for w in order if leave_one_out(answers, w).r is not None]
    assert len(workers) >= 6
    campaign = [leave_one_out(answers, w).r for w in workers]
    line = fence(campaign)
    assert line is not None and 0.1 < line < 0.4, line
    assert not any(far_below(r, campaign) for r in campaign), campaign
    # every one of them is vouched for: a pass rate a tenth under the threshold would not exclude them
    assert all(vouches(r, campaign) for r in campaign), campaign
    assert all(agreement_drift_start(answers, w, order[w], line, min_others=1) is None for w in workers)

    busiest = max(workers, key=lambda w: len(order[w]))
    rng = random.Random(name)
    theirs = order[busiest]
    for screen in theirs[::3]:
        ranks = list(answers[screen][busiest].values())
        rng.shuffle(ranks)
        answers[screen]["random"] = dict(zip(answers[screen][busiest], ranks, strict=True))
    r = leave_one_out(answers, "random").r
    assert far_below(r, [*campaign, r]), (r, line)
    assert not vouches(r, [*campaign, r])
    for screen in theirs[::3]:
        del answers[screen]["random"]

    half = len(theirs) // 2
    for k, screen in enumerate(theirs):
        ranks = dict(answers[screen][busiest])
        if k >= half:
            values = list(ranks.values())
            rng.shuffle(values)
            ranks = dict(zip(ranks, values, strict=True))
        answers[screen]["drifter"] = ranks
    campaign = [leave_one_out(answers, w).r for w in [*workers, "drifter"]]
    start = agreement_drift_start(answers, "drifter", theirs, fence(campaign), min_others=1)
    assert start is not None and abs(start - half) <= 15, (start, half)


@pytest.mark.parametrize("name", SETS)
def test_no_published_judge_is_left_out_of_anothers_crowd_as_a_close_account(name):
    """Accounts that agree with a worker far more closely than the worker agrees with the crowd are left
    out of the crowd the worker is measured against (one program's accounts would vouch for one
    another). People are not such accounts: no published judge is another's, not even the closest
    pair of MTurk workers (r 0.80 with each other over 21 screens), so their figures are as before."""
    answers = SETS[name]()
    judges = sorted({j for by_judge in answers.values() for j in by_judge})
    assert {j: family(answers, j) for j in judges} == {j: set() for j in judges}
    # with the gap waived, pairs this close exist: the rule is not empty by construction
    close = {j: family(answers, j, gap=-1.0) for j in judges}
    assert any(close.values()) is (name != "napoles2015"), close
