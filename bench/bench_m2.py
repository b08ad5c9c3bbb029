"""M2 (MaxMatch) speed against m2scorer 3.2's CPU times from REFERENCE_FIGURES.

    .venv/bin/python bench/bench_m2.py [--data ../shared/data] [--reference-amu]

Cases: JFLEG test (747 sentences, ``test.spellchecked.src`` against the ERRANT
gold of its 4 references; reference 72 CPU-s, target <= 5 s), CoNLL-14 AMU
against the official gold (reference 25 CPU-s), and the blow-up sentence
(GMEG Wiki, 408-token ``marian`` output; the reference did not finish in 11
minutes; target <= 30 s, scored exactly). Each case prints CPU seconds
(process time) and wall time, the score, and the ratio to the reference.

``--reference-amu`` also times, in this process, the literal implementation
kept in ``tests/core/m2_reference.py`` (the reference's algorithm step by
step: cubic transitive-arc loop, Bellman-Ford over the edge list) on the
blow-up sentence's ``amu`` output, and checks it gives the same numbers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.m2 import gold_edits, m2_score

REFERENCE_CPU = {"jfleg": 72.0, "conll_amu": 25.0}
BLOWUP_LIMIT = 30.0


class Clock:
    def __enter__(self) -> Clock:
        self.cpu0, self.wall0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self.cpu0
        self.wall = time.perf_counter() - self.wall0


def _line(name: str, clock: Clock, res, note: str) -> None:
    print(
        f"{name:<34} cpu {clock.cpu:7.2f} s  wall {clock.wall:7.2f} s  "
        f"P {res.p:.4f} R {res.r:.4f} F{res.beta:g} {res.f:.4f}  {note}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--reference-amu", action="store_true")
    args = parser.parse_args(argv)
    data = Path(args.data)

    hyp = read_lines(data / "jfleg" / "test" / "test.spellchecked.src")
    gold = read_m2(data / "derived" / "jfleg-test-errant" / "jfleg.test.ref.errant.m2")
    with Clock() as c:
        res = m2_score(hyp, gold)
    ref = REFERENCE_CPU["jfleg"]
    _line("JFLEG test spellchecked (ERRANT)", c, res, f"reference {ref:.0f} s -> {ref / c.cpu:.0f}x faster")

    hyp = read_lines(data / "grammatical-evaluation" / "data" / "original" / "official_submissions" / "AMU")
    gold = read_m2(data / "gecmetrics" / "data" / "conll14st-test" / "conll14st-test.m2")
    with Clock() as c:
        res = m2_score(hyp, gold)
    ref = REFERENCE_CPU["conll_amu"]
    _line("CoNLL-14 AMU (official gold)", c, res, f"reference {ref:.0f} s -> {ref / c.cpu:.0f}x faster")

    blow = data / "derived" / "m2-blowup"
    gold = read_m2(blow / "ref.m2")
    hyp = read_lines(blow / "marian")
    with Clock() as c:
        res = m2_score(hyp, gold)
    verdict = "OK" if c.cpu <= BLOWUP_LIMIT else "OVER LIMIT"
    _line(
        "blow-up sentence (marian, 408 tok)",
        c,
        res,
        f"limit {BLOWUP_LIMIT:.0f} s: {verdict}; reference > 660 s (did not finish)",
    )

    if args.reference_amu:
        from tests.core.m2_reference import reference_score

        hyp = read_lines(blow / "amu")
        with Clock() as c_ours:
            ours = m2_score(hyp, gold)
        with Clock() as c_ref:
            p, r, f, _details = reference_score(hyp, [s.source for s in gold], [gold_edits(s) for s in gold])
        same = (ours.p, ours.r, ours.f) == (p, r, f)
        print(
            f"{'blow-up amu: literal reference':<34} cpu {c_ref.cpu:7.2f} s  ours {c_ours.cpu:.4f} s  "
            f"-> {c_ref.cpu / max(c_ours.cpu, 1e-9):.0f}x; same numbers: {same}"
        )
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
