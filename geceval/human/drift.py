"""Drift (issue 41): a worker careful at first who stops reading. Trap verdicts are judged over a
sliding window as well as in total; the total dilutes late failures slowly, the window does not.

A worker drifts when their last ``DRIFT_WINDOW`` verdicts pass under the campaign's threshold while
everything before them passed well (at least ``DRIFT_DROP`` more): a change of behaviour, not the bad
luck of a worker who was never far above the threshold. :func:`drift_start` says where the failing
stretch began, so that only the work since then is removed.
"""

from __future__ import annotations

from collections.abc import Sequence

DRIFT_WINDOW = 10
"""Trap verdicts in the sliding window."""
DRIFT_DROP = 0.3
"""How far the window's pass rate must fall below the rate of the verdicts before it. Simulated
(tests/core/test_drift.py), checked after every trap up to 40: a worker passing 90% of traps drifts
falsely 0.7% of the time, one passing 80% 16%; one passing 90% for 10 traps and then 50% (at random)
is caught by trap 20 57% of the time, by trap 30 87%. A window of 8 catches more (73%, 93%) at a
price careful workers pay (4.5%, 29%)."""


def _rate(verdicts: Sequence[bool]) -> float:
    return sum(verdicts) / len(verdicts)


def window_fails(verdicts: Sequence[bool], end: int, threshold: float, window: int = DRIFT_WINDOW) -> bool:
    """The window of ``window`` verdicts ending before ``end`` fails: under ``threshold``, and at least
    ``DRIFT_DROP`` under the rate of the (at least ``window``) verdicts before it."""
    start = end - window
    if start < window:
        return False
    recent, earlier = _rate(verdicts[start:end]), _rate(verdicts[:start])
    return recent < threshold and earlier - recent >= DRIFT_DROP


def drift_start(verdicts: Sequence[bool], *, threshold: float, window: int = DRIFT_WINDOW) -> int | None:
    """Index of the first failed verdict of the failing stretch when the latest window fails (None: it
    does not): the first failure in the earliest window of the unbroken run of failing windows that
    ends with the latest one. ``verdicts`` in the order they were given."""
    end = len(verdicts)
    if not window_fails(verdicts, end, threshold, window):
        return None
    while window_fails(verdicts, end - 1, threshold, window):
        end -= 1
    return next(i for i in range(end - window, end) if not verdicts[i])
