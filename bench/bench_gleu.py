"""GLEU+ on JFLEG test (747 sentences x 4 refs, test.src as hypothesis): ours vs PyPI gleu 1.1.0.

    .venv/bin/python bench/bench_gleu.py [--data PATH] [--repeat N] [--smoke]

In-process: both in this process, reading the files each time, 500 iterations with the
Python-2-compatible draws (PyPI: ``--fix-seed``), as JFLEG's script runs it. PyPI gleu memoises its
n-gram counts with functools caches, so they are cleared before each of its runs; ours has its
index cache cleared too. Whole process: PyPI's ``gleu -n 4 -i 500 --fix-seed`` command against
``python -m geceval score gleu``, start-up included (bench/reference.py), with geceval's bytecode
compiled first as ``pip install`` compiles PyPI gleu's: where PYTHONDONTWRITEBYTECODE is set, a
checkout would otherwise compile its modules on every run (about 0.01 CPU-s). CPU seconds, min / median
of ``--repeat`` runs, and the ratios. Goal: >= 15x as whole processes. Both must print the same
score (PyPI prints it x100 to 2 decimals), else exit 1.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from reference import Timing, machine_load, ours_command, print_ratio_table, repeat, whole_process

from geceval.formats.text import read_lines
from geceval.metrics.gleu.plus import gleu_plus, sampled_reference_indices


def _clear_pypi_caches() -> None:
    import gleu.aggreg
    import gleu.count
    import gleu.util

    for module in (gleu.count, gleu.aggreg, gleu.util):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def run_pypi(src: Path, refs: list[Path], hyp: Path) -> float:
    from gleu.corpus_main import corpus_main
    from gleu.count import set_tokenization

    _clear_pypi_caches()
    set_tokenization("word")
    args = argparse.Namespace(
        n=4, source_path=str(src), ref_path_list=[str(r) for r in refs], hyp_path_list=[str(hyp)],
        iter=500, digit=10, proc=1, token="word", max=False, fix_seed=True, verbose=False,
    )  # fmt: skip
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        corpus_main(args)
    return float(out.getvalue().split("\t")[1]) / 100


def run_ours(src: Path, refs: list[Path], hyp: Path) -> float:
    sampled_reference_indices.cache_clear()
    return gleu_plus(read_lines(src), [read_lines(r) for r in refs], read_lines(hyp)).score


def timed(fn, *args, runs: int) -> tuple[Timing, float]:
    timing, value = Timing(), float("nan")
    for _ in range(runs):
        t0 = time.process_time()
        value = fn(*args)
        timing.samples.append(time.process_time() - t0)
    return timing, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data", help="../shared/data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="the first 100 sentences, once (CI)")
    args = parser.parse_args()
    d = args.data / "jfleg" / "test"
    if not (d / "test.src").exists():
        print(
            f"JFLEG test data not found under {args.data} (expected {d}/test.src); pass --data PATH",
            file=sys.stderr,
        )
        return 2
    try:
        import gleu.corpus_main  # noqa: F401
    except ImportError:
        print("PyPI gleu is not installed (pip install gleu==1.1.0)", file=sys.stderr)
        return 2
    src, hyp = d / "test.src", d / "test.src"
    refs = [d / f"test.ref{i}" for i in range(4)]
    if args.smoke:
        tmp = Path(tempfile.mkdtemp())
        for path in (src, *refs):
            (tmp / path.name).write_text("\n".join(path.read_text().splitlines()[:100]) + "\n")
        src, hyp, refs, args.repeat = tmp / "test.src", tmp / "test.src", [tmp / r.name for r in refs], 1
    n = len(read_lines(src))
    t_ref, v_ref = timed(run_pypi, src, refs, hyp, runs=args.repeat)
    t_ours, v_ours = timed(run_ours, src, refs, hyp, runs=args.repeat)
    pypi = [str(Path(sys.executable).parent / "gleu"), "-s", str(src), "-r", *map(str, refs), "-o", str(hyp)]
    pypi += ["-n", "4", "-i", "500", "--fix-seed"]
    ref_whole, ref_out = repeat(args.repeat, lambda: whole_process(pypi))
    compileall.compile_dir(REPO / "geceval", quiet=1)  # into __pycache__ (git-ignored), as an install would
    ours_cmd = ours_command(
        "score", "gleu", "--source", str(src), "--refs", *map(str, refs), "--hyp", str(hyp)
    )
    ours_whole, ours_out = repeat(args.repeat, lambda: whole_process([*ours_cmd, "--json"]))
    print(machine_load())
    print_ratio_table(
        f"GLEU+ JFLEG test ({n} sentences x 4 refs), hypothesis test.src, 500 iterations, {args.repeat} run(s)",
        [("in-process", t_ref, t_ours), ("whole process", ref_whole, ours_whole)],
    )
    printed_ref = ref_out.strip().split("\t")[1]
    printed_ours = f"{100 * json.loads(ours_out)[0]['score']:.2f}"
    same = abs(v_ref - v_ours) <= 1e-9 and printed_ref == printed_ours
    print(f"  GLEU in-process PyPI {v_ref:.6f} ours {v_ours:.6f}; printed {printed_ref} vs {printed_ours}: "
          f"{'same' if same else 'DIFFER'}")  # fmt: skip
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
