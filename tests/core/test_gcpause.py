"""gc_paused: no cyclic collection inside, the collector's state restored after, frozen on request."""

from __future__ import annotations

import gc

from geceval.gcpause import gc_paused


def test_no_collection_inside_and_the_collector_is_enabled_again_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        before = gc.get_stats()[0]["collections"]
        for _ in range(10_000):
            [].append([])  # far more than the 700 allocations that start a gen-0 collection
        assert gc.get_stats()[0]["collections"] == before
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_freeze_moves_what_is_alive_to_the_permanent_generation() -> None:
    try:
        with gc_paused(freeze=True):
            kept = [[] for _ in range(100)]
        assert gc.get_freeze_count() >= len(kept)
        assert gc.isenabled()
    finally:
        gc.unfreeze()  # the rest of the test session collects as usual
