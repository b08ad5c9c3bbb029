"""ERRANT on JFLEG test (747 sentences x 4 references): references annotated once, reused.

    .venv/bin/python bench/bench_errant.py [--data ../shared/data] [--reference]

Ours: load spaCy + ERRANT, annotate the 4 references (source parsed once),
then score two systems (``test.src`` and ``test.spellchecked.src``) against
the same parsed source; each system costs only the parse of its own changed
lines and the alignment. Times are CPU seconds (process time) with wall time
beside, printed next to the reference's CPU time from REFERENCE_FIGURES
(``errant_parallel``: 35 s for the references, 13 s per system).

``--reference`` also runs, in this process, ``errant_parallel``'s own
procedure through the errant API (full model pipeline, NER included; one
sentence at a time, no batching, no cache; the first system's M2 is checked
identical to ours), so the ratio is also measured on this machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from geceval import errant_annotation
from geceval import errant_scorer as es
from geceval.formats.m2 import format_m2
from geceval.formats.text import read_lines

REFERENCE_REFS_CPU = 35.0
REFERENCE_SYSTEM_CPU = 13.0


class Clock:
    def __enter__(self) -> Clock:
        self.cpu0, self.wall0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self.cpu0
        self.wall = time.perf_counter() - self.wall0


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"), help="the shared data folder")
    parser.add_argument("--reference", action="store_true", help="also time errant_parallel's procedure here")
    args = parser.parse_args()
    folder = Path(args.data) / "jfleg" / "test"
    src = read_lines(folder / "test.src")
    refs = [read_lines(folder / f"test.ref{i}") for i in range(4)]
    systems = {"test.src": src, "test.spellchecked.src": read_lines(folder / "test.spellchecked.src")}

    with Clock() as load:
        es.get_annotator()
    print(f"load spaCy + ERRANT: {load.cpu:.1f} CPU-s ({load.wall:.1f} s wall)")

    es.clear_caches()
    with Clock() as c_refs:
        ref_set = es.errant_annotate_references(src, refs)
    parsed_refs = len(errant_annotation._PARSE_CACHE)
    print(
        f"annotate 4 refs:     {c_refs.cpu:5.1f} CPU-s ({c_refs.wall:.1f} s wall), {parsed_refs} distinct "
        f"lines parsed | reference {REFERENCE_REFS_CPU:.0f} CPU-s -> {REFERENCE_REFS_CPU / c_refs.cpu:.1f}x"
    )
    ours_blocks: dict[str, list[str]] = {}
    system_cpu: list[float] = []
    for name, lines in systems.items():
        before = len(errant_annotation._PARSE_CACHE)
        with Clock() as c_sys:
            hyp_m2 = es.annotate_hypothesis(ref_set, lines)
            result = es.errant_compare(hyp_m2, ref_set.m2)
        ours_blocks[name] = format_m2(hyp_m2).strip().split("\n\n")
        system_cpu.append(c_sys.cpu)
        changed = sum(1 for s, h in zip(src, lines) if s.strip() != h.strip())
        print(
            f"score {name:22s} {c_sys.cpu:5.1f} CPU-s ({c_sys.wall:.1f} s wall), parsed "
            f"{len(errant_annotation._PARSE_CACHE) - before} new lines ({changed} changed, source reused) "
            f"| reference {REFERENCE_SYSTEM_CPU:.0f} CPU-s -> {REFERENCE_SYSTEM_CPU / max(c_sys.cpu, 1e-3):.1f}x"
            f"  [F0.5 {result.f:.4f}, TP {result.tp} FP {result.fp} FN {result.fn}]"
        )
    total = c_refs.cpu + sum(system_cpu)
    reference_total = REFERENCE_REFS_CPU + 2 * REFERENCE_SYSTEM_CPU
    print(
        f"refs once + 2 systems (model load excluded): ours {total:.1f} CPU-s, reference "
        f"{reference_total:.0f} CPU-s -> {reference_total / total:.1f}x"
    )

    if args.reference:
        annotator = reference_annotator()
        with Clock() as r_refs:
            ref_blocks = reference_procedure(annotator, src, refs)
        print(
            f"reference procedure, 4 refs:   {r_refs.cpu:5.1f} CPU-s ({r_refs.wall:.1f} s wall) "
            f"-> ours {r_refs.cpu / c_refs.cpu:.1f}x faster; identical M2: "
            f"{ref_blocks == format_m2(ref_set.m2).strip().split(chr(10) * 2)}"
        )
        with Clock() as r_sys:
            sys_blocks = reference_procedure(annotator, src, [systems["test.spellchecked.src"]])
        print(
            f"reference procedure, 1 system: {r_sys.cpu:5.1f} CPU-s ({r_sys.wall:.1f} s wall); identical M2: "
            f"{sys_blocks == ours_blocks['test.spellchecked.src']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
