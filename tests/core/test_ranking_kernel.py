"""The two TrueSkill lockstep engines: the numba kernel and the numpy engine give the same bits.

Both do the same floating-point operations in the same order with the same written-out exponential
(``lockstep_exp``), and the kernel computes numpy's PCG64 stream itself, so equality is exact
(``np.array_equal``), not a tolerance. Parity with the trueskill package itself, game by game, is in
test_ranking.py (to 1e-9, for both engines).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numba  # a pinned requirement: its absence is a failure here, not a skip
import numpy as np
import pytest

from geceval.formats.judgments import read_pairwise
from geceval.ranking import prepare, run_rng, trueskill_runs
from geceval.ranking_lockstep import KERNEL_BATCH, pcg64_states
from geceval.ranking_trueskill import lockstep_exp
from tests.core.test_ranking import synthetic_judgments
from tests.shared_data import requires_shared, shared_path

REPO = Path(__file__).resolve().parents[2]


def test_lockstep_exp_is_within_3_ulp_of_libm_and_exact_at_0():
    x = np.random.default_rng(3).uniform(-700, 700, 200_000)
    x = np.concatenate([x, np.linspace(-3, 3, 10_001)])
    ours = lockstep_exp(x)
    libm = np.array([math.exp(v) for v in x])
    assert np.max(np.abs(ours - libm) / np.spacing(libm)) <= 3
    assert lockstep_exp(np.array([0.0]))[0] == 1.0
    assert list(lockstep_exp(np.array([-709.0, 710.0]))) == [0.0, math.inf]


def test_kernel_exp_and_uniforms_equal_the_numpy_ones():
    from geceval import ranking_kernel

    @numba.njit
    def kernel_values(x, state, draws):
        exps = np.empty_like(x)
        for i in range(x.shape[0]):
            exps[i] = ranking_kernel._exp(x[i])
        uniforms = np.empty((state.shape[1], draws))
        for d in range(draws):
            for r in range(state.shape[1]):
                uniforms[r, d] = ranking_kernel._uniform(state, r)
        return exps, uniforms

    x = np.random.default_rng(4).uniform(-720, 720, 50_000)
    runs = [0, 1, 2, 999, 123456]
    exps, uniforms = kernel_values(x, pcg64_states(7, runs), 1000)
    assert np.array_equal(exps, lockstep_exp(x))
    assert np.array_equal(uniforms, np.stack([run_rng(7, r).random(1000) for r in runs]))


@pytest.mark.parametrize("seed", [0, 42])
def test_kernel_and_numpy_engine_give_the_same_bits_with_pairs_missing(seed):
    # synthetic: 5 systems, A-E never judged (the kernel's incomplete-pairs branch); runs out of
    # order and more than one kernel batch
    data = prepare(synthetic_judgments(300, seed=seed))
    runs = [5, 0, 3, *range(100, 100 + KERNEL_BATCH)]
    kernel_mu, kernel_sigma = trueskill_runs(data, runs, seed, engine="numba")
    numpy_mu, numpy_sigma = trueskill_runs(data, runs, seed, engine="numpy")
    assert np.array_equal(kernel_mu, numpy_mu)
    assert np.array_equal(kernel_sigma, numpy_sigma)
    # a run's result does not depend on its batch
    alone_mu, _ = trueskill_runs(data, [3], seed, engine="numba")
    assert np.array_equal(alone_mu[0], kernel_mu[2])


@requires_shared
def test_kernel_and_numpy_engine_give_the_same_bits_on_gec_ranking():
    data = prepare(read_pairwise(shared_path("gec-ranking", "data", "all_judgments.csv"), "wmt-csv"))
    runs = [0, 1, 999]
    kernel = trueskill_runs(data, runs, 0, engine="numba")
    numpy_engine = trueskill_runs(data, runs, 0, engine="numpy")
    assert np.array_equal(kernel[0], numpy_engine[0]) and np.array_equal(kernel[1], numpy_engine[1])


def test_engine_names_are_checked():
    data = prepare(synthetic_judgments(20))
    with pytest.raises(ValueError, match="unknown engine"):
        trueskill_runs(data, [0], 0, engine="fortran")


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


RUN_SYNTHETIC = """
import json
from geceval.ranking import prepare, trueskill_runs
from tests.core.test_ranking import synthetic_judgments
mu, sigma = trueskill_runs(prepare(synthetic_judgments(120)), [0, 9], 5)
print(json.dumps({"mu": mu.tolist(), "sigma": sigma.tolist(), "numba": sys.modules.get("numba") is not None}))
"""


def test_without_numba_the_numpy_engine_runs_and_gives_the_same_bits():
    data = prepare(synthetic_judgments(120))
    mu, sigma = trueskill_runs(data, [0, 9], 5, engine="numba")
    code = (
        "import sys; sys.modules['numba'] = None  # as if numba were not installed\n"
        "from geceval.ranking import KERNEL_AVAILABLE, prepare, trueskill_runs\n"
        "assert not KERNEL_AVAILABLE\n"
        "from tests.core.test_ranking import synthetic_judgments\n"
        "try:\n"
        "    trueskill_runs(prepare(synthetic_judgments(20)), [0], 0, engine='numba')\n"
        "    raise AssertionError('the numba engine ran without numba')\n"
        "except RuntimeError as exc:\n"
        "    assert 'needs numba' in str(exc)\n" + RUN_SYNTHETIC
    )
    out = _run(code)
    assert not out["numba"]
    assert out["mu"] == mu.tolist() and out["sigma"] == sigma.tolist()


@pytest.mark.slow
def test_kernel_cache_goes_to_numba_cache_dir_and_a_run_without_any_cache_still_works(tmp_path):
    data = prepare(synthetic_judgments(120))
    mu, _ = trueskill_runs(data, [0, 9], 5, engine="numba")
    # NUMBA_CACHE_DIR (a read-only install's setting): the compiled kernel lands there
    out = _run("import sys" + RUN_SYNTHETIC, env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert out["numba"] and out["mu"] == mu.tolist()
    assert list(tmp_path.rglob("ranking_kernel.games-*.nbi"))
    # no writable cache directory at all: numba refuses cache=True, the kernel compiles in-process
    no_locator = (
        "import sys\nfrom numba.core import caching\n"
        "caching.CacheImpl._locator_classes = []  # nothing writable\n" + RUN_SYNTHETIC
    )
    out = _run(no_locator)
    assert out["numba"] and out["mu"] == mu.tolist()


def test_loading_the_kernel_does_not_import_scipy_linalg_and_it_still_imports_afterwards():
    # numba's registries would import scipy.linalg (0.15-0.3 CPU-s) only to look for BLAS
    code = (
        "import sys" + RUN_SYNTHETIC + "assert 'scipy.linalg' not in sys.modules, 'scipy.linalg loaded'\n"
        "assert 'scipy.linalg.cython_blas' not in sys.modules\n"
        "from scipy.linalg import cython_blas, solve\n"
        "assert solve([[2.0]], [4.0])[0] == 2.0\n"
        "print('{}')\n"
    )
    assert _run(code) == {}
