"""I-measure on JFLEG test: ours against mfelice/imeasure's ``ieval.py``, both run here in one run.

    .venv/bin/python bench/bench_imeasure.py [--data ../shared/data] [--repeat 3] [--no-mix] [--smoke]

Scores ``test.spellchecked.src`` against ``derived/jfleg-test-errant/jfleg.test.ref.errant.ixml``
(747 sentences, the gold XML of the 4 ERRANT-annotated references) with ``-nomix``. The reference
(``../shared/reference-tools/imeasure`` under Python 2.7) and ours are timed as in
bench/reference.py: in-process (its script body after its imports, minus the time its streaming
XML parse takes alone, measured in the same driver; ours: ``imeasure()`` on parsed input) and as
whole processes. The correction and detection counts must be equal, else exit 1. Goal: ours
>= 60x in-process. Then ours in the default mix mode (all combinations up to
``DEFAULT_MAX_REFERENCES`` per sentence); the reference's mix mode is not run (it does not finish
in 10 minutes on this file). ``--smoke``: the first 25 sentences, once (CI: counts checked).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from reference import (
    TOOLS,
    Timing,
    cpu_call,
    machine_load,
    need,
    ours_command,
    print_ratio_table,
    py2_driver,
    python2,
    repeat,
    run_main,
    whole_process,
)

from geceval.formats.ixml import read_ixml
from geceval.formats.text import read_lines
from geceval.metrics.imeasure.scorer import DEFAULT_MAX_REFERENCES, imeasure

IEVAL = TOOLS / "imeasure"
KEYS = ("tp", "tn", "fp", "fn", "fpn")


def head(gold: Path, hyp: Path, n: int, into: Path) -> tuple[Path, Path]:
    tree = ET.parse(gold)
    root = tree.getroot()
    for parent in root.iter():
        for child in [c for c in parent if c.tag == "sentence"][n:]:
            parent.remove(child)
    tree.write(into / "gold.xml", encoding="utf-8", xml_declaration=True)
    (into / "hyp.txt").write_text("\n".join(hyp.read_text(encoding="utf-8").splitlines()[:n]) + "\n")
    return into / "gold.xml", into / "hyp.txt"


def compare(name: str, gold: Path, hyp: Path, runs: int) -> bool:
    args = [f"-ref:{gold}", f"-hyp:{hyp}", "-nomix"]
    ref_in, ref = Timing(), None
    for _ in range(runs):
        ref = py2_driver("ieval_driver.py", str(IEVAL), *args, cwd=IEVAL)
        ref_in.samples.append(max(ref["cpu"] - ref["parse_cpu"], 0.0))
    golds, hyps = read_ixml(gold), read_lines(hyp)
    ours_in, res = repeat(runs, lambda: cpu_call(lambda: imeasure(hyps, golds, mix=False)))
    ref_whole, _ = repeat(runs, lambda: whole_process([*python2(), "ieval.py", *args], cwd=IEVAL, py2=True))
    cmd = ours_command("score", "imeasure", "--refs", str(gold), "--hyp", str(hyp), "--nomix", "--json")
    ours_whole, out = repeat(runs, lambda: whole_process(cmd))
    print_ratio_table(
        f"{name}, -nomix: CPU seconds over {runs} run(s)",
        [("in-process", ref_in, ours_in), ("whole process", ref_whole, ours_whole)],
    )
    ok = True
    for aspect, ours in (("c", res.correction), ("d", res.detection)):
        theirs = tuple(int(ref["counts"][aspect].get(k, 0)) for k in KEYS)
        mine = tuple(getattr(ours, k) for k in KEYS)
        cli = json.loads(out)[0]["correction" if aspect == "c" else "detection"]
        same = theirs == mine == tuple(cli[k] for k in KEYS)
        ok = ok and same
        label = "correction" if aspect == "c" else "detection"
        print(f"  {label} TP TN FP FN FPN: reference {theirs} ours {mine}: {'same' if same else 'DIFFER'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-mix", action="store_true", help="skip our mix-mode run")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    gold = args.data / "derived" / "jfleg-test-errant" / "jfleg.test.ref.errant.ixml"
    hyp = args.data / "jfleg" / "test" / "test.spellchecked.src"
    need(gold, hyp)
    python2()
    print(machine_load())
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            return 0 if compare("JFLEG test, first 25 sentences", *head(gold, hyp, 25, Path(tmp)), 1) else 1
    ok = compare("JFLEG test spellchecked", gold, hyp, args.repeat)
    if not args.no_mix:
        golds, hyps = read_ixml(gold), read_lines(hyp)
        cpu, res = cpu_call(lambda: imeasure(hyps, golds))
        print(
            f"ours, mix mode (max {DEFAULT_MAX_REFERENCES} combinations a sentence): {cpu:.2f} CPU-s, "
            f"I {100 * res.correction.i:.2f} (the reference's mix mode is not run: > 10 min)"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(run_main(main))
