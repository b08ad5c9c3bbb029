"""The ranking trap rule against real judges (issue 41): careful people unlike our careful models.

A hidden trap is its base with one correction undone, shown beside the base, and a ranking worker
passes it by ranking it below the base (a tie fails). The published human rankings hold such pairs
by nature: two outputs of one sentence shown side by side where one is the other with one of its
corrections undone. Those our trap generator would have taken (the GLEU+ drop, ``careful_guards``)
are traps these judges met without knowing it. Replayed through the default exclusion rules, the
three expert judges of Napoles et al. (2015) must be kept as the issue asks of careful people
(excluded at most 2% of the time within 20 traps), and the MTurk workers of Sakaguchi et al. (2016)
on average (each at most 5%). Before ``tense_only`` two of the experts were not: shown no context,
the judges ranked a text with a tense correction undone ("become" / "became") level with its base
in 9 of 12 pairs (three sentences)."""

from __future__ import annotations

import csv
import random
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from geceval.human.drift import drift_start
from geceval.human.worker_checks import Evidence, Rules, exclusion_reasons, trap_test
from geceval.traps import hidden
from geceval.traps.hidden import DEFAULT_MIN_DROP, UNDONE_CORRECTION, careful_guards, normalise, sentence_gleu
from tests.shared_data import shared_path

SEQUENCES = 400
"""Bootstrap draws of a judge's 20 traps: the exclusion shares below move by about 1% between seeds."""
TRAPS = 20
"""The issue's bound: excluded within 20 traps."""


def _conll14() -> tuple[list[str], list[list[str]]]:
    """The CoNLL-14 test source and its two references (NUCLE's annotators), line by line."""
    folder = shared_path("gecmetrics", "data", "conll14st-test", required_in_ci=True)
    source = (folder / "conll14st-test.tok.src").read_text(encoding="utf-8").split("\n")
    refs = [
        (folder / "refs" / f"conll14st-test.tok.trg{i}").read_text(encoding="utf-8").split("\n")
        for i in (0, 1)
    ]
    return source, refs


def _natural_traps(source: str, refs: list[str], texts: dict, ranks: dict) -> list[tuple[int, int]]:
    """(base rank, trap rank) of each pair of ``texts`` (shown together, ranked ``ranks``) that is a
    trap our generator could have made: the trap is the base with one correction undone, at least
    ``DEFAULT_MIN_DROP`` worse by sentence GLEU+, and ``careful_guards`` hold."""
    pairs = []
    for b, base in texts.items():
        undone = {normalise(t) for t in hidden.undone_corrections(base, source, random.Random(0))}
        for t, trap in texts.items():
            if normalise(trap) == normalise(base) or normalise(trap) not in undone:
                continue
            if sentence_gleu(source, refs, base) - sentence_gleu(source, refs, trap) < DEFAULT_MIN_DROP:
                continue
            if careful_guards(base, trap, UNDONE_CORRECTION, source, refs):
                pairs.append((ranks[b], ranks[t]))
    return pairs


def _napoles2015() -> dict[str, list[tuple[int, int]]]:
    """judge -> their natural traps, from gec-ranking's all_judgments.xml (the item id is the 0-based
    line of the CoNLL-14 test set; "src" is the source; outputs shown once for several systems are
    one text)."""
    source, refs = _conll14()
    outputs = shared_path(
        "grammatical-evaluation", "data", "original", "official_submissions", required_in_ci=True
    )
    lines: dict[str, list[str]] = {}

    def line_of(system: str, line: int) -> str | None:
        name = "INPUT" if system == "src" else system
        if name not in lines:
            path = Path(outputs, name)
            lines[name] = path.read_text(encoding="utf-8").split("\n") if path.exists() else []
        return lines[name][line].strip() if lines[name] else None  # refmix1 is not published

    traps: dict[str, list[tuple[int, int]]] = defaultdict(list)
    path = shared_path("gec-ranking", "data", "all_judgments.xml", required_in_ci=True)
    for item in ET.parse(path).iter("ranking-item"):
        line = int(item.get("id"))
        ranks = {t.get("system").split(",")[0]: int(t.get("rank")) for t in item.iter("translation")}
        texts = {s: text for s in ranks if (text := line_of(s, line)) is not None}
        pair_refs = [refs[0][line].strip(), refs[1][line].strip()]
        traps[item.get("user")] += _natural_traps(source[line].strip(), pair_refs, texts, ranks)
    return traps


def _sakaguchi2016() -> dict[str, list[tuple[int, int]]]:
    """MTurk worker -> their natural traps, from both ranking batches (the HIT gives the source and
    the texts; its sentence is found in the CoNLL-14 test set by its source)."""
    source, refs = _conll14()
    line_of = {normalise(s): i for i, s in enumerate(source)}
    traps: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for name in ("Main_merged.csv", "Ctrl_merged.csv"):
        path = shared_path("reassess-gec", "inter_annotator_agreements", name, required_in_ci=True)
        with path.open(encoding="utf-8", errors="replace", newline="") as f:
            for row in csv.DictReader(f):
                line = line_of.get(normalise(row["Input.source"]))
                if line is None:  # a source the HIT gives differently (quotes, spaces): not matched
                    continue
                shown = [
                    i for i in range(1, 6) if row[f"Input.sentence{i}"] != "###" and row[f"Answer.rank_{i}"]
                ]
                texts = {i: row[f"Input.sentence{i}"].strip() for i in shown}
                ranks = {i: int(row[f"Answer.rank_{i}"]) for i in shown}
                pair_refs = [refs[0][line].strip(), refs[1][line].strip()]
                traps[row["WorkerId"]] += _natural_traps(source[line].strip(), pair_refs, texts, ranks)
    return traps


def excluded_within(traps: list[tuple[int, int]], n: int = TRAPS) -> bool:
    """Whether the default rules (the pass rate, its drift window, Appraise's test on ranks) exclude
    a ranking worker at some point of ``traps`` (their first ``n``), as the record is read after
    every trap."""
    rules = Rules()
    verdicts: list[bool] = []
    for k, (base, trap) in enumerate(traps[:n], start=1):
        verdicts.append(trap > base)
        evidence = Evidence(
            traps_seen=k,
            traps_passed=sum(verdicts),
            mann_whitney_p=trap_test([b for b, _ in traps[:k]], [t for _, t in traps[:k]], answer="rank"),
            drifting=drift_start(verdicts, threshold=rules.trap_threshold) is not None,
        )
        if exclusion_reasons(evidence, rules):
            return True
    return False


def exclusion_share(traps: list[tuple[int, int]], seed: str) -> float:
    """How often a worker answering like this judge (their natural traps drawn with replacement) is
    excluded within 20 traps."""
    rng = random.Random(seed)
    return sum(excluded_within(rng.choices(traps, k=TRAPS)) for _ in range(SEQUENCES)) / SEQUENCES


@pytest.fixture(scope="module")
def napoles2015() -> dict[str, list[tuple[int, int]]]:
    return _napoles2015()


EXPERTS = ("annot1", "annot2", "annot3")
"""Napoles et al. (2015)'s three native-speaker judges; the paper leaves out the fourth, "non-native"."""


def test_the_experts_of_napoles2015_are_kept_on_the_traps_they_met(napoles2015):
    assert all(len(napoles2015[j]) >= 15 for j in EXPERTS), {j: len(t) for j, t in napoles2015.items()}
    verdicts = Counter(
        "pass" if t > b else "tie" if t == b else "above" for j in EXPERTS for b, t in napoles2015[j]
    )
    assert verdicts["pass"] >= 0.9 * sum(verdicts.values()), verdicts
    shares = {j: exclusion_share(napoles2015[j], seed=j) for j in EXPERTS}
    assert all(share <= 0.02 for share in shares.values()), shares


def test_without_the_tense_guard_the_experts_fail_as_many_traps_as_a_careless_worker_risks(monkeypatch):
    """The guard is what keeps them: with tense corrections undone among the traps, two of the three
    experts are excluded 4-7% of the time (ties, not errors: none ranked the trap above its base)."""
    monkeypatch.setattr(hidden, "tense_only", lambda source, edit: False)
    traps = _napoles2015()
    shares = {j: exclusion_share(traps[j], seed=j) for j in EXPERTS}
    assert sum(share > 0.02 for share in shares.values()) >= 2, shares


def test_the_mturk_workers_of_sakaguchi2016_are_kept_on_the_traps_they_met():
    """Five workers met 10 or more (14-40). Together they are excluded 1% of the time; the one who
    passed 34 of 40 (4 ties, 2 ranked above: "among people" / "among the people" level, and a clear
    "was diagnosis" level too) 3% of the time, on the pass rate at 10-20 traps that a worker passing
    85% fails by chance: the bound of a rule that must also exclude the bots within 20 traps."""
    traps = _sakaguchi2016()
    busy = {w: t for w, t in traps.items() if len(t) >= 10}
    assert len(busy) >= 4 and sum(len(t) for t in busy.values()) >= 100, {w: len(t) for w, t in traps.items()}
    shares = {w: exclusion_share(t, seed=w) for w, t in busy.items()}
    assert sum(shares.values()) / len(shares) <= 0.02 and max(shares.values()) <= 0.05, shares
