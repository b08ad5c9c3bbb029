"""BLEU, chrF++ and TER (issue 43): ``geceval score`` against sacrebleu's own command, same run, same data.

    .venv/bin/python bench/bench_sacre.py [--data ../shared/data] [--repeat 3] [--smoke]

Data: the CoNLL-14 test set (1,312 sentences) with its two references ``conll14st-test.tok.trg0``
and ``trg1``, and the official system outputs in ``grammatical-evaluation``.
For each metric (sacrebleu's defaults; chrF with ``--chrf-word-order 2``, i.e. chrF++, beta 2;
TER case-insensitive, as ours by default):

- one system (AMU) per process, as a researcher runs one: ``sacrebleu REF0 REF1 -i SYS -m M``
  against ``python -m geceval score M --refs REF0 REF1 --hyp SYS`` (child CPU seconds, start-up
  included);
- every system in one process: sacrebleu's multi-system mode (``-i SYS1 ... SYS12``, which also
  preprocesses the references once) against ``geceval score M --hyp SYS1 ... SYS12``;
- in-process, one system: sacrebleu's API as its command calls it (``METRIC(references=refs)``,
  then ``corpus_score``) against our function (``geceval.metrics.sacre.bleu`` ...), start-up and
  file reading excluded; each side with its own fresh reference preprocessing.

Every score must equal sacrebleu's to the 4 decimals its command prints (else exit 1). Ratios are
sacrebleu's CPU over ours (> 1: ours faster), minima over ``--repeat`` runs.
``--smoke``: the first 100 sentences of two systems, one repeat (CI: numbers checked).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from reference import (
    SHARED,
    Skip,
    cpu_call,
    machine_load,
    need,
    ours_command,
    print_ratio_table,
    repeat,
    run_main,
    whole_process,
)

from geceval.formats.text import read_lines
from geceval.metrics import sacre

METRICS = {
    # ours, sacrebleu's -m name and options, its JSON key, our function
    "bleu": (["-m", "bleu"], "BLEU"),
    "chrf": (["-m", "chrf", "--chrf-word-order", "2"], "chrF2++"),
    "ter": (["-m", "ter"], "TER"),
}


def sacrebleu_command(refs: list[Path], systems: list[Path], metric: str) -> list[str]:
    exe = Path(sys.executable).parent / "sacrebleu"
    if not exe.exists():
        raise Skip(f"sacrebleu's command is not at {exe}")
    options, _ = METRICS[metric]
    return [str(exe), "-q", *map(str, refs), "-i", *map(str, systems), *options, "-w", "4", "-f", "json"]


def sacrebleu_scores(out: str, metric: str, n_systems: int) -> list[str]:
    data = json.loads(out)
    if n_systems == 1:
        return [f"{float(data['score']):.4f}"]
    return [row[METRICS[metric][1]] for row in data]


def ours_scores(out: str) -> list[str]:
    return [f"{row['score']:.4f}" for row in json.loads(out)]


def reference_api(metric: str, refs: list[list[str]], hyp: list[str]) -> float:
    """sacrebleu's API as its command calls it for one system: references cached at construction."""
    from sacrebleu.metrics import BLEU, CHRF, TER

    made = {"bleu": lambda: BLEU(references=refs), "chrf": lambda: CHRF(word_order=2, references=refs)}
    scorer = made.get(metric, lambda: TER(references=refs))()
    return float(scorer.corpus_score(hyp, None).score)


def ours_api(metric: str, refs: list[list[str]], hyp: list[str]) -> float:
    sacre._prepared.cache_clear()  # our own fresh reference preprocessing, as one command has
    return getattr(sacre, metric)(refs, hyp).score


def _truncate(paths: list[Path], n: int, out: Path) -> list[Path]:
    small = []
    for i, path in enumerate(paths):
        target = out / f"{i}-{path.name}"
        target.write_text("".join(path.read_text(encoding="utf-8").splitlines(True)[:n]), encoding="utf-8")
        small.append(target)
    return small


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("GEC_SHARED_DIR", SHARED)) / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # as its command's -q; ours is quiet too
    trg = args.data / "gecmetrics" / "data" / "conll14st-test" / "refs"
    refs = [trg / "conll14st-test.tok.trg0", trg / "conll14st-test.tok.trg1"]
    folder = args.data / "grammatical-evaluation" / "data" / "original" / "official_submissions"
    need(*refs, folder)
    systems = sorted(p for p in folder.iterdir() if p.is_file())
    n_repeat = 1 if args.smoke else args.repeat
    bad: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.smoke:
            refs = _truncate(refs, 100, Path(tmp))
            systems = _truncate(systems[:2], 100, Path(tmp))
        one = [p for p in systems if p.name.endswith("AMU")] or systems[:1]
        ref_lines = [read_lines(p) for p in refs]
        hyp_lines = read_lines(one[0], allow_empty=True)
        print(
            f"BLEU, chrF++, TER on CoNLL-14 ({len(ref_lines[0])} sentences, 2 references); {machine_load()}"
        )
        for metric in METRICS:
            rows = []
            for label, chosen in (("one system", one), (f"{len(systems)} systems", systems)):
                theirs_cmd = sacrebleu_command(refs, chosen, metric)
                ours_cmd = ours_command(
                    "score", metric, "--refs", *map(str, refs), "--hyp", *map(str, chosen)
                )
                ref_t, ref_out = repeat(n_repeat, lambda c=theirs_cmd: whole_process(c))
                our_t, our_out = repeat(n_repeat, lambda c=ours_cmd: whole_process([*c, "--json"]))
                theirs, ours = sacrebleu_scores(ref_out, metric, len(chosen)), ours_scores(our_out)
                verdict = "same" if theirs == ours else "DIFFER"
                if theirs != ours:
                    bad.append(f"{metric} {label}: sacrebleu {theirs} ours {ours}")
                print(f"  {metric} {label}: sacrebleu {theirs[:3]} ours {ours[:3]}: {verdict}")
                rows.append((f"{label} (cmd)", ref_t, our_t))
            ref_t, ref_score = repeat(
                n_repeat, lambda m=metric: cpu_call(lambda: reference_api(m, ref_lines, hyp_lines))
            )
            our_t, our_score = repeat(
                n_repeat, lambda m=metric: cpu_call(lambda: ours_api(m, ref_lines, hyp_lines))
            )
            if ref_score != our_score:
                bad.append(f"{metric} in-process: sacrebleu {ref_score} ours {our_score}")
            rows.append(("in-process", ref_t, our_t))
            print_ratio_table(f"{metric}: sacrebleu vs ours (CPU-s; ratio > 1: ours faster)", rows)
        print(f"after: {machine_load()}")
    for line in bad:
        print(f"MISMATCH {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run_main(main))
