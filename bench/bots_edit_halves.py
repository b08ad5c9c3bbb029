"""Which half of an edit-level trap each strategy of bench/bots.py passes: read after a run kept with
``--keep-database``, from the server's own records (the harness's view, never the bots').

    .venv/bin/python bench/bots.py --per-strategy 20 --protocols edits --keep-database --database gec_bots_edits
    .venv/bin/python bench/bots_edit_halves.py --database gec_bots_edits

For every judged trap of the edit-level campaign: its kind (an added error, an undone correction or
an added correction), whether the worker ranked it below its base (the rank half) and whether every
edit it has that its base has not was labelled bad (the label half; true when it has none, as for
most undone corrections); for an added correction (a positive control) the halves are "not ranked
below its base" and "no added edit labelled bad" (bench/bots_failed_traps.py's ``rank_half_failed``
and ``label_failed``). Prints, per strategy and kind, the traps judged and the share passing each
half and both (the verdict the server stored), and the share of "mixed" traps, whose added edit touches one
of the base's edits (ERRANT then shows the inserted error and the base's correction as one edit),
with the label half's pass share on them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bots_failed_traps import label_failed, rank_half_failed
from bench.serving import db_url


def halves(campaign_id: int) -> dict[tuple[str, str], dict[str, int]]:
    """(strategy, trap kind) -> counts of traps, rank half, label half, passed, traps with no added edit,
    mixed traps and the label half on them."""
    from ranking.models import Control, ControlKind, ScreenJudgment
    from ranking.protocols.edits.models import EditLabel

    controls = {
        c.screen_id: c
        for c in Control.objects.filter(screen__campaign_id=campaign_id).exclude(kind=ControlKind.REPEAT)
    }
    labels: dict[tuple[int, int], list[tuple[tuple, str]]] = defaultdict(list)
    for judgment, candidate, o_start, o_end, c_text, label in EditLabel.objects.filter(
        judgment__screen_id__in=list(controls)
    ).values_list("judgment_id", "candidate_id", "edit__o_start", "edit__o_end", "edit__c_text", "label"):
        labels[judgment, candidate].append(((o_start, o_end, c_text), label))
    out: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    judged = ScreenJudgment.objects.filter(screen_id__in=list(controls), trap_passed__isnull=False)
    for j in judged.select_related("judge"):
        control = controls[j.screen_id]
        strategy = j.judge.username.split("-", 2)[2].rsplit("-", 1)[0]
        base_keys = {key for key, _ in labels[j.pk, control.base_id]}
        added_edits = [(key, label) for key, label in labels[j.pk, control.trap_id] if key not in base_keys]
        added = [label for _, label in added_edits]
        mixed = any(a <= d and c <= b for (a, b, _), _ in added_edits for c, d, _ in base_keys)
        row = out[strategy, control.kind]
        row["traps"] += 1
        # an added correction (a positive control) the other way round: not below, not bad
        row["rank"] += not rank_half_failed(control.kind, j.trap_answer, j.trap_base_answer)
        row["labels"] += not any(label_failed(control.kind, label) for label in added)
        row["passed"] += bool(j.trap_passed)
        row["no added edit"] += not added
        row["mixed"] += mixed
        row["mixed labels"] += mixed and all(label == "bad" for label in added)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--pg-url", default=os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    )
    p.add_argument("--database", required=True, help="a run's database kept with --keep-database")
    args = p.parse_args(argv)
    os.environ.update(
        DATABASE_URL=db_url(args.pg_url, args.database), DJANGO_SETTINGS_MODULE="config.settings"
    )
    import django

    django.setup()
    from ranking.models import Campaign

    campaign = Campaign.objects.get(protocol="edits")
    rows = halves(campaign.pk)
    print(
        f"{'strategy':<14} {'trap kind':<18} {'traps':>6} {'rank half':>10} {'label half':>11} {'passed':>7} "
        f"{'no added edit':>14} {'mixed':>6} {'label half, mixed':>18}"
    )
    for (strategy, kind), r in sorted(rows.items()):
        n, mixed = r["traps"], r["mixed"]
        on_mixed = f"{r['mixed labels'] / mixed:.2f}" if mixed else "-"
        print(
            f"{strategy:<14} {kind:<18} {n:>6} {r['rank'] / n:>10.2f} {r['labels'] / n:>11.2f} "
            f"{r['passed'] / n:>7.2f} {r['no added edit'] / n:>14.2f} {mixed / n:>6.2f} {on_mixed:>18}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
