"""The simulated workers of bench/bots.py do what docs/hardening.md says they do (no server needed)."""

from __future__ import annotations

import random

import pytest

from bench.bot_strategies import (
    STRATEGIES,
    Gmeg,
    answers,
    dense_ranks,
    fewest_edits,
    regenerate,
    source_first,
    word_edits,
)
from geceval.insert_errors import insert_errors_lines
from tests.shared_data import shared_path

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def gmeg() -> Gmeg:
    return Gmeg.load(shared_path("GMEG", "data", "dev", "fce"), 40)


def screen_of(source: str, *texts: str) -> dict:
    return {"source": source, "candidates": [{"position": p, "text": t} for p, t in enumerate(texts)]}


def test_dense_ranks_put_the_best_first_and_tie_values_within_the_tolerance():
    assert dense_ranks({0: 10.0, 1: 90.0, 2: 50.0}) == {1: 1, 2: 2, 0: 3}
    assert dense_ranks({0: 50.0, 1: 50.0, 2: 20.0}) == {0: 1, 1: 1, 2: 2}
    assert dense_ranks({0: 80.0, 1: 77.0, 2: 60.0}, tolerance=5) == {0: 1, 1: 1, 2: 2}


def test_answers_are_clipped_whole_scores_for_prws_and_ranks_for_ranking():
    values = {0: 104.6, 1: -3.0, 2: 49.5}
    assert answers("prws", values) == [
        {"position": 0, "score": 100},
        {"position": 1, "score": 0},
        {"position": 2, "score": 50},
    ]
    assert answers("ranking", values) == [
        {"position": 0, "rank": 1},
        {"position": 1, "rank": 3},
        {"position": 2, "rank": 2},
    ]


def test_word_edits_count_difflib_opcodes_on_whitespace_tokens():
    assert word_edits("He go to school .", "He go to school .") == 0
    assert word_edits("He go to school .", "He goes to the school .") == 2


def test_source_first_and_fewest_edits_put_the_source_copy_on_top(gmeg):
    source = gmeg.sources[5]
    screen = screen_of(source, gmeg.systems["amu"][5] + " extra", source, gmeg.references["ref0"][5])
    for strategy in (source_first, fewest_edits):
        values = strategy(screen, gmeg, random.Random(1))
        assert values[1] == 100 and values[0] < 100 and values[2] < 100


def test_regeneration_finds_the_generated_trap_and_spares_the_source_copy(gmeg):
    traps = insert_errors_lines(gmeg.sources, seed=0)  # what trap_system_generate makes
    found = 0
    for i, (source, trap) in enumerate(zip(gmeg.sources, traps)):
        values = regenerate(
            screen_of(source, source, trap.text, gmeg.systems["nus"][i]), gmeg, random.Random(1)
        )
        assert values[0] == 100
        found += values[1] == 0
    assert found == len(traps)


def test_the_careful_worker_rates_a_reference_above_the_source_on_average(gmeg):
    rng = random.Random(3)
    gaps = []
    for i, source in enumerate(gmeg.sources):
        ref = gmeg.references["ref0"][i]
        if ref != source:
            values = STRATEGIES["careful"](screen_of(source, source, ref), gmeg, rng)
            gaps.append(values[1] - values[0])
    assert sum(gaps) / len(gaps) > 10


def test_a_source_that_is_not_in_the_public_file_is_a_harness_error(gmeg):
    with pytest.raises(LookupError):
        gmeg.quality("Not a GMEG sentence at all .", "x")
