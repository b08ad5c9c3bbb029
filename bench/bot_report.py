"""The report of bench/bots.py: per protocol and strategy, the share of workers excluded within their
first ``--max-traps`` traps, and the goal (every bot strategy >= 95% excluded, careful <= 2%)."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.bots import Log, World

BOT_GOAL, CAREFUL_GOAL = 0.95, 0.02
LATE_GOAL = 0.05
"""The drifter: at most this share of its judgments after its careful screens may count."""
RINGS = ("ring", "ring-nudged", "ring-swapped")
"""One person behind many accounts: the goal is that they count once (``goal_met``)."""


def figures(log: Log, world: World, args) -> dict[str, dict[str, dict]]:
    """protocol -> strategy -> its row of the table."""
    out: dict[str, dict[str, dict]] = {}
    for protocol in args.protocols:
        out[protocol] = {}
        for strategy in args.strategies:
            rows = [o for o in log.outcomes if o.protocol == protocol and o.strategy == strategy]
            caught = [o for o in rows if o.excluded and o.traps_at_exclusion <= args.max_traps]
            rates = [o.traps_passed / o.traps_seen for o in rows if o.traps_seen]
            out[protocol][strategy] = {
                "workers": len(rows),
                "excluded": len(caught),
                "excluded_share": len(caught) / len(rows) if rows else 0.0,
                "median_traps_at_exclusion": statistics.median(o.traps_at_exclusion for o in caught)
                if caught
                else None,
                "pass_rate_mean": statistics.fmean(rates) if rates else None,
                "traps_seen_mean": statistics.fmean(o.traps_seen for o in rows) if rows else 0.0,
                "screens_mean": statistics.fmean(o.screens for o in rows) if rows else 0.0,
                "out_of_work": sum(1 for o in rows if o.stopped == "no work"),
            }
    return out


def goal_met(strategy: str, row: dict) -> bool:
    if strategy.startswith("careful"):
        return row["excluded_share"] <= CAREFUL_GOAL
    if strategy in RINGS:  # its goal is to count once (issue 41), not to be excluded: see docs/hardening.md
        # met when no screen counts two of its accounts' answers (bench/bots.py's ring_counted_twice)
        return row.get("screens_counted_twice") == 0
    if strategy == "drifter" and "random_made" in row:
        # the drift rule keeps its careful start (the Drift bullet): judged by what counts after it
        late = row["random_counted"] / row["random_made"] if row["random_made"] else 0.0
        return row["excluded_share"] >= BOT_GOAL and late <= LATE_GOAL
    return row["excluded_share"] >= BOT_GOAL


def table(table_figures: dict[str, dict[str, dict]], world: World, args) -> str:
    lines = []
    for protocol, rows in table_figures.items():
        lines.append(
            f"\n{protocol}: {world.sentences} sentences, {world.screens[protocol]} screens, "
            f"judgments_per_item {world.judgments_per_item}, stop at {args.max_traps} traps, "
            f"speed rule {getattr(args, 'speed_rule', 'on')}"
        )
        lines.append(
            f"{'strategy':<14} {'workers':>7} {'excluded <=' + str(args.max_traps) + ' traps':>20} "
            f"{'median traps':>13} {'pass rate':>10} {'traps seen':>11} {'screens':>8} {'no work':>8}  goal"
        )
        for strategy, r in rows.items():
            median = "-" if r["median_traps_at_exclusion"] is None else f"{r['median_traps_at_exclusion']:g}"
            rate = "-" if r["pass_rate_mean"] is None else f"{r['pass_rate_mean']:.2f}"
            want = "<=2%" if strategy.startswith("careful") else "once" if strategy in RINGS else ">=95%"
            lines.append(
                f"{strategy:<14} {r['workers']:>7} {r['excluded']:>9} ({100 * r['excluded_share']:5.1f}%) "
                f"{median:>13} {rate:>10} {r['traps_seen_mean']:>11.1f} {r['screens_mean']:>8.1f} "
                f"{r['out_of_work']:>8}  {want} {'met' if goal_met(strategy, r) else 'NOT met'}"
            )
    failing = [f"{p}/{s}" for p, rows in table_figures.items() for s, r in rows.items() if not goal_met(s, r)]
    lines.append(
        f"\ngoal (every bot strategy >=95% excluded within its first {args.max_traps} traps, careful <=2%): "
        + ("met" if not failing else "NOT met: " + ", ".join(failing))
    )
    return "\n".join(lines)
