"""Time on a screen, measured by the server on every path (the pages and the workers' API; issue 17).

When a screen is served the worker gets a signed stamp of (screen, assignment, server time); the submit
hands it back and the time on the screen is the server's now minus the stamped time. A stamp that is
missing, forged, or for another screen or assignment gives no time (None), which the worker table
counts as suspicious. A time the client reports is kept apart and never used for checks.

A signed stamp is readable (signing is not encryption): it names the screen by its opaque handle
(``ranking.work.screen_handles``), never by its id, so the stamp tells a control screen from a
judged one no more than the page does (issue 35).
"""

from __future__ import annotations

import time

from django.core.signing import BadSignature, Signer

from ranking.work.screen_handles import screen_handle

_signer = Signer(salt="ranking.work.started")
MAX_STAMP_LENGTH = 200
"""Longer than any stamp this module signs: a longer one is refused before its signature is checked."""


def screen_stamp(*, screen_id: int, assignment_id: int | None, now: float | None = None) -> str:
    """The signed issue time of a screen served within an assignment (None: a page outside any
    assignment, e.g. a pilot or a preview, whose stamp never gives a time)."""
    issued = time.time() if now is None else now
    if assignment_id is None:  # "-" matches no assignment
        return _signer.sign(f"-:-:{issued:.3f}")
    handle = screen_handle(assignment_id=assignment_id, screen_id=screen_id)
    return _signer.sign(f"{handle}:{assignment_id}:{issued:.3f}")


def screen_seconds(
    stamp: str | None, *, screen_id: int, assignment_id: int, now: float | None = None
) -> float | None:
    """Seconds from the stamp's issue to now, or None when the stamp is missing, forged, or was issued
    for another screen or assignment."""
    if not stamp or len(stamp) > MAX_STAMP_LENGTH:
        return None
    try:
        stamped_screen, stamped_assignment, issued = _signer.unsign(stamp).split(":")
        issued_at = float(issued)
    except (BadSignature, ValueError):
        return None
    if stamped_assignment != str(assignment_id) or stamped_screen != screen_handle(
        assignment_id=assignment_id, screen_id=screen_id
    ):
        return None
    return max(0.0, (time.time() if now is None else now) - issued_at)


def stamp_backdated(stamp: str, seconds: float) -> str:
    """BENCHMARK ONLY (bench/bots.py ``--speed-rule on``): the same stamp issued ``seconds`` earlier, as
    if the worker had spent that long on the screen, without the benchmark waiting for it. It needs the
    server's SECRET_KEY, which no worker has; no page, API or service calls it."""
    screen, within, issued = _signer.unsign(stamp).split(":")
    return _signer.sign(f"{screen}:{within}:{float(issued) - seconds:.3f}")
