"""Small versions of the benchmarks that run a reference tool beside ours (issue 22): the numbers
must agree with the reference run here; no timing is asserted (a benchmark is not a unit test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import skip_or_fail
from tests.shared_data import SHARED, shared_path

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.shared]


def run_bench(script: str, *args: str) -> str:
    shared_path("gec-ranking")
    tools = SHARED.parent / "reference-tools"
    if not tools.is_dir():
        skip_or_fail(f"the reference tools are not at {tools}")
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), "--smoke", *args],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SKIPPED" not in done.stdout, done.stdout
    return done.stdout


def test_m2_smoke_gives_m2scorers_numbers():
    out = run_bench("bench_m2.py")
    assert "P R F reference [0.4559, 0.2422, 0.3875] ours [0.4559, 0.2422, 0.3875]" in out
    assert ": same" in out


def test_trueskill_smoke_orders_systems_as_wmt_trueskill_and_matches_the_package_game_by_game():
    out = run_bench("bench_trueskill.py")
    assert "Spearman rho" in out
    diff = float(out.split("max |mu difference| ")[1].split()[0])
    assert diff < 1e-9


def test_imeasure_smoke_gives_ievals_counts():
    out = run_bench("bench_imeasure.py")
    assert out.count(": same") == 2 and "DIFFER" not in out


def test_gleu_smoke_prints_pypi_gleus_score():
    out = run_bench("bench_gleu.py")
    assert ": same" in out and "DIFFER" not in out


def test_errant_smoke_gives_errants_own_m2_and_scores():
    out = run_bench("bench_errant.py")
    assert "identical to errant's: True" in out and ": same" in out


def test_sent_m2_smoke_equals_m2scorer_sentence_by_sentence():
    out = run_bench("bench_sent_m2.py")
    assert "AMU" in out and "; same" in out


def test_shared_task_smoke_gives_every_reference_tools_numbers():
    out = run_bench("bench_shared_task.py")
    assert "2 systems x 7 metrics" in out
    assert out.count(": same") == 14 and "DIFFER" not in out
    assert "every number equals its reference's" in out
