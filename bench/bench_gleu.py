"""GLEU+ on JFLEG test (747 sentences x 4 refs, test.src as hypothesis): ours vs PyPI gleu 1.1.0.

    .venv/bin/python bench/bench_gleu.py [--data PATH] [--repeat N]

Both run in this process, reading the files each time, 500 iterations with
the Python-2-compatible draws (PyPI: ``--fix-seed``). PyPI gleu memoises its
n-gram counts with functools caches, so they are cleared before each of its
runs; ours has its index cache cleared too. Reports the best CPU time
(``time.process_time``) of ``--repeat`` runs each, and the ratio. Goal: >= 20x.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from geceval.formats.text import read_lines
from geceval.gleu import gleu_plus, sampled_reference_indices


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


def best_time(fn, *args, repeat: int) -> tuple[float, float]:
    best = float("inf")
    value = float("nan")
    for _ in range(repeat):
        t0 = time.process_time()
        value = fn(*args)
        best = min(best, time.process_time() - t0)
    return best, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data", help="../shared/data")
    parser.add_argument("--repeat", type=int, default=3)
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
    t_ref, v_ref = best_time(run_pypi, src, refs, hyp, repeat=args.repeat)
    t_ours, v_ours = best_time(run_ours, src, refs, hyp, repeat=args.repeat)
    print("GLEU+ JFLEG test (747 x 4 refs), hypothesis test.src, 500 iterations, best of", args.repeat)
    print(f"  PyPI gleu 1.1.0 --fix-seed: {t_ref:.3f} CPU-s  GLEU {v_ref:.6f}")
    print(f"  geceval.gleu.gleu_plus:     {t_ours:.3f} CPU-s  GLEU {v_ours:.6f}")
    print(f"  speed-up: {t_ref / t_ours:.1f}x (goal >= 20x)")
    if abs(v_ref - v_ours) > 1e-9:
        print("  WARNING: the two scores differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
