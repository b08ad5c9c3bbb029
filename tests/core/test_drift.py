"""geceval.human.drift: a sliding window of trap verdicts beside the total."""

from __future__ import annotations

import random

from geceval.human.drift import DRIFT_WINDOW, drift_start, window_fails


def test_a_worker_who_stops_reading_drifts_from_where_the_failures_began():
    verdicts = [True] * 20 + [False] * 8
    assert sum(verdicts) / len(verdicts) > 0.6  # the total still passes
    start = drift_start(verdicts, threshold=0.6)
    # the earliest failing window of the run is verdicts 15-24 (5 of 10 failed: 0.5 < 0.6, and 0.5
    # below the 1.0 before it); its first failure is the first of the eight
    assert start == 20
    assert window_fails(verdicts, 25, 0.6) and not window_fails(verdicts, 24, 0.6)
    assert DRIFT_WINDOW == 10


def test_no_drift_without_a_full_window_and_enough_before_it():
    assert drift_start([False] * 15, threshold=0.6) is None  # only 5 before the window
    assert drift_start([True] * 10 + [False] * 3, threshold=0.6) is None  # the window passes (7/10)


def test_a_worker_never_far_above_the_threshold_does_not_drift():
    """Bad luck is not drift: the window must fall 0.3 below the rate before it."""
    verdicts = [True, True, False] * 7 + [False, True, False, True, False, False, True, False, True, False]
    assert drift_start(verdicts, threshold=0.6) is None


def test_careful_workers_rarely_drift_and_switching_workers_do():
    """Checked after every trap, as the record is refreshed after each."""
    rng = random.Random(5)

    def ever(verdicts: list[bool]) -> bool:
        return any(drift_start(verdicts[:k], threshold=0.6) is not None for k in range(20, len(verdicts) + 1))

    careful = sum(ever([rng.random() < 0.9 for _ in range(40)]) for _ in range(1000))
    switching = sum(
        ever([rng.random() < 0.9 for _ in range(10)] + [rng.random() < 0.5 for _ in range(20)])
        for _ in range(1000)
    )
    assert careful <= 15
    assert switching >= 800


def test_a_random_worker_s_lucky_start_is_rarely_kept_by_the_drift_rule():
    """Drift keeps the work before the failing stretch, so a random worker whose first traps pass by luck
    and whose later ones fail is excluded with that start still counting. Within 20 traps, checked after
    each from 10 with the pass rate beside the window (as the record is), that happens to about 2% of
    random workers (passing half their traps), who keep about half their work: about 1% of a random
    crowd's judgments, under the 5% the bots' goal allows. The rest are caught by the pass rate first
    (all their work out) or not at all within 20 traps (the pass rate's luck, not drift's)."""
    rng = random.Random(11)
    lucky, kept_share = 0, 0.0
    n = 4000
    for _ in range(n):
        verdicts = [rng.random() < 0.5 for _ in range(20)]
        for k in range(10, 21):
            if sum(verdicts[:k]) / k < 0.6:
                break  # the pass rate excludes: nothing kept
            start = drift_start(verdicts[:k], threshold=0.6)
            if start is not None:
                lucky += 1
                kept_share += start / k
                break
    assert 0.005 <= lucky / n <= 0.04
    assert kept_share / n <= 0.02
