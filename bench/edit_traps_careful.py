"""Do careful people of every kind pass the edit-level traps? (issue 41) Offline, in seconds: no server.

    PYTHONPATH=<dir with wordfreq> .venv/bin/python bench/edit_traps_careful.py --sentences 200

For each GMEG dev FCE line, a random system output as the base and a hidden trap drawn as a campaign
draws it (``geceval.traps.make_trap``, the two kinds in turn, the screen's other outputs avoided), with
the edit-level rule (``reference_edits``) off and on. A screen of base, trap and two other outputs is
shown to each careful model of bench/bot_strategies.py with the edits ERRANT gives (as the server's
API lists them), and the edit-level protocol's own verdict (``EditLevel.trap_passed``) is applied to
their ranks and labels. Prints, per rule and model, traps made and the share failed. A careful worker
is excluded by the pass-rate rule when they fail more than 40% of 10+ traps: the share failed per trap
is what sets that (docs/hardening.md). Also prints, of the added errors' edits, how many GLEU+ calls
worse applied alone to the source (the careful labeller's view) and in the correction (issue 41: why
careful (GLEU+) fails edit-level traps).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from bench.bot_strategies import (
    LABELLERS,
    REFERENCES,
    STRATEGIES,
    SYSTEMS,
    TIE_TOLERANCE,
    Gmeg,
    dense_ranks,
)
from geceval.traps.hidden import ADDED_ERROR, UNDONE_CORRECTION, make_trap
from ranking.protocols import CandidateScore, protocol_get
from ranking.protocols.edits.annotation import compute_edits

CAREFUL = ("careful", "careful-references", "careful-fluency")
GMEG_FCE = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared")) / "data/GMEG/data/dev/fce"


def screen_of(source: str, texts: list[str]) -> dict:
    candidates = []
    for position, text in enumerate(texts):
        edits = [
            {"index": e["index"], "span": [e["o_start"], e["o_end"]], "correction": e["c_text"]}
            for e in compute_edits(source, text)
        ]
        candidates.append({"position": position, "text": text, "edits": edits})
    return {"source": source, "candidates": candidates}


def verdict(screen: dict, model: str, gmeg: Gmeg, rng: random.Random, base: int, trap: int) -> str:
    """ "passed", or which half failed: "rank", "labels" or "both"."""
    values = STRATEGIES[model](screen, gmeg, rng)
    labels = LABELLERS[model](screen, gmeg, rng, values)
    ranks = dense_ranks(values, TIE_TOLERANCE[model])

    def answer(p: int) -> CandidateScore:
        c = screen["candidates"][p]
        keys = [(e["index"], *e["span"], e["correction"]) for e in c["edits"]]
        return CandidateScore(rank=ranks[p], labels=tuple(zip(keys, labels[p], strict=True)))

    t, b = answer(trap), answer(base)
    rank_ok = t.rank > b.rank
    labels_ok = protocol_get("edits").trap_passed(
        CandidateScore(rank=2, labels=t.labels), CandidateScore(rank=1, labels=b.labels)
    )
    assert protocol_get("edits").trap_passed(t, b) == (rank_ok and labels_ok)
    return "passed" if rank_ok and labels_ok else "labels" if rank_ok else "rank" if labels_ok else "both"


def applied(source: str, edits: list[dict]) -> str:
    """The source with ``edits`` (the API's, non-overlapping source spans) applied."""
    tokens, out, at = source.split(), [], 0
    for e in sorted(edits, key=lambda e: tuple(e["span"])):
        out += [*tokens[at : e["span"][0]], *e["correction"].split()]
        at = e["span"][1]
    return " ".join(out + tokens[at:])


def added_error_views(gmeg: Gmeg, source: str, screen: dict) -> tuple[int, int, int]:
    """Of the trap's added edits (candidate 1's edits the base, candidate 0, has not): how many, how
    many lower the source's GLEU+ applied alone to the source (the careful labeller's view), and how
    many lower it in the correction (the trap with against without the edit: what a reader of the
    correction sees)."""
    base = {(tuple(e["span"]), e["correction"]) for e in screen["candidates"][0]["edits"]}
    edits = screen["candidates"][1]["edits"]
    n = alone = context = 0
    for e in edits:
        if (tuple(e["span"]), e["correction"]) in base:
            continue
        n += 1
        alone += gmeg.edit_gain(source, tuple(e["span"]), e["correction"]) < -1e-9
        without = applied(source, [x for x in edits if x is not e])
        context += gmeg.quality(source, applied(source, edits)) < gmeg.quality(source, without) - 1e-9
    return n, alone, context


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", type=Path, default=GMEG_FCE)
    p.add_argument("--verbose", help="print each trap this model fails")
    args = p.parse_args()
    gmeg = Gmeg.load(args.data, args.sentences)
    for rule in (False, True):
        made = {ADDED_ERROR: 0, UNDONE_CORRECTION: 0}
        failed = {m: {ADDED_ERROR: 0, UNDONE_CORRECTION: 0} for m in CAREFUL}
        halves = {m: {"rank": 0, "labels": 0, "both": 0} for m in CAREFUL}

        views = [0, 0, 0]

        def judge(
            trap, i, source, base, others, made=made, failed=failed, halves=halves, views=views
        ) -> None:
            made[trap.kind] += 1
            texts = [base, trap.text, *others[:2]]
            screen = screen_of(source, texts)
            if trap.kind == ADDED_ERROR:
                views[:] = [
                    a + b for a, b in zip(views, added_error_views(gmeg, source, screen), strict=True)
                ]
            for model in CAREFUL:
                seen = verdict(screen, model, gmeg, random.Random(f"{args.seed}:{i}:{model}"), 0, 1)
                failed[model][trap.kind] += seen != "passed"
                if seen != "passed":
                    halves[model][seen] += 1
                    if args.verbose and model == args.verbose:
                        b, t = (
                            gmeg.reference_errors(source, gmeg.errant_edits(source, x)) for x in texts[:2]
                        )
                        print(
                            f"{seen} {trap.kind} errors base {b} trap {t}\n  S {source}\n  B {base}\n  T {trap.text}"
                        )

        for i, source in enumerate(gmeg.sources):
            outputs = list(dict.fromkeys(gmeg.systems[s][i] for s in SYSTEMS))
            line = random.Random(f"{args.seed}:{i}")
            base = line.choice(outputs)
            others = [o for o in outputs if o != base]
            line.shuffle(others)
            refs = [gmeg.references[r][i] for r in REFERENCES]
            for kind in (ADDED_ERROR, UNDONE_CORRECTION):  # one of each kind a line, when it can be made
                trap = make_trap(
                    base,
                    source,
                    refs,
                    seed=f"{args.seed}:{i}",
                    avoid=outputs,
                    kinds=(kind,),
                    reference_edits=rule,
                )
                if trap is not None:
                    judge(trap, i, source, base, others)

        print(f"edit-level rule {'on' if rule else 'off'}: traps made {made}")
        print(
            f"  added errors' edits {views[0]}: lower GLEU+ applied alone to the source {views[1]}, "
            f"in the correction {views[2]}"
        )
        for model in CAREFUL:
            total = sum(made.values()) or 1
            kinds = ", ".join(f"{k} {failed[model][k]}/{made[k]}" for k in made)
            print(
                f"  {model:20s} failed {sum(failed[model].values()) / total:6.1%}  ({kinds}; failed on {halves[model]})"
            )


if __name__ == "__main__":
    main()
