"""ERRANT on JFLEG test (747 sentences x 4 references): ours against errant's own loop, both run here.

    .venv/bin/python bench/bench_errant.py [--data ../shared/data] [--repeat 1] [--smoke]

In-process (model load excluded on both sides): ours annotates the 4 references (source parsed
once), then scores ``test.spellchecked.src`` against the same parsed source (only its changed
lines are parsed). The reference is ``errant_parallel``'s own procedure through the errant API
(full model pipeline, NER included; one sentence at a time, no batching, no cache), on the same
references and system; its M2 must be identical to ours, else exit 1.
Whole process (start-up and model load included): errant's commands ``errant_parallel`` for the
references, ``errant_parallel`` for the system and ``errant_compare``, against one
``python -m geceval score errant``; both must print the same P, R, F0.5.
(``test.src`` as a system is not benchmarked: it has no changed line to parse, so a ratio on it
measures nothing.) ``--smoke``: the first 30 sentences (CI: M2 and scores checked).
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
    Timing,
    cpu_call,
    machine_load,
    need,
    ours_command,
    print_ratio_table,
    repeat,
    run_main,
    whole_process,
)

from geceval.formats.m2 import format_m2
from geceval.formats.text import read_lines
from geceval.metrics.errant import scorer as es


def reference_annotator() -> object:
    """What errant_parallel loads: the full pipeline (NER included) of the model."""
    import errant
    import spacy

    return errant.load("en", spacy.load(es.SPACY_MODEL))


def reference_procedure(annotator: object, src: list[str], cors: list[list[str]]) -> list[str]:
    """errant_parallel's loop (pretokenised) through the errant API: one sentence at a time."""
    blocks = []
    for i, line in enumerate(src):
        orig = annotator.parse(line.strip())  # type: ignore[attr-defined]
        out = ["S " + " ".join(t.text for t in orig)]
        for k, cor_lines in enumerate(cors):
            cor = cor_lines[i].strip()
            if orig.text.strip() == cor:
                out.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{k}")
            else:
                for edit in annotator.annotate(orig, annotator.parse(cor)):  # type: ignore[attr-defined]
                    out.append(edit.to_m2(k))
        blocks.append("\n".join(out))
    return blocks


PARALLEL = """
import sys, spacy
model, real = sys.argv.pop(1), spacy.load
spacy.load = lambda name, *a, **k: real(model if name == "en_core_web_sm" else name, *a, **k)
from errant.commands.parallel_to_m2 import main
sys.argv[0] = "errant_parallel"
sys.exit(main())
"""


def whole(folder: Path, src: Path, refs: list[Path], hyp: Path, runs: int) -> tuple[Timing, Timing, bool]:
    """errant's three commands against our one, as a user runs them (start-up and model load included)."""
    gold, sys_m2 = folder / "gold.m2", folder / "sys.m2"
    # errant_parallel's own entry point; the one change: its spaCy model name ("en_core_web_sm") maps
    # to the same model installed here under the name geceval uses (a registry package of it).
    parallel = [sys.executable, "-c", PARALLEL, es.SPACY_MODEL]
    steps = [
        [*parallel, "-orig", str(src), "-cor", *map(str, refs), "-out", str(gold)],
        [*parallel, "-orig", str(src), "-cor", str(hyp), "-out", str(sys_m2)],
        [str(Path(sys.executable).parent / "errant_compare"), "-hyp", str(sys_m2), "-ref", str(gold)],
    ]
    theirs, out = Timing(), ""
    for _ in range(runs):
        cpu = 0.0
        for step in steps:
            used, out = whole_process(step)
            cpu += used
        theirs.samples.append(cpu)
    cmd = ours_command("score", "errant", "--source", str(src), "--refs", *map(str, refs), "--hyp", str(hyp))
    ours, mine = repeat(runs, lambda: whole_process([*cmd, "--json"]))
    row = next(line.split() for line in out.splitlines() if line.strip() and line.split()[0].isdigit())
    result = json.loads(mine)[0]
    same = [float(x) for x in row[3:6]] == [round(result[k], 4) for k in ("p", "r", "f")]
    print(f"  whole-process P R F0.5: errant_compare {row[3:6]} ours "
          f"{[round(result[k], 4) for k in ('p', 'r', 'f')]}: {'same' if same else 'DIFFER'}")  # fmt: skip
    return theirs, ours, same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    d = args.data / "jfleg" / "test"
    files = [d / "test.src", *(d / f"test.ref{i}" for i in range(4)), d / "test.spellchecked.src"]
    need(*files)
    print(machine_load())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.smoke:
            for path in files:
                (folder / path.name).write_text("\n".join(read_lines(path)[:30]) + "\n", encoding="utf-8")
            files, args.repeat = [folder / p.name for p in files], 1
        src_path, *ref_paths, hyp_path = files
        src, refs, hyp = read_lines(src_path), [read_lines(r) for r in ref_paths], read_lines(hyp_path)
        load, _ = cpu_call(es.get_annotator)
        annotator = reference_annotator()
        print(f"model load (not counted in-process): ours {load:.1f} CPU-s")
        ours_in, theirs_in, same_m2 = Timing(), Timing(), True
        for _ in range(args.repeat):
            es.clear_caches()
            cpu, (ref_set, hyp_m2) = cpu_call(lambda: _ours(src, refs, hyp))
            ours_in.samples.append(cpu)
            cpu, (ref_blocks, sys_blocks) = cpu_call(
                lambda: (
                    reference_procedure(annotator, src, refs),
                    reference_procedure(annotator, src, [hyp]),
                )
            )
            theirs_in.samples.append(cpu)
            same_m2 = same_m2 and ref_blocks == format_m2(ref_set.m2).strip().split("\n\n")
            same_m2 = same_m2 and sys_blocks == format_m2(hyp_m2).strip().split("\n\n")
        print(f"  in-process M2 of the references and of the system identical to errant's: {same_m2}")
        theirs_whole, ours_whole, same_scores = whole(folder, src_path, ref_paths, hyp_path, args.repeat)
    print_ratio_table(
        f"ERRANT, {len(src)} sentences x 4 refs + test.spellchecked.src: CPU seconds over {args.repeat} run(s)",
        [("in-process", theirs_in, ours_in), ("whole process", theirs_whole, ours_whole)],
    )
    return 0 if same_m2 and same_scores else 1


def _ours(src: list[str], refs: list[list[str]], hyp: list[str]):
    ref_set = es.errant_annotate_references(src, refs)
    return ref_set, es.annotate_hypothesis(ref_set, hyp)


if __name__ == "__main__":
    raise SystemExit(run_main(main))
