"""SentM2 against m2scorer 3.2 run sentence by sentence: every CoNLL-14 output, full test set.

    .venv/bin/python bench/bench_sent_m2.py [--data ../shared/data] [--smoke]

For each of the 13 official outputs (12 systems and INPUT), the reference
(``../shared/reference-tools/m2scorer`` under Python 2.7, its scoring function called once per
sentence by ``bench/py2/m2scorer_sentences_driver.py``) and ours (``geceval.metrics.sentence_averaged``) give
every sentence's F_0.5; they must agree to 1e-4 on every sentence, else the benchmark exits 1.
Prints each system's SentM2 (the mean) and the CPU seconds of both scoring calls.
``--smoke``: the first 60 sentences of AMU.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from reference import TOOLS, cpu_call, machine_load, need, py2_driver, python2, run_main

from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.metrics.sentence_averaged import mean, sent_m2_scores

SCRIPTS = TOOLS / "m2scorer" / "scripts"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    outputs = args.data / "grammatical-evaluation" / "data" / "original" / "official_submissions"
    gold_path = args.data / "gecmetrics" / "data" / "conll14st-test" / "conll14st-test.m2"
    need(outputs, gold_path)
    python2()
    print(machine_load())
    systems = ["AMU"] if args.smoke else sorted(p.name for p in outputs.iterdir() if p.is_file())
    n = 60 if args.smoke else None
    ok = True
    ref_total = ours_total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        gold_file = gold_path
        if n is not None:
            blocks = gold_path.read_text(encoding="utf-8").split("\n\n")[:n]
            gold_file = Path(tmp) / "gold.m2"
            gold_file.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
        gold = read_m2(gold_file)
        print(
            f"{'system':<8} {'SentM2 ref':>10} {'SentM2 ours':>11} {'max |diff|':>11} {'ref CPU-s':>9} {'ours CPU-s':>10}"
        )
        for system in systems:
            lines = read_lines(outputs / system, allow_empty=True)[: len(gold)]
            hyp = Path(tmp) / system
            hyp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            ref = py2_driver("m2scorer_sentences_driver.py", str(SCRIPTS), str(hyp), str(gold_file))
            cpu, ours = cpu_call(lambda lines=lines: sent_m2_scores(lines, gold))
            diff = max(abs(a - b) for a, b in zip(ours, ref["f"]))
            same = len(ref["f"]) == len(ours) and diff < 1e-4
            ok = ok and same
            ref_total += ref["cpu"]
            ours_total += cpu
            print(
                f"{system:<8} {mean(ref['f']):>10.4f} {mean(ours):>11.4f} {diff:>11.2e} {ref['cpu']:>9.2f} "
                f"{cpu:>10.2f}{'' if same else '  DIFFERENT'}"
            )
    print(f"total CPU-s: reference {ref_total:.1f}, ours {ours_total:.1f}; {'same' if ok else 'DIFFERENT'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(run_main(main))
