"""M2 (MaxMatch): ours against the original m2scorer 3.2, both run here, on the same data, in one run.

    .venv/bin/python bench/bench_m2.py [--data ../shared/data] [--repeat 3] [--smoke] [--blowup-timeout 90]

Cases: CoNLL-14 AMU against the official gold (goal: >= 40x in-process) and JFLEG test
``test.spellchecked.src`` against the ERRANT gold of its 4 references (goal: >= 100x). For each, the
reference (``../shared/reference-tools/m2scorer`` under Python 2.7) and ours are timed twice
(bench/reference.py): the scoring call alone inside each interpreter, and the whole command. Both
must give the same P, R and F (to m2scorer's 4 printed decimals in-process, exactly the same
rounded output as whole processes), else the benchmark exits 1. Then the blow-up sentence (GMEG
Wiki, 408-token ``marian`` output): ours, and the reference with a time limit.
``--smoke`` scores the first 60 CoNLL-14 sentences once each (CI: numbers checked, no timing goal).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
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

from geceval.formats.m2 import read_m2
from geceval.formats.text import read_lines
from geceval.metrics.m2.scorer import m2_score

SCRIPTS = TOOLS / "m2scorer" / "scripts"


def head(hyp: Path, gold: Path, n: int, into: Path) -> tuple[Path, Path]:
    """The first ``n`` sentences of a system file and of its M2 gold."""
    blocks = gold.read_text(encoding="utf-8").split("\n\n")
    (into / "gold.m2").write_text("\n\n".join(blocks[:n]) + "\n\n", encoding="utf-8")
    lines = hyp.read_text(encoding="utf-8").splitlines()[:n]
    (into / "hyp.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return into / "hyp.txt", into / "gold.m2"


def compare(name: str, hyp: Path, gold: Path, runs: int) -> bool:
    hyps, golds = read_lines(hyp), read_m2(gold)
    ref_in, ref = Timing(), None
    for _ in range(runs):
        ref = py2_driver("m2scorer_driver.py", str(SCRIPTS), str(hyp), str(gold))
        ref_in.samples.append(ref["cpu"])
    ours_in, res = repeat(runs, lambda: cpu_call(lambda: m2_score(hyps, golds)))
    ref_cmd = [*python2(), str(SCRIPTS / "m2scorer.py"), str(hyp), str(gold)]
    ref_whole, ref_out = repeat(runs, lambda: whole_process(ref_cmd, py2=True))
    our_cmd = ours_command("score", "m2", "--refs", str(gold), "--hyp", str(hyp), "--json")
    ours_whole, our_out = repeat(runs, lambda: whole_process(our_cmd))
    print_ratio_table(
        f"{name}: CPU seconds over {runs} run(s)",
        [("in-process", ref_in, ours_in), ("whole process", ref_whole, ours_whole)],
    )
    ref_prf = [round(ref[k], 4) for k in ("p", "r", "f")]
    our_prf = [round(v, 4) for v in (res.p, res.r, res.f)]
    printed = [line.split(":")[1].strip() for line in ref_out.splitlines() if ":" in line]
    mine = [f"{json.loads(our_out)[0][k]:.4f}" for k in ("p", "r", "f")]
    same = ref_prf == our_prf and printed == mine
    print(
        f"  P R F reference {ref_prf} ours {our_prf}; printed {printed} vs {mine}: {'same' if same else 'DIFFER'}"
    )
    return same


def blowup(data: Path, timeout: float) -> None:
    blow = data / "derived" / "m2-blowup"
    need(blow / "ref.m2", blow / "marian")
    cpu, res = cpu_call(lambda: m2_score(read_lines(blow / "marian"), read_m2(blow / "ref.m2")))
    print(f"blow-up sentence (marian, 408 tokens): ours {cpu:.2f} CPU-s, F0.5 {res.f:.4f}")
    cmd = [*python2(), str(SCRIPTS / "m2scorer.py"), str(blow / "marian"), str(blow / "ref.m2")]
    import subprocess

    from reference import _py2_env

    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=_py2_env(), timeout=timeout)
        print(f"  reference finished: {done.stdout.strip().splitlines()[-1]}")
    except subprocess.TimeoutExpired:
        print(f"  reference did not finish within {timeout:.0f} s (run here, now)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--blowup-timeout", type=float, default=90.0)
    args = parser.parse_args()
    data = args.data
    amu = data / "grammatical-evaluation" / "data" / "original" / "official_submissions" / "AMU"
    conll = data / "gecmetrics" / "data" / "conll14st-test" / "conll14st-test.m2"
    jfleg_hyp = data / "jfleg" / "test" / "test.spellchecked.src"
    jfleg_gold = data / "derived" / "jfleg-test-errant" / "jfleg.test.ref.errant.m2"
    need(amu, conll)
    python2()
    print(machine_load())
    if args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            return (
                0 if compare("CoNLL-14 AMU, first 60 sentences", *head(amu, conll, 60, Path(tmp)), 1) else 1
            )
    ok = compare("CoNLL-14 AMU (official gold)", amu, conll, args.repeat)
    need(jfleg_hyp, jfleg_gold)
    ok = compare("JFLEG test spellchecked (ERRANT gold)", jfleg_hyp, jfleg_gold, args.repeat) and ok
    blowup(data, args.blowup_timeout)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(run_main(main))
