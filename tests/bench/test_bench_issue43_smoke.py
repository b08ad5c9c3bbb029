"""Small runs of issue 43's benchmarks: ERRANT through the disk cache gives the numbers of
``--no-cache`` for a first, a second and a repeated system; our BLEU, chrF++ and TER commands give
sacrebleu's command's numbers. No timing is asserted (a benchmark is not a unit test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared_data import SHARED, shared_path

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.shared]


def run_bench(script: str) -> str:
    shared_path("gecmetrics", "data", "conll14st-test")
    shared_path("grammatical-evaluation", "data", "original", "official_submissions")
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), "--smoke"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "GEC_SHARED_DIR": str(SHARED.parent)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SKIPPED" not in done.stdout and "MISMATCH" not in done.stdout, done.stdout
    return done.stdout


def test_errant_cache_smoke_gives_the_numbers_of_no_cache() -> None:
    pytest.importorskip("errant", reason="the [errant] extra is not installed")
    out = run_bench("bench_errant_cache.py")
    for label in ("first (empty)", "second system", "first again"):
        assert label in out
    assert sum(line.endswith(" same") for line in out.splitlines()) == 4 and "DIFFER" not in out, out


def test_sacre_smoke_gives_sacrebleus_command_numbers() -> None:
    out = run_bench("bench_sacre.py")
    assert out.count(": same") == 6 and "DIFFER" not in out, out
