"""The TrueSkill kernel (numba, the only engine): runs independent of their batch, its on-disk cache,
numba as an ordinary requirement, and the deprecated import paths. Parity with the trueskill package
itself, game by game, is in test_ranking.py (to 1e-9)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from geceval.human import expected_wins, pairs, system_ranking, trueskill, trueskill_kernel
from geceval.human.pairs import prepare
from geceval.human.trueskill import KERNEL_BATCH, trueskill_runs
from tests.core.test_ranking import synthetic_judgments

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("seed", [0, 42])
def test_a_runs_result_does_not_depend_on_the_runs_beside_it_in_the_kernel(seed):
    # synthetic: 5 systems, A-E never judged (the kernel's incomplete-pairs branch); runs out of
    # order and more than one kernel batch
    data = prepare(synthetic_judgments(300, seed=seed))
    runs = [5, 0, 3, *range(100, 100 + KERNEL_BATCH)]
    mu, sigma = trueskill_runs(data, runs, seed)
    alone_mu, alone_sigma = trueskill_runs(data, [3], seed)
    assert np.array_equal(alone_mu[0], mu[2]) and np.array_equal(alone_sigma[0], sigma[2])
    last_mu, _ = trueskill_runs(data, [100 + KERNEL_BATCH - 1, 5], seed)
    assert np.array_equal(last_mu[0], mu[-1]) and np.array_equal(last_mu[1], mu[0])
    assert not np.array_equal(mu[0], mu[1])  # and runs differ from one another


def test_numba_is_an_ordinary_requirement():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(dep.startswith("numba") for dep in project["dependencies"])
    assert not any(
        dep.startswith("numba") for deps in project["optional-dependencies"].values() for dep in deps
    )


@pytest.mark.parametrize(
    ("old", "names"),
    [
        ("geceval.ranking", {"rank": system_ranking, "prepare": pairs, "expected_wins": expected_wins}),
        ("geceval.ranking_trueskill", {"rate_pair": trueskill, "PairData": pairs, "run_rng": pairs}),
        ("geceval.ranking_lockstep", {"trueskill_runs": trueskill}),
        ("geceval.ranking_kernel", {"games": trueskill_kernel}),
    ],
)
def test_old_import_paths_warn_and_give_the_new_objects(old, names):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated"):
        module = importlib.import_module(old)
    for name, new in names.items():
        assert getattr(module, name) is getattr(new, name)
    sys.modules.pop(old, None)


RUN_SYNTHETIC = """
import json
from geceval.human.pairs import prepare
from geceval.human.trueskill import trueskill_runs
from tests.core.test_ranking import synthetic_judgments
mu, sigma = trueskill_runs(prepare(synthetic_judgments(120)), [0, 9], 5)
print(json.dumps({"mu": mu.tolist(), "sigma": sigma.tolist(), "numba": sys.modules.get("numba") is not None}))
"""


def _run(code: str, env: dict[str, str] | None = None) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.slow
def test_kernel_cache_goes_to_numba_cache_dir_and_a_run_without_any_cache_still_works(tmp_path):
    data = prepare(synthetic_judgments(120))
    mu, _ = trueskill_runs(data, [0, 9], 5)
    # NUMBA_CACHE_DIR (a read-only install's setting): the compiled kernel lands there
    out = _run("import sys" + RUN_SYNTHETIC, env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert out["numba"] and out["mu"] == mu.tolist()
    assert list(tmp_path.rglob("trueskill_kernel.games-*.nbi"))
    # no writable cache directory at all: numba refuses cache=True, the kernel compiles in-process
    no_locator = (
        "import sys\nfrom numba.core import caching\n"
        "caching.CacheImpl._locator_classes = []  # nothing writable\n" + RUN_SYNTHETIC
    )
    out = _run(no_locator)
    assert out["numba"] and out["mu"] == mu.tolist()
