"""Why a careful worker of bench/bots.py was excluded: read after a run kept with ``--keep-database``,
from the server's own records (the worker's record, its exclusion reasons and its trap verdicts).

    .venv/bin/python bench/bots.py --per-strategy 6 --protocols ranking --keep-database --database gec_bots_r
    .venv/bin/python bench/bots_failed_traps.py --database gec_bots_r --strategies careful,careful-fluency

For each worker of the strategies named: traps seen and passed, the rules its record breaks
(``record_exclusion_reasons``), Appraise's p, agreement with the crowd, drift and one-person flags.
For each trap it failed: the kind, the source, base and trap texts, the worker's two answers, and
on an edit-level screen the added edits the verdict judges, with the worker's labels; then what the careful
model of that worker (the same ``Person``, rebuilt from the worker's name and ``--seed``) makes of
the two texts without its noise: ``model`` is its value of the base minus that of the trap (the
rank half fails on noise when the model alone would pass it, on the model's view when not), and per
added edit the model's noise-free label. ``refs`` says how many of the four references make each
added edit (ERRANT, against the source) and whether the base does.

Every kind is tallied apart. An added correction (``added_correction``, a positive control of the
edit-level protocol) is judged the other way round, as the server judges it (``trap_verdict`` with the
kind): it fails when ranked below its base or when its added edit is marked bad, and the model passes
its rank half when it does not see the base above the trap by more than its tie.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bot_strategies import STRATEGIES, Gmeg, Person
from bench.serving import db_url
from geceval.traps.hidden import BETTER_KINDS

GMEG_FCE = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data/GMEG/data/dev/fce"


def strategy_of(username: str) -> str:
    return username.split("-", 2)[2].rsplit("-", 1)[0]


def person_of(username: str, seed: int) -> Person | None:
    model = strategy_of(username)
    if model not in ("careful", "careful-references", "careful-fluency"):
        return None
    return Person.drawn(random.Random(f"{seed}-person-{username}"), model)


class _Quiet(random.Random):
    """A generator whose Gaussian draws are 0 and that never slips a label: the model's own view."""

    def gauss(self, mu=0.0, sigma=1.0):
        return mu

    def uniform(self, a, b):
        return (a + b) / 2

    def random(self):
        return 0.999999


def model_view(username: str, seed: int, screen: dict, gmeg: Gmeg) -> tuple[dict, dict, float]:
    """(position -> noise-free value, position -> noise-free labels, the person's tie) of the careful
    model behind ``username`` on ``screen`` (the API's screen shape)."""
    person = person_of(username, seed)
    careful = STRATEGIES[strategy_of(username)]
    me = careful.person(random.Random(f"{seed}-person-{username}"))
    quiet = _Quiet()
    values = me(screen, gmeg, quiet)
    labels = me.labels(screen, gmeg, quiet, values) if any("edits" in c for c in screen["candidates"]) else {}
    return values, labels, person.tie


def in_context(gmeg: Gmeg, source: str, edits: list[dict], key: tuple) -> float:
    """What the edit named ``key`` does in the correction: sentence GLEU+ of the text with all of
    ``edits`` applied to the source minus that of the text with all but this one (what a reader of the
    correction sees, where the careful labeller looks at the edit alone on the source)."""
    from bench.edit_traps_careful import applied

    def name(e: dict) -> tuple:
        return (e["span"][0], e["span"][1], " ".join(e["correction"].split()))

    without = [e for e in edits if name(e) != key]
    return gmeg.quality(source, applied(source, edits)) - gmeg.quality(source, applied(source, without))


def label_failed(kind: str, label: str) -> bool:
    """A label of an added edit the verdict judges (``required``) that fails the trap: not bad, or on
    an added correction bad."""
    return label == "bad" if kind in BETTER_KINDS else label != "bad"


def rank_half_failed(kind: str, trap_rank: int, base_rank: int) -> bool:
    """The rank half of a ranking or edit-level verdict failed: the trap not ranked below its base, or
    for an added correction ranked below it."""
    return trap_rank > base_rank if kind in BETTER_KINDS else trap_rank <= base_rank


def model_passes_rank(kind: str, gap: float, tie: float) -> bool:
    """The careful model without its noise passes the rank half: ``gap`` (its value of the base minus
    that of the trap) above its tie puts the trap below, within the tie they share a rank."""
    return gap <= tie if kind in BETTER_KINDS else gap > tie


def required(mine: dict, control, key: tuple) -> bool:
    """The verdict judges the label of ``key`` (an edit of the trap its base has not): with every other
    edit of the trap labelled as it asks and the trap ranked as it asks, ``key`` labelled the other way
    fails it. A trap worse than its base asks bad (a piece of a base edit ERRANT cut out of the trap
    need not be bad: ``EditLevel.trap_passed``); an added correction asks not bad."""
    from ranking.protocols import CandidateScore
    from ranking.work.judging import trap_verdict

    better = control.kind in BETTER_KINDS
    asked, other = ("good", "bad") if better else ("bad", "good")
    labels = tuple(((0, *k), other if k == key else asked) for k, _ in mine[control.trap_id])
    base = tuple(((0, *k), lab) for k, lab in mine[control.base_id])
    trap_rank, base_rank = (1, 2) if better else (2, 1)
    return not trap_verdict(
        "edits",
        CandidateScore(rank=trap_rank, labels=labels),
        CandidateScore(rank=base_rank, labels=base),
        1,
        control.kind,
    ).passed


def failures(campaign, strategies: list[str], seed: int, gmeg: Gmeg) -> None:
    from ranking.models import Candidate, Control, ControlKind, ScreenJudgment, WorkerRecord
    from ranking.protocols.edits.annotation import edits_for_texts
    from ranking.protocols.edits.models import EditLabel
    from ranking.quality.rules import record_exclusion_reasons

    edit_level = campaign.protocol == "edits"
    controls = {
        c.screen_id: c
        for c in Control.objects.filter(screen__campaign=campaign)
        .exclude(kind__in=(ControlKind.REPEAT, ControlKind.GOLD))
        .select_related("screen__sentence", "base", "trap")
    }
    records = (
        WorkerRecord.objects.filter(campaign=campaign).select_related("worker").order_by("worker__username")
    )
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for record in records:
        name = record.worker.username
        strategy = strategy_of(name)
        if strategy not in strategies:
            continue
        reasons = record_exclusion_reasons(campaign, record)
        person = person_of(name, seed)
        print(
            f"\n{name}: traps {record.traps_passed}/{record.traps_seen}, excluded {record.excluded} "
            f"{reasons or ''}, mann-whitney p {record.mann_whitney_p}, agreement {record.agreement} "
            f"(low {record.agreement_low}, screens {record.agreement_screens}), drift {record.drift_from}, "
            f"agreement drift {record.agreement_drift_from}, same as {record.same_as or '-'}"
            + (
                f"\n  person: sigma {person.sigma:.1f} tie {person.tie:.1f} taste {person.taste:.1f} "
                f"slips {person.label_error:.2f} fluency {person.fluency:.2f}"
                if person
                else ""
            )
        )
        t = totals[strategy]
        t["workers"] += 1
        t["excluded"] += record.excluded
        judged = ScreenJudgment.objects.filter(
            judge=record.worker, screen_id__in=list(controls), trap_passed__isnull=False
        ).order_by("created")
        for j in judged:
            c = controls[j.screen_id]
            t[f"traps {c.kind}"] += 1
            if j.trap_passed:
                continue
            t[f"failed {c.kind}"] += 1
            source = c.screen.sentence.text
            shown = list(Candidate.objects.filter(screen_id=j.screen_id).order_by("position"))
            screen = {
                "source": source,
                "candidates": [{"position": x.position, "text": x.text} for x in shown],
            }
            mine: dict[int, list] = defaultdict(list)
            if edit_level:
                by_text = edits_for_texts(c.screen.sentence, {x.text for x in shown})
                for x, cand in zip(shown, screen["candidates"], strict=True):
                    cand["edits"] = [
                        {
                            "index": e.index,
                            "span": [e.o_start, e.o_end],
                            "original": e.o_text,
                            "correction": e.c_text,
                        }
                        for e in by_text[x.text]
                    ]
                for cid, o_start, o_end, c_text, label in (
                    EditLabel.objects.filter(judgment=j)
                    .order_by("edit__index")
                    .values_list("candidate_id", "edit__o_start", "edit__o_end", "edit__c_text", "label")
                ):
                    mine[cid].append(((o_start, o_end, " ".join(c_text.split())), label))
            pos = {x.pk: x.position for x in shown}
            base_pos = pos.get(c.base_id)
            if base_pos is None:  # a one-candidate look: the base is on the original screen
                base_pos = None
            rank_failed = (
                rank_half_failed(c.kind, j.trap_answer, j.trap_base_answer)
                if j.trap_answer is not None
                else None
            )
            line = (
                f"  FAILED {c.kind}: base {j.trap_base_answer} trap {j.trap_answer} "
                f"(GLEU+ base {c.base_quality:.3f} trap {c.trap_quality:.3f})"
            )
            if person:
                values, labels, tie = model_view(name, seed, screen, gmeg)
                if base_pos is not None:
                    gap = values[base_pos] - values[pos[c.trap_id]]
                    line += f", model base-trap {gap:+.1f} (tie {tie:.1f})"
                    t["rank half failed"] += bool(rank_failed)
                    noise = model_passes_rank(c.kind, gap, tie)  # the model alone would pass it
                    t["rank half failed, model sees it"] += bool(rank_failed) and noise
            print(line)
            print(f"    source: {source}\n    base:   {c.base.text}\n    trap:   {c.trap.text}")
            if edit_level:
                base_keys = {k for k, _ in mine[c.base_id]}
                refs = gmeg.reference_edits(source)
                added = [
                    (k, lab) for k, lab in mine[c.trap_id] if k not in base_keys and required(mine, c, k)
                ]
                model_labels = {}
                if person:
                    trap_pos = pos[c.trap_id]
                    for e, lab in zip(screen["candidates"][trap_pos]["edits"], labels[trap_pos], strict=True):
                        model_labels[(e["span"][0], e["span"][1], " ".join(e["correction"].split()))] = lab
                trap_edits = screen["candidates"][pos[c.trap_id]]["edits"]
                better = c.kind in BETTER_KINDS
                wrong, gleu = (
                    ("added corrections bad", "better") if better else ("added edits not bad", "worse")
                )
                for k, lab in added:
                    makers = sum(k in r for r in refs)
                    context = in_context(gmeg, source, trap_edits, k)
                    print(
                        f"    added edit {k}: worker {lab}, model {model_labels.get(k, '?')}, refs {makers}/4, "
                        f"GLEU+ in the trap {context:+.3f}"
                    )
                    if label_failed(c.kind, lab):
                        model = model_labels.get(k)
                        t[wrong] += 1
                        t[f"{wrong}, model says so"] += model is not None and label_failed(c.kind, model)
                        t[f"{wrong}, {gleu} in the trap by GLEU+"] += (
                            context > 1e-9 if better else context < -1e-9
                        )
    print("\nper strategy:")
    for strategy, t in totals.items():
        print(f"  {strategy}: {dict(t)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--pg-url", default=os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    )
    p.add_argument("--database", required=True, help="a run's database kept with --keep-database")
    p.add_argument("--strategies", default="careful,careful-fluency,careful-references")
    p.add_argument("--seed", type=int, default=1, help="bench/bots.py's --seed of the run")
    p.add_argument("--sentences", type=int, default=None, help="bench/bots.py's --sentences of the run")
    args = p.parse_args(argv)
    os.environ.update(
        DATABASE_URL=db_url(args.pg_url, args.database), DJANGO_SETTINGS_MODULE="config.settings"
    )
    import django

    django.setup()
    from ranking.models import Campaign

    gmeg = Gmeg.load(GMEG_FCE, args.sentences)
    for campaign in Campaign.objects.order_by("pk"):
        print(f"=== campaign {campaign.pk} ({campaign.protocol})")
        failures(campaign, args.strategies.split(","), args.seed, gmeg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
