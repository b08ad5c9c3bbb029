"""Do careful people of every kind pass the edit-level traps, and do the bots fail them? (issue 41)
Offline, no server.

    .venv/bin/python bench/edit_traps_careful.py --sentences 200   # wordfreq: requirements-dev.txt

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

``--workers N`` (h45) also judges the traps of the rule on with N simulated workers of every strategy
in ``--strategies`` (a careful model: a person of their own per worker, ``Person.drawn``, as
bench/bots.py draws them; a bot: a fresh one per worker), the screen's four candidates in a random
order, and every kind of trap the edit-level protocol makes, the added correction (a positive control)
too, scored by the protocol's own verdict (``trap_verdict`` with the kind). Prints per strategy the
share of each kind passed (with two other verdicts for the added correction: labels only, and
"good and ranked above"), and the share of workers the pass-rate rule excludes within 20 traps for
each mix of kinds in ``--mixes`` (a worker meets 20 traps drawn from the pool at the mix's shares, and
is excluded at the first of traps 10-20 where under 60% passed; Appraise's test is not simulated).
``--protocol ranking`` runs that simulation with ranking's trap rule and verdicts (the ranks alone).
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
from geceval.human.worker_checks import CORRECTION_MIN_SEEN, KIND_MIN_SEEN, kind_never_passed
from geceval.traps.hidden import ADDED_CORRECTION, ADDED_ERROR, UNDONE_CORRECTION, Trap, make_trap
from ranking.protocols import CandidateScore, protocol_get
from ranking.protocols.edits.annotation import compute_edits
from ranking.protocols.edits.protocol import added_labels
from ranking.work.judging import trap_verdict

CAREFUL = ("careful", "careful-references", "careful-fluency")
KINDS = (ADDED_ERROR, UNDONE_CORRECTION, ADDED_CORRECTION)
BOTS = (
    "agreement",
    "near-copy",
    "random",
    "constant",
    "source-first",
    "fewest-edits",
    "longest",
    "position",
    "regenerate",
    "word-frequency",
)
MIXES = "1:1:0,1:1:1,1:1:2"
"""Weights of added errors, undone corrections and added corrections: today's mix, then thirds, then
half of the traps added corrections."""
PASS_RATE, MIN_SEEN, MAX_TRAPS = 0.6, 10, 20
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
    answers = answers_of(screen, STRATEGIES[model], LABELLERS[model], TIE_TOLERANCE[model], gmeg, rng)
    t, b = answers[trap], answers[base]
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


def answers_of(screen: dict, strategy, labeller, tie: float, gmeg: Gmeg, rng: random.Random) -> dict:
    """position -> the worker's ``CandidateScore`` (rank and a label per edit, keyed as the server keys
    them)."""
    values = strategy(screen, gmeg, rng)
    labels = labeller(screen, gmeg, rng, values)
    ranks = dense_ranks(values, tie)
    out = {}
    for c in screen["candidates"]:
        p = c["position"]
        keys = [(e["index"], *e["span"], e["correction"]) for e in c["edits"]]
        out[p] = CandidateScore(rank=ranks[p], labels=tuple(zip(keys, labels[p], strict=True)))
    return out


def worker_of(name: str, k: int, seed: int):
    """(strategy, labeller, tie tolerance) of worker ``k`` of strategy ``name``, as bench/bots.py makes
    them: a careful model a person of their own, a stateful bot a fresh one."""
    strategy, labeller = STRATEGIES[name], LABELLERS[name]
    tie = TIE_TOLERANCE.get(name, 0.0)
    if hasattr(strategy, "fresh"):
        strategy = strategy.fresh()
    if hasattr(strategy, "person"):
        strategy = strategy.person(random.Random(f"{seed}-person-{name}-{k}"))
        tie = strategy.tie
    if hasattr(strategy, "labels"):
        labeller = strategy.labels
    return strategy, labeller, tie


def line_traps(
    gmeg: Gmeg, i: int, seed: int, kinds: tuple[str, ...], reference_edits: bool
) -> tuple[str, list[str], list[Trap], random.Random]:
    """Line ``i``'s base (one of the systems' distinct outputs, drawn), its other outputs (shuffled),
    a trap of each of ``kinds`` that can be made, as a campaign drafts one (every output avoided), and
    the line's generator, whose next draws are the caller's (``simulate`` places the candidates)."""
    outputs = list(dict.fromkeys(gmeg.systems[s][i] for s in SYSTEMS))
    line = random.Random(f"{seed}:{i}")
    base = line.choice(outputs)
    others = [o for o in outputs if o != base]
    line.shuffle(others)
    refs = [gmeg.references[r][i] for r in REFERENCES]
    drafts = (
        make_trap(
            base,
            gmeg.sources[i],
            refs,
            seed=f"{seed}:{i}",
            avoid=outputs,
            kinds=(kind,),
            reference_edits=reference_edits,
        )
        for kind in kinds
    )
    return base, others, [trap for trap in drafts if trap is not None], line


def excluded(
    passes: list[tuple[str, bool]],
    *,
    by_kind: bool = False,
    kind_min: int = KIND_MIN_SEEN,
    correction_min: int = CORRECTION_MIN_SEEN,
) -> bool:
    """The pass-rate rule over the first ``MAX_TRAPS`` verdicts (kind, passed): under ``PASS_RATE`` at
    any of traps ``MIN_SEEN`` to ``MAX_TRAPS``; ``by_kind``: also when every trap of one kind so far
    failed, at least ``kind_min`` of them (``correction_min`` added corrections;
    ``geceval.human.worker_checks.kind_never_passed``)."""
    passed = 0
    kinds: dict[str, list[int]] = {}
    for n, (kind, ok) in enumerate(passes[:MAX_TRAPS], start=1):
        passed += ok
        seen_passed = kinds.setdefault(kind, [0, 0])
        seen_passed[0] += 1
        seen_passed[1] += ok
        if n >= MIN_SEEN and passed / n < PASS_RATE:
            return True
        if (
            by_kind
            and n >= MIN_SEEN
            and kind_never_passed(
                {k: tuple(v) for k, v in kinds.items()}, min_seen=kind_min, correction_min_seen=correction_min
            )
        ):
            return True
    return False


def simulate(args, gmeg: Gmeg) -> None:
    """Every strategy's workers on every trap of the pool (rule on, the three kinds), then the
    exclusion rule over 20 traps drawn at each mix's shares."""
    pool: list[tuple[str, dict, int, int]] = []  # (kind, screen, base position, trap position)
    for i, source in enumerate(gmeg.sources):
        base, others, traps, line = line_traps(
            gmeg, i, args.seed, KINDS, reference_edits=protocol_get(args.protocol).trap_reference_edits
        )
        for trap in traps:
            texts = [base, trap.text, *others[:2]]
            order = list(range(len(texts)))
            line.shuffle(order)
            screen = screen_of(source, [texts[j] for j in order])
            pool.append((trap.kind, screen, order.index(0), order.index(1)))
    made = {k: sum(kind == k for kind, *_ in pool) for k in KINDS}
    print(f"\ntraps made, rule on, {len(gmeg.sources)} lines: {made}")
    mixes = [dict(zip(KINDS, (float(w) for w in m.split(":")), strict=True)) for m in args.mixes.split(",")]
    print(
        f"{'strategy':20s} "
        + " ".join(f"{k[:14]:>14s}" for k in KINDS)
        + f" {'corr: labels':>12s} {'corr: strict':>12s}  excluded within 20 traps (mean pass rate) at "
        + ", ".join(args.mixes.split(","))
    )
    for name in args.strategies.split(","):
        passed = {k: [] for k in KINDS}  # per worker, per kind: verdicts in pool order
        other = {"labels": 0, "strict": 0, "n": 0}
        per_worker: list[dict[str, list[bool]]] = []
        for k in range(args.workers):
            strategy, labeller, tie = worker_of(name, k, args.seed)
            rng = random.Random(f"{args.seed}:{name}:{k}")
            mine: dict[str, list[bool]] = {kind: [] for kind in KINDS}
            for kind, screen, b, t in pool:
                if hasattr(strategy, "new_hit"):
                    strategy.new_hit()  # every trap on a screen of its own: nothing to compare across
                answers = answers_of(screen, strategy, labeller, tie, gmeg, rng)
                ok = bool(trap_verdict(args.protocol, answers[t], answers[b], 1, kind).passed)
                mine[kind].append(ok)
                if kind == ADDED_CORRECTION:
                    labels = added_labels(answers[t], answers[b])
                    other["labels"] += all(lab != "bad" for lab in labels)
                    other["strict"] += answers[t].rank < answers[b].rank and all(
                        lab == "good" for lab in labels
                    )
                    other["n"] += 1
            per_worker.append(mine)
            for kind in KINDS:
                passed[kind] += mine[kind]
        shares = " ".join(f"{sum(passed[k]) / max(1, len(passed[k])):14.1%}" for k in KINDS)
        extra = " ".join(f"{other[v] / max(1, other['n']):12.1%}" for v in ("labels", "strict"))
        outs = []
        for mix in mixes:
            hits = by_kind = 0
            for k, mine in enumerate(per_worker):
                draw = random.Random(f"{args.seed}:mix:{name}:{k}:{sorted(mix.items())}")
                seq = []
                for _ in range(MAX_TRAPS):
                    kind = draw.choices(KINDS, weights=[mix[x] for x in KINDS])[0]
                    if not mine[kind]:
                        kind = ADDED_ERROR
                    seq.append((kind, draw.choice(mine[kind])))
                hits += excluded(seq)
                by_kind += excluded(
                    seq, by_kind=True, kind_min=args.kind_min_seen, correction_min=args.correction_min_seen
                )
            rate = sum(mix[x] * sum(passed[x]) / max(1, len(passed[x])) for x in KINDS if passed[x]) / sum(
                mix[x] for x in KINDS if passed[x]
            )
            outs.append(f"{hits}/{len(per_worker)} ({rate:.2f}) by kind too {by_kind}")
        print(f"{name:20s} {shares} {extra}  {', '.join(outs)}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", type=Path, default=GMEG_FCE)
    p.add_argument("--verbose", help="print each trap this model fails")
    p.add_argument("--workers", type=int, default=0, help="simulated workers per strategy (0: none)")
    p.add_argument("--strategies", default=",".join((*CAREFUL, *BOTS)))
    p.add_argument("--mixes", default=MIXES, help="weights added error:undone correction:added correction")
    p.add_argument(
        "--kind-min-seen",
        type=int,
        default=KIND_MIN_SEEN,
        help="traps of one kind, all failed, that exclude (the 'by kind too' figures; the product's is 4)",
    )
    p.add_argument(
        "--correction-min-seen",
        type=int,
        default=CORRECTION_MIN_SEEN,
        help="added corrections, all failed, that exclude (the product's is 3)",
    )
    p.add_argument(
        "--protocol",
        default="edits",
        choices=("edits", "ranking"),
        help="whose trap rule and verdicts --workers uses (ranking: the ranks alone, GLEU+'s rule)",
    )
    p.add_argument("--skip-careful-table", action="store_true", help="only the --workers simulation")
    args = p.parse_args()
    gmeg = Gmeg.load(args.data, args.sentences)
    if args.workers:
        simulate(args, gmeg)
    if args.skip_careful_table:
        return
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
            # one trap of each kind a line, when it can be made
            base, others, traps, _ = line_traps(
                gmeg, i, args.seed, (ADDED_ERROR, UNDONE_CORRECTION), reference_edits=rule
            )
            for trap in traps:
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
