"""What ``python -m geceval`` does before a command loads numpy: OpenBLAS threads for ``rank``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SMALL = REPO / "tests" / "core" / "fixtures" / "judgments" / "small.xml"
PROBE = (
    "import os, sys\n"
    "from geceval.cli import main\n"
    "assert main(sys.argv[1:]) == 0\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))\n"
)


def run_probe(*args: str, blas_threads: str | None) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if blas_threads is not None:
        env["OPENBLAS_NUM_THREADS"] = blas_threads
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    setting, threads = done.stdout.splitlines()[-1].split()
    return setting, int(threads)


def test_rank_runs_with_one_openblas_thread_as_its_only_thread():
    # each extra OpenBLAS thread spins ~0.1 CPU-s when numpy loads; rank multiplies no matrices
    assert run_probe("rank", str(SMALL), "--runs", "3", "--method", "ew", blas_threads=None) == ("1", 1)


def test_a_users_own_openblas_setting_is_kept():
    setting, _threads = run_probe("rank", str(SMALL), "--runs", "3", "--method", "ew", blas_threads="2")
    assert setting == "2"
