"""Joins of judgments, outputs and scores by name or sentence that refuse to go quietly wrong.

Meta-evaluation pairs what people judged with what a metric scored, by system name and (at
sentence level) by sentence. When the names do not match (judgments say ``BART``, the outputs
are ``BART.txt``) or the sentences are keyed differently, pairs silently drop out and a partial
or empty table looks like a result. Every such join checks here that at least ``min_share`` of
the judged pairs (sentence level) or judged systems (system level) found their scores, and
otherwise raises a ``JoinError`` naming what did not match and what was there. The share is
:data:`MIN_SHARE` (90%) unless a researcher lowers it on purpose (``--allow-missing``: 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from geceval.errors import GecInputError

MIN_SHARE = 0.9
"""The share of judged pairs (or systems) that must find their scores unless lowered on purpose."""

ALLOW_MISSING_HELP = (
    "accept a join where fewer than 90%% of the judged pairs (systems at system level) find their "
    "scores (the required share becomes 0; what is missing is still reported)"
)


class JoinError(GecInputError):
    """Fewer than the required share of judged pairs or systems found their scores."""


def _names(names: Iterable[str], limit: int = 8) -> str:
    names = sorted(set(names))
    shown = ", ".join(names[:limit])
    if len(names) > limit:
        shown += f", ... ({len(names)} in all)"
    return shown or "nothing"


@dataclass(frozen=True)
class JoinCount:
    what: str
    """What was joined, e.g. ``"judged pairs"``, ``"judged systems"``."""
    matched: int
    total: int
    detail: str = ""
    """What did not match and what was there."""
    found: str = "found their scores"

    @property
    def share(self) -> float:
        return self.matched / self.total if self.total else 1.0

    def describe(self) -> str:
        return f"{self.matched} of {self.total} {self.what} ({100 * self.share:.1f}%) {self.found}"


CLI_HINT = "pass --allow-missing to accept it"


def require_share(
    count: JoinCount, *, min_share: float = MIN_SHARE, where: str = "", hint: str = CLI_HINT
) -> JoinCount:
    """``count`` when at least ``min_share`` of it matched, else a ``JoinError`` with its detail;
    ``hint`` says how to accept a partial join on purpose."""
    if count.total and count.share < min_share:
        head = f"{where}: " if where else ""
        raise JoinError(
            f"{head}only {count.describe()}, at least {100 * min_share:.0f}% are needed"
            + (f"; {count.detail}" if count.detail else "")
            + f" (check the names and how sentences are keyed, or {hint})"
        )
    return count


def system_join(
    judged: Iterable[str],
    scored: Iterable[str],
    *,
    exclude: Iterable[str] = (),
    judged_as: str = "the human scores",
    scored_as: str = "the scores",
) -> JoinCount:
    """How many judged systems (minus ``exclude``, case-insensitive) have a score."""
    left_out = {e.lower() for e in exclude}
    judged = sorted({s for s in judged if s.lower() not in left_out})
    scored_set = set(scored)
    missing = [s for s in judged if s not in scored_set]
    detail = ""
    if missing:
        extra = sorted(s for s in scored_set if s not in set(judged) and s.lower() not in left_out)
        detail = f"{judged_as} name {_names(missing)} but {scored_as} have {_names(extra or scored_set)}"
    return JoinCount("judged systems", len(judged) - len(missing), len(judged), detail)


def pair_join(
    judgments: Iterable,
    scores: Mapping[str, Mapping[str, float]],
    *,
    exclude: Iterable[str] = (),
    judged_as: str = "the judgments",
) -> JoinCount:
    """How many judged pairs (``sys1``, ``sys2``, ``item``; minus a system with itself and
    ``exclude``) find a score for both outputs; ``scores`` is system -> item -> score."""
    left_out = {e.lower() for e in exclude}
    total = matched = 0
    missing_systems: set[str] = set()
    missing_items: set[str] = set()
    for j in judgments:
        if j.sys1 == j.sys2 or j.sys1.lower() in left_out or j.sys2.lower() in left_out:
            continue
        total += 1
        ok = True
        for system in (j.sys1, j.sys2):
            per = scores.get(system)
            if per is None:
                missing_systems.add(system)
                ok = False
            elif str(j.item) not in per:
                missing_items.add(str(j.item))
                ok = False
        matched += ok
    parts = []
    if missing_systems:
        parts.append(f"{judged_as} name {_names(missing_systems)} but the scores have {_names(scores)}")
    if missing_items:
        scored_items = {i for per in scores.values() for i in per}
        parts.append(
            f"{judged_as} name sentences {_names(missing_items, 5)} that have no score "
            f"(the scores have {len(scored_items)} sentences{_range(scored_items)})"
        )
    return JoinCount("judged pairs", matched, total, "; ".join(parts))


def _range(items: Iterable[str]) -> str:
    try:
        numbers = [int(i) for i in items]
    except ValueError:
        return ""
    return f", {min(numbers)}..{max(numbers)}" if numbers else ""


def min_share(allow_missing: bool) -> float:
    """The share a command requires: :data:`MIN_SHARE`, or 0 with ``--allow-missing``."""
    return 0.0 if allow_missing else MIN_SHARE
