"""I-measure on JFLEG test (747 sentences, gold XML of the 4 ERRANT-annotated references).

    .venv/bin/python bench/bench_imeasure.py [--data ../shared/data] [--no-mix]

Scores ``test.spellchecked.src`` against
``derived/jfleg-test-errant/jfleg.test.ref.errant.ixml`` with ``-nomix``
(checks the counts against the tool's: TP 324, TN 11943, FP 1053, FN 1420,
FPN 231, I -9.25) and then in the default mix mode (all combinations up to
``DEFAULT_MAX_REFERENCES`` per sentence, coordinate ascent above; the
reference tool did not finish this in 10 minutes, so there is no reference
time for it). The reference (mfelice/imeasure ``ieval.py``, Python 2) cannot
run here; its CPU time from REFERENCE_FIGURES is printed beside ours
(257 CPU-s for ``-nomix``). Times are CPU seconds (process time), wall time
beside.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from geceval.formats.ixml import read_ixml
from geceval.formats.text import read_lines
from geceval.imeasure import DEFAULT_MAX_REFERENCES, imeasure

REFERENCE_NOMIX_CPU = 257.0
EXPECTED_NOMIX = (324, 11943, 1053, 1420, 231)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"), help="the shared data directory")
    ap.add_argument("--no-mix", action="store_true", help="skip the mix-mode run")
    args = ap.parse_args(argv)
    data = Path(args.data)
    gold_path = data / "derived" / "jfleg-test-errant" / "jfleg.test.ref.errant.ixml"
    hyp_path = data / "jfleg" / "test" / "test.spellchecked.src"
    if not gold_path.exists() or not hyp_path.exists():
        print(f"data not found under {data}", file=sys.stderr)
        return 2

    cpu0, wall0 = time.process_time(), time.perf_counter()
    gold = read_ixml(gold_path)
    hyps = read_lines(hyp_path)
    res = imeasure(hyps, gold, mix=False)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    c = res.correction
    counts = (c.tp, c.tn, c.fp, c.fn, c.fpn)
    print(f"JFLEG test spellchecked, -nomix: TP {c.tp} TN {c.tn} FP {c.fp} FN {c.fn} FPN {c.fpn}")
    print(
        f"  correction P {100 * c.p:.2f} R {100 * c.r:.2f} WAcc {100 * c.wacc:.2f} "
        f"baseline {100 * c.baseline_wacc:.2f} I {100 * c.i:.2f}; detection I {100 * res.detection.i:.2f}"
    )
    print(f"  counts {'match' if counts == EXPECTED_NOMIX else 'DIFFER FROM'} the reference tool's")
    print(
        f"  ours {cpu:.2f} CPU-s ({wall:.2f} s wall) vs reference {REFERENCE_NOMIX_CPU:.0f} CPU-s: "
        f"{REFERENCE_NOMIX_CPU / cpu:.1f}x faster (goal <= 15 s)"
    )
    if not args.no_mix:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        res = imeasure(hyps, gold, mix=True)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        c = res.correction
        print(
            f"JFLEG test spellchecked, mix (max {DEFAULT_MAX_REFERENCES} combinations a sentence, "
            f"{len(res.capped)} sentences above it searched by coordinate ascent):"
        )
        print(
            f"  TP {c.tp} TN {c.tn} FP {c.fp} FN {c.fn} FPN {c.fpn}; P {100 * c.p:.2f} R {100 * c.r:.2f} "
            f"WAcc {100 * c.wacc:.2f} baseline {100 * c.baseline_wacc:.2f} I {100 * c.i:.2f}"
        )
        print(f"  ours {cpu:.2f} CPU-s ({wall:.2f} s wall); reference: did not finish in 10 minutes")
    return 0 if counts == EXPECTED_NOMIX else 1


if __name__ == "__main__":
    sys.exit(main())
