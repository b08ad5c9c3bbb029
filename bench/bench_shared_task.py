"""A shared task (issue 43): the 12 CoNLL-14 system outputs with M2, SentM2, GLEU+, I-measure,
ERRANT, BLEU and chrF++ -- the reference tools one process per system and metric, as a researcher
runs them, against ``python -m geceval score m2,sentm2,...`` once, in the same run.

    .venv/bin/python bench/bench_shared_task.py [--systems N] [--metrics m2,gleu,...] [--smoke]

Data (../shared/data): the outputs in ``grammatical-evaluation/.../official_submissions`` (INPUT,
the source, left out); the gold ``gecmetrics/.../conll14st-test.m2`` for M2, SentM2 and ERRANT;
its ``conll14st-test.tok.src`` and ``refs/conll14st-test.tok.trg0``/``trg1`` for GLEU+, BLEU and
chrF++; for the I-measure, ``grammaticality-metrics/references/NUCLE.m2.ieval.xml``, the reference
converter's XML of the same M2 (``NUCLE.m2`` is byte for byte ``conll14st-test.m2``).

The reference commands (../shared/reference-tools and the packages in requirements-dev.txt):
- M2: ``m2scorer.py HYP GOLD`` (Python 2.7); P, R, F0.5 to its 4 decimals;
- SentM2: m2scorer's scoring function sentence by sentence (``bench/py2/m2scorer_sentences_driver.py``,
  one process a system, printing every sentence's F at full precision); the mean to 10 decimals
  (bench_sent_m2.py compares the sentences one by one);
- I-measure: ``ieval.py -ref:GOLD.xml -hyp:HYP -nomix`` (Python 2.7; its default mix mode, which
  tries every combination of the annotators' alternatives, ran over a minute of CPU on the first
  40 sentences of AMU here without finishing) and ours with ``--nomix``; detection and correction
  counts exactly, P, R, F, Acc, WAcc and I to its 2 decimals;
- GLEU+: PyPI ``gleu -n 4 -i 500 --fix-seed`` (the JFLEG script's draws); its printed score (x100,
  2 decimals);
- ERRANT: ``errant_parallel`` on the source and the output, then ``errant_compare -ref GOLD``; TP,
  FP, FN exactly, P, R, F0.5 to its 4 decimals;
- BLEU, chrF++: sacrebleu's command (``-b -w 4``; chrF++ with ``--chrf-word-order 2``); to its 4
  decimals.
Ours: one ``python -m geceval score`` process for every system and metric (``--json``), with a
fresh, empty ``GECEVAL_CACHE``, run before the references and again after them (the ratio takes the
dearer of the two, and the two must print the same numbers). Both sides are whole-process CPU seconds (start-up included, from
``wait4``, each process apart). Prints each comparison, the reference's CPU by metric, and the
ratio; exits 1 if any number differs. Goal (issue 43): ours at least 60x faster.
``--jobs N``: run N reference processes at a time (each one's CPU is still its own; ours runs
first, alone). ``--smoke``: the first 40 sentences of 2 systems, every metric (CI: numbers checked, no goal).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_errant import PARALLEL  # errant_parallel as bench_errant.py runs it
from reference import (
    DRIVERS,
    SHARED,
    TOOLS,
    Skip,
    machine_load,
    need,
    ours_command,
    python2,
    run_main,
    whole_process,
)

from geceval.metrics.errant.scorer import SPACY_MODEL

METRICS = ("m2", "sentm2", "gleu", "imeasure", "errant", "bleu", "chrf")
GOAL = 60.0
SCRIPTS = TOOLS / "m2scorer" / "scripts"
IEVAL = TOOLS / "imeasure"
BIN = Path(sys.executable).parent


@dataclass
class Task:
    src: Path
    m2: Path
    xml: Path
    trg: list[Path]
    systems: list[Path]
    work: Path


@dataclass
class Check:
    """One system and metric: the reference's CPU and whether each of its numbers equals ours."""

    metric: str
    system: str
    cpu: float
    theirs: list[str]
    ours: list[str]

    @property
    def same(self) -> bool:
        return self.theirs == self.ours


def _d(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


# ----------------------------------------------------------------------------- the reference tools


def ref_m2(task: Task, hyp: Path, row: dict) -> Check:
    cpu, out = whole_process([*python2(), str(SCRIPTS / "m2scorer.py"), str(hyp), str(task.m2)], py2=True)
    printed = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    theirs = [printed[k].strip() for k in ("Precision   ", "Recall      ", "F_0.5       ")]
    return Check("m2", hyp.name, cpu, theirs, [_d(row[k], 4) for k in ("p", "r", "f")])


def ref_sentm2(task: Task, hyp: Path, row: dict) -> Check:
    driver = [*python2(), str(DRIVERS / "m2scorer_sentences_driver.py"), str(SCRIPTS), str(hyp), str(task.m2)]
    cpu, out = whole_process(driver, py2=True)
    f = json.loads(out.strip().splitlines()[-1])["f"]
    theirs = [str(len(f)), _d(sum(f) / len(f), 10)]
    return Check("sentm2", hyp.name, cpu, theirs, [str(row["n_sentences"]), _d(row["score"], 10)])


# ieval's columns; None: not compared -- its F is F_1 (its default beta) where ours is F_0.5, the
# beta our other edit-based metrics share (the I-measure does not depend on it), and the baseline's
# Acc and WAcc
IEVAL_KEYS = ("tp", "tn", "fp", "fn", "fpn", "p", "r", None, "acc", None, "wacc", None, "i")


def ref_imeasure(task: Task, hyp: Path, row: dict) -> Check:
    cmd = [*python2(), "ieval.py", f"-ref:{task.xml}", f"-hyp:{hyp}", "-nomix"]
    cpu, out = whole_process(cmd, cwd=IEVAL, py2=True)
    theirs, ours = [], []
    for label, aspect in (("Detection", "detection"), ("Correction", "correction")):
        cells = next(line.split()[1:] for line in out.splitlines() if line.startswith(label + " "))
        for key, cell in zip(IEVAL_KEYS, cells):
            if key is None:
                continue
            theirs.append(f"{aspect} {key} {cell}")
            value = row[aspect][key]
            ours.append(f"{aspect} {key} {value if isinstance(value, int) else _d(value, 2)}")
    return Check("imeasure", hyp.name, cpu, theirs, ours)


def ref_gleu(task: Task, hyp: Path, row: dict) -> Check:
    cmd = [str(BIN / "gleu"), "-s", str(task.src), "-r", *map(str, task.trg), "-o", str(hyp)]
    cpu, out = whole_process([*cmd, "-n", "4", "-i", "500", "--fix-seed"])
    return Check("gleu", hyp.name, cpu, [out.strip().split("\t")[1]], [_d(100 * row["score"], 2)])


def ref_errant(task: Task, hyp: Path, row: dict) -> Check:
    sys_m2 = task.work / f"{hyp.name}.errant.m2"
    parallel = [sys.executable, "-c", PARALLEL, SPACY_MODEL, "-orig", str(task.src), "-cor", str(hyp)]
    cpu1, _ = whole_process([*parallel, "-out", str(sys_m2)])
    cpu2, out = whole_process([str(BIN / "errant_compare"), "-hyp", str(sys_m2), "-ref", str(task.m2)])
    cells = next(line.split() for line in out.splitlines() if line.strip() and line.split()[0].isdigit())
    # errant_compare prints round(x, 4) as Python prints a float
    ours = [str(row["tp"]), str(row["fp"]), str(row["fn"]), *(str(round(row[k], 4)) for k in ("p", "r", "f"))]
    return Check("errant", hyp.name, cpu1 + cpu2, cells[:6], ours)


def _sacrebleu(metric: str, *options: str) -> Callable[[Task, Path, dict], Check]:
    def run(task: Task, hyp: Path, row: dict) -> Check:
        cmd = [str(BIN / "sacrebleu"), *map(str, task.trg), "-i", str(hyp), "-m", metric, *options]
        cpu, out = whole_process([*cmd, "-b", "-w", "4"])
        return Check(metric, hyp.name, cpu, [out.strip()], [_d(row["score"], 4)])

    return run


REFERENCE = {
    "m2": ref_m2,
    "sentm2": ref_sentm2,
    "imeasure": ref_imeasure,
    "gleu": ref_gleu,
    "errant": ref_errant,
    "bleu": _sacrebleu("bleu"),
    "chrf": _sacrebleu("chrf", "--chrf-word-order", "2"),
}


# ----------------------------------------------------------------------------- ours, in one process


def ours(
    task: Task, metrics: list[str], cache_name: str = "geceval-cache"
) -> tuple[float, dict[tuple[str, str], dict]]:
    refs = [task.m2, task.xml, *task.trg]
    cmd = ours_command("score", ",".join(metrics), "--source", str(task.src), "--refs", *map(str, refs))
    if "imeasure" in metrics:
        cmd.append("--nomix")  # as ieval.py is run: its mix mode takes minutes a sentence here
    cmd += ["--hyp", *map(str, task.systems), "--json"]
    cache = task.work / cache_name  # a fresh, empty cache per run
    cpu, out = whole_process(cmd, env={"GECEVAL_CACHE": str(cache)})
    return cpu, {(r["metric"], Path(r["hyp"]).name): r for r in json.loads(out)}


# ----------------------------------------------------------------------------- data


def head_lines(path: Path, n: int, into: Path) -> Path:
    lines = path.read_text(encoding="utf-8").split("\n")[:n]
    (into / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return into / path.name


def head_m2(path: Path, n: int, into: Path) -> Path:
    blocks = path.read_text(encoding="utf-8").split("\n\n")[:n]
    (into / path.name).write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return into / path.name


def head_xml(path: Path, n: int, into: Path) -> Path:
    tree = ET.parse(path)
    for parent in tree.getroot().iter():
        for child in [c for c in parent if c.tag == "sentence"][n:]:
            parent.remove(child)
    tree.write(into / path.name, encoding="utf-8", xml_declaration=True)
    return into / path.name


def task_of(data: Path, n_systems: int, sentences: int | None, work: Path) -> Task:
    outputs = data / "grammatical-evaluation" / "data" / "original" / "official_submissions"
    conll = data / "gecmetrics" / "data" / "conll14st-test"
    src, m2 = conll / "conll14st-test.tok.src", conll / "conll14st-test.m2"
    trg = [conll / "refs" / f"conll14st-test.tok.trg{i}" for i in (0, 1)]
    xml = data / "grammaticality-metrics" / "references" / "NUCLE.m2.ieval.xml"
    need(outputs, src, m2, *trg, xml)
    systems = sorted(p for p in outputs.iterdir() if p.is_file() and p.name != "INPUT")[:n_systems]
    if sentences is None:
        return Task(src, m2, xml, trg, systems, work)
    cut = work / "data"
    (cut / "systems").mkdir(parents=True)
    return Task(
        head_lines(src, sentences, cut),
        head_m2(m2, sentences, cut),
        head_xml(xml, sentences, cut),
        [head_lines(t, sentences, cut) for t in trg],
        [head_lines(s, sentences, cut / "systems") for s in systems],
        work,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED / "data")
    parser.add_argument("--systems", type=int, default=12, help="the first N of the 12 systems (sorted)")
    parser.add_argument(
        "--metrics", default=",".join(METRICS), help="comma-separated, of " + ",".join(METRICS)
    )
    parser.add_argument("--jobs", type=int, default=1, help="reference processes run at a time")
    parser.add_argument("--smoke", action="store_true", help="first 40 sentences of 2 systems (CI)")
    args = parser.parse_args()
    metrics = [m.strip() for m in args.metrics.split(",")]
    if unknown := sorted(set(metrics) - set(METRICS)):
        parser.error(f"unknown metric {', '.join(unknown)} (of {', '.join(METRICS)})")
    if not args.data.is_dir():
        raise Skip(f"the public data is not at {args.data} (../shared is absent)")
    python2()
    for tool in ("gleu", "errant_compare", "sacrebleu"):
        if not (BIN / tool).exists():
            raise Skip(f"{tool} is not installed in this environment (pip install -r requirements-dev.txt)")
    print(machine_load())
    with tempfile.TemporaryDirectory() as tmp:
        n_systems, sentences = (2, 40) if args.smoke else (args.systems, None)
        task = task_of(args.data, n_systems, sentences, Path(tmp))
        print(f"{len(task.systems)} systems x {len(metrics)} metrics: {', '.join(metrics)}")
        our_cpu, rows = ours(task, metrics)
        print(f"ours: {our_cpu:.2f} CPU-s in one process", flush=True)

        def check(metric: str, hyp: Path) -> Check:
            done = REFERENCE[metric](task, hyp, rows[metric, hyp.name])
            verdict = "same" if done.same else f"DIFFER: reference {done.theirs} ours {done.ours}"
            print(
                f"  {metric:<9} {hyp.name:<5} ref {done.cpu:7.2f} CPU-s  {' '.join(done.theirs)[:70]}: {verdict}",
                flush=True,  # a full run takes long: show each check as it comes
            )
            return done

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            checks = list(pool.map(lambda job: check(*job), [(m, h) for m in metrics for h in task.systems]))
        # ours again after the references (another fresh cache): the load can change over a run that
        # takes the references half an hour, so the ratio is taken against the dearer of the two.
        again_cpu, again_rows = ours(task, metrics, cache_name="geceval-cache-again")
        print(f"ours again, after the references: {again_cpu:.2f} CPU-s in one process", flush=True)
        if again_rows != rows:
            print("OURS DIFFER between the two runs")
            return 1
        our_cpu = max(our_cpu, again_cpu)
    print("reference CPU-s by metric, one process a system:")
    for metric in metrics:
        print(f"  {metric:<9} {sum(c.cpu for c in checks if c.metric == metric):8.2f}")
    ref_cpu = sum(c.cpu for c in checks)
    ratio = ref_cpu / our_cpu
    print(f"reference tools {ref_cpu:.2f} CPU-s in {len(checks)} processes; ours {our_cpu:.2f} CPU-s in one")
    print(
        f"ratio {ratio:.1f}x (goal {GOAL:.0f}x{'' if args.smoke else ': met' if ratio >= GOAL else ': NOT met'})"
    )
    ok = all(c.same for c in checks)
    print("every number equals its reference's" if ok else "SOME NUMBERS DIFFER")
    print(machine_load())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(run_main(main))
