"""Progress for long runs, written to stderr so stdout stays machine-readable."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

ProgressFn = Callable[[int, int], None]
"""``progress(done, total)``; the core calls it, the caller decides how to show it."""


def no_progress(done: int, total: int) -> None:
    return None


class StderrProgress:
    """A throttled ``label: done/total (pct%)`` line on stderr (at most every ``interval`` s)."""

    def __init__(self, label: str, *, stream: TextIO | None = None, interval: float = 0.5) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.interval = interval
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < self.interval:
            return
        self._last = now
        pct = 100.0 * done / total if total else 100.0
        end = "\n" if done >= total else "\r"
        self.stream.write(f"{self.label}: {done}/{total} ({pct:.0f}%){end}")
        self.stream.flush()
