"""bench/bots_failed_traps.py judges each kind of trap as the server does: an added correction (the
edit-level protocol's positive control) fails when ranked below its base or when its added edit is
marked bad, the other kinds when not ranked below or when their added edits are not marked bad."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench.bots_failed_traps import label_failed, model_passes_rank, rank_half_failed, required
from ranking.models import ControlKind

WORSE = (ControlKind.ADDED_ERROR, ControlKind.UNDONE_CORRECTION)
CORRECTION = ControlKind.ADDED_CORRECTION


@pytest.mark.parametrize("kind", WORSE)
def test_a_trap_worse_than_its_base_fails_its_halves_unless_ranked_below_and_marked_bad(kind):
    assert [rank_half_failed(kind, trap, 2) for trap in (1, 2, 3)] == [True, True, False]
    assert [label_failed(kind, label) for label in ("good", "neutral", "bad")] == [True, True, False]
    # the noise-free model (ties within 2 points) ranks the trap below when the base is 3 points above
    assert [model_passes_rank(kind, gap, 2.0) for gap in (-3.0, 0.0, 2.0, 3.0)] == [False] * 3 + [True]


def test_an_added_correction_fails_its_halves_only_when_ranked_below_or_marked_bad():
    assert [rank_half_failed(CORRECTION, trap, 2) for trap in (1, 2, 3)] == [False, False, True]
    assert [label_failed(CORRECTION, label) for label in ("good", "neutral", "bad")] == [False, False, True]
    assert [model_passes_rank(CORRECTION, gap, 2.0) for gap in (-3.0, 0.0, 2.0, 3.0)] == [True] * 3 + [False]


@pytest.mark.parametrize("kind", [*WORSE, CORRECTION])
def test_the_verdict_judges_the_edits_the_trap_adds_to_its_base_of_every_kind(kind):
    shared, added = (0, 1, "I"), (3, 4, "went")
    mine = {1: [(shared, "good"), (added, "good")], 2: [(shared, "good")]}  # trap 1, base 2
    control = SimpleNamespace(kind=kind, trap_id=1, base_id=2)
    assert required(mine, control, added) and not required(mine, control, shared)
