"""TrueSkill runs in lockstep: ``trueskill_runs`` on the numba kernel, or on the numpy engine without it.

Both engines lay runs out as (systems, runs) arrays and do the same
floating-point operations in the same order, with the same written-out
exponential (``lockstep_exp``), so their results are equal bit for bit
(tests/core/test_ranking_kernel.py runs both). The numpy engine does one numpy
call per operation over all runs (~320 ns per game and run at 1000 runs: the
written-out exponential is ~40 operations where ``np.exp`` would be one); the
numba kernel (:mod:`geceval.ranking_kernel`) fuses each phase into one SIMD
loop over a batch of 64 runs (~35 ns).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from geceval.gcpause import gc_paused
from geceval.progress import ProgressFn, no_progress
from geceval.ranking_trueskill import (
    BLOCK,
    DRAW_PROBABILITY,
    ERFC_FIT,
    LOG_HALF_EXP,
    LOG_SQRT_2PI,
    MU,
    SIGMA,
    TWO_SQRT2,
    PairData,
    draw_margin,
    lockstep_exp,
    reference_beta,
    run_rng,
)

ENGINES = ("auto", "numba", "numpy")
KERNEL_AVAILABLE = importlib.util.find_spec("numba") is not None
"""numba is installed (``pip install 'geceval[fast]'``); without it the numpy engine runs."""
KERNEL_BATCH = 64
"""Runs advanced together by the kernel: the batch's state (systems x runs) stays in L1."""
KERNEL_BLOCK = 8192
"""Iterations per kernel call (between progress reports)."""


def _cdf_pdf(x: np.ndarray, cdf_out: np.ndarray, pdf_out: np.ndarray) -> None:
    """Vectorised ``cdf`` and ``pdf`` of the default backend: the same Numerical-Recipes fit, regrouped
    (constants folded into the exponents), equal to the scalar functions to ~1e-15 relative."""
    half_x2 = x * x
    half_x2 *= 0.5  # z² of erfc(-x/√2), and minus the pdf's exponent
    t = np.abs(x)
    t += TWO_SQRT2
    np.divide(TWO_SQRT2, t, out=t)  # 1 / (1 + z/2) with z = |x|/√2
    p = ERFC_FIT[0] * t
    for coef in ERFC_FIT[1:-1]:
        p += coef
        p *= t
    p += ERFC_FIT[-1]
    p *= t
    p -= LOG_HALF_EXP
    p -= half_x2
    np.subtract(-LOG_SQRT_2PI, half_x2, out=half_x2)
    both = lockstep_exp(np.concatenate([p, half_x2]))  # one call for both exps: half the numpy calls
    p = both[: len(x)]
    p *= t  # erfc(|x|/√2) / 2 = cdf(-|x|)
    np.subtract(1.0, p, out=cdf_out)
    np.copyto(cdf_out, p, where=x <= 0)
    pdf_out[...] = both[len(x) :]


def rate_pairs(
    mu: np.ndarray,
    var: np.ndarray,
    outcome: np.ndarray,
    *,
    beta: float,
    margin: float,
) -> tuple[np.ndarray, np.ndarray]:
    """``rate_pair`` for many independent games at once: ``mu``/``var`` of shape (2, n), row 0 = player 1.

    ``outcome`` (n,) is +1/-1/0 from player 1's view. Returns the new
    ``(mu, var)``, shape (2, n). With x1, x2 the truncation bounds, a draw has
    ``v = (pdf(x1) - pdf(x2)) / (cdf(x1) - cdf(x2))`` and
    ``w = v² + (x1 pdf(x1) - x2 pdf(x2)) / (cdf(x1) - cdf(x2))``; a win is the
    same with ``cdf(x2) = pdf(x2) = 0`` (``v = pdf(x1)/cdf(x1)``,
    ``w = v (v + x1)``), so one set of array operations serves both. Results
    equal ``rate_pair`` to ~1e-13 (the arithmetic is regrouped).
    """
    n = mu.shape[1]
    buffers = tuple(np.empty((2, n)) for _ in range(3))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _rate_pairs(mu, var, np.asarray(outcome, dtype=np.float64), 2 * beta * beta, margin, buffers)


def _rate_pairs(
    mu: np.ndarray,
    var: np.ndarray,
    outcome: np.ndarray,
    two_beta2: float,
    margin: float,
    buffers: tuple[np.ndarray, ...],
) -> tuple[np.ndarray, np.ndarray]:
    """``rate_pairs`` without its set-up (called once per iteration, inside ``np.errstate``)."""
    x, cdfs, pdfs = buffers
    drawn = outcome == 0
    c2 = var[0] + var[1]
    c2 += two_beta2
    inv_c = np.sqrt(c2)
    np.divide(1.0, inv_c, out=inv_c)
    inv_c2 = inv_c * inv_c
    t = mu[0] - mu[1]
    t *= inv_c
    eps = margin * inv_c
    # m: +1/-1 for player 1's win/loss; for a draw -sign(t) (sign(0) = +1), so that m*t = -|t|
    m = np.where(drawn, np.where(t < 0, 1.0, -1.0), outcome)
    mt = m * t
    np.subtract(mt, eps, out=x[1])
    np.add(mt, eps, out=x[0])
    np.copyto(x[0], x[1], where=~drawn)
    _cdf_pdf(x, cdfs, pdfs)
    cdfs[1] *= drawn
    pdfs[1] *= drawn
    denom = cdfs[0] - cdfs[1]
    if not (denom > 0).all():
        # trueskill's v_win falls back to -x here and then w_win raises; its draw raises too
        raise FloatingPointError("TrueSkill update underflows (cdf difference 0)")
    inv_denom = np.divide(1.0, denom, out=denom)
    g = pdfs[0] - pdfs[1]
    g *= inv_denom
    w = x[0] * pdfs[0]
    w -= x[1] * pdfs[1]
    w *= inv_denom
    w += g * g
    g *= m
    new_mu = var * inv_c
    new_mu *= g
    new_mu[0] += mu[0]
    np.subtract(mu[1], new_mu[1], out=new_mu[1])
    new_var = var * inv_c2
    new_var *= w
    np.subtract(1.0, new_var, out=new_var)
    new_var *= var
    return new_mu, new_var


def trueskill_runs(
    data: PairData,
    runs: Sequence[int],
    seed: int,
    *,
    progress: ProgressFn = no_progress,
    engine: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Final (mu, sigma) of each listed run, arrays of shape (len(runs), systems).

    ``engine``: ``numba`` (the compiled kernel), ``numpy``, or ``auto`` (numba
    when it is installed); both give the same bits. ``progress`` counts
    iterations (28,147 for the gec-ranking judgments), in the kernel's batches.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if engine == "numba" and not KERNEL_AVAILABLE:
        raise RuntimeError("the numba engine needs numba (pip install 'geceval[fast]')")
    run_ids = [int(r) for r in runs]
    size = data.size
    if not run_ids:
        return np.zeros((0, size)), np.zeros((0, size))
    if size > 127:
        raise ValueError("at most 127 systems")  # int8 system indices in the numpy engine
    iterations = data.judgments + 1
    beta = reference_beta(data.judgments)
    margin = draw_margin(DRAW_PROBABILITY, beta)
    progress(0, iterations)
    if engine == "numpy" or not KERNEL_AVAILABLE:
        mu, var = _numpy_runs(data, run_ids, seed, margin, 2 * beta * beta, progress)
    else:
        mu, var = _kernel_runs(data, run_ids, seed, margin, 2 * beta * beta, progress)
    return mu.T.copy(), np.sqrt(var.T)


def kernel() -> ModuleType:
    """The numba kernel module, loaded (imports numba, ~0.15 CPU-s; loads the cached kernel, ~0.13 s)."""
    loaded = sys.modules.get("geceval.ranking_kernel")
    if loaded is not None and loaded.games.overloads:
        return loaded
    # once per process: numba's modules and the compiled kernel live until the process ends
    with gc_paused(freeze=True):
        # lazy: EW rankings and the numpy engine never pay numba's import (~0.3 CPU-s)
        from geceval import ranking_kernel

        if not ranking_kernel.games.overloads:
            _load_without_scipy_linalg(ranking_kernel)
    return ranking_kernel


def _load_without_scipy_linalg(ranking_kernel: ModuleType) -> None:
    """Load (or compile) the kernel without numba importing scipy.linalg for BLAS.

    Loading a cached kernel, like compiling one, first refreshes numba's CPU
    target (``caching.py``: ``target_context.refresh()``), which imports all of
    numba's implementation modules. One of them, ``numba.np.arraymath``, runs
    ``_HAVE_BLAS = _check_blas()`` at import: ``import scipy.linalg.cython_blas``,
    i.e. scipy.linalg (85 modules, ~0.2 CPU-s, more than loading the kernel)
    only to know whether np.dot may be compiled. numba 0.68 has no option or
    environment variable for that probe, and the refresh cannot be skipped (it
    also starts numba's runtime, which the kernel's arrays use). So, when
    scipy.linalg is not loaded yet, its BLAS module is set to None in
    ``sys.modules`` for that moment: Python's documented way to make an import
    raise ImportError (the import system's "module cache"); numba then records
    "no BLAS". The price: numba code compiled later in this process cannot
    use np.dot or np.linalg; the kernel is the project's only numba code and
    uses neither. scipy.linalg imports normally afterwards (tested).
    """
    blas = "scipy.linalg.cython_blas"
    blocked = blas not in sys.modules
    if blocked:
        sys.modules[blas] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        ranking_kernel.warm_up()
    finally:
        if blocked:
            del sys.modules[blas]


def _kernel_runs(
    data: PairData, run_ids: list[int], seed: int, margin: float, two_beta2: float, progress: ProgressFn
) -> tuple[np.ndarray, np.ndarray]:
    """The numba kernel over batches of ``KERNEL_BATCH`` runs: final (mu, var) as (systems, runs)."""
    size, n_runs, iterations = data.size, len(run_ids), data.judgments + 1
    mu = np.full((size, n_runs), MU)
    var = np.full((size, n_runs), SIGMA * SIGMA)
    allowed = (data.counts > 0).astype(np.float64)
    complete = bool(np.all(allowed.reshape(size, size) + np.eye(size) > 0))
    countsf, offsets = data.counts.astype(np.float64), data.offsets.astype(np.uint64)
    outcomes = data.outcomes.astype(np.int8)  # -1/0/+1: 8x less memory for the random draws
    games = kernel().games
    for start in range(0, n_runs, KERNEL_BATCH):
        batch = slice(start, min(start + KERNEL_BATCH, n_runs))
        state = pcg64_states(seed, run_ids[batch])
        b_mu, b_var = np.ascontiguousarray(mu[:, batch]), np.ascontiguousarray(var[:, batch])
        b_emu = lockstep_exp(b_mu)
        b_enmu = 1.0 / b_emu
        for first in range(0, iterations, KERNEL_BLOCK):
            steps = min(KERNEL_BLOCK, iterations - first)
            ok = games(
                b_mu, b_var, b_emu, b_enmu, state, steps, offsets, countsf, outcomes, allowed,
                complete, two_beta2, margin,
            )  # fmt: skip
            if not ok:
                raise FloatingPointError("TrueSkill update underflows (cdf difference 0)")
            done = start * iterations + (first + steps) * (batch.stop - start)
            progress(done // n_runs, iterations)
        mu[:, batch], var[:, batch] = b_mu, b_var
    return mu, var


def pcg64_states(seed: int, run_ids: Sequence[int]) -> np.ndarray:
    """The PCG64 state of each run's ``run_rng`` as uint64 rows (state hi, state lo, inc hi, inc lo)."""
    state = np.empty((4, len(run_ids)), dtype=np.uint64)
    for k, run in enumerate(run_ids):
        pcg = run_rng(seed, run).bit_generator.state["state"]
        for row, value in enumerate((pcg["state"] >> 64, pcg["state"], pcg["inc"] >> 64, pcg["inc"])):
            state[row, k] = value & 0xFFFFFFFFFFFFFFFF
    return state


def _numpy_runs(
    data: PairData, run_ids: list[int], seed: int, margin: float, two_beta2: float, progress: ProgressFn
) -> tuple[np.ndarray, np.ndarray]:
    """The numpy engine: all runs in one set of arrays, uniforms drawn ``BLOCK`` iterations at a time."""
    iterations = data.judgments + 1
    state = _Runs(data, len(run_ids), margin, two_beta2)
    generators = [run_rng(seed, r) for r in run_ids]
    uniforms = np.empty((len(run_ids), BLOCK, 2))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for start in range(0, iterations, BLOCK):
            steps = min(BLOCK, iterations - start)
            for k, gen in enumerate(generators):
                gen.random(out=uniforms[k, :steps])
            for step in range(steps):
                state.step(uniforms[:, step].copy())  # one strided gather, then two cheap columns
            progress(start + steps, iterations)
    return state.mu, state.var


class _Runs:
    """The numpy engine's state of ``n_runs`` runs advanced together, with the buffers each step writes into.

    Laid out (systems, runs): reductions over systems are then row-wise vector operations.
    exp(mu) and exp(-mu) are kept so the opponent weights need no exp over the whole matrix:
    exp(-|mu_a - mu_j|) = min(exp(mu_j) exp(-mu_a), exp(-mu_j) exp(mu_a)).
    """

    def __init__(self, data: PairData, n_runs: int, margin: float, two_beta2: float) -> None:
        size = data.size
        self.margin, self.two_beta2 = margin, two_beta2
        self.offsets, self.counts, self.outcomes = data.offsets, data.counts.astype(np.float64), data.outcomes
        has_pair = data.counts.reshape(size, size) > 0
        self.complete = bool(np.all(has_pair | np.eye(size, dtype=bool)))
        self.allowed = has_pair.astype(np.float64)  # row a: the systems a has judgments with
        self.size = size
        self.mu = np.full((size, n_runs), MU)
        self.var = np.full((size, n_runs), SIGMA * SIGMA)
        self.emu = lockstep_exp(self.mu)
        self.enmu = 1.0 / self.emu
        self.mu_flat, self.var_flat = self.mu.reshape(-1), self.var.reshape(-1)
        self.emu_flat, self.enmu_flat = self.emu.reshape(-1), self.enmu.reshape(-1)
        self.cols = np.arange(n_runs)
        self.index8 = np.arange(size, dtype=np.int8)[:, None]  # max of is_max * index = largest tied index
        self.runs64, self.size64 = np.int64(n_runs), np.int64(size)
        self.weights = np.empty((size, n_runs))
        self.weights_flat = self.weights.reshape(-1)
        self.other = np.empty((size, n_runs))
        self.cum = np.empty((size, n_runs))
        self.is_max = np.empty((size, n_runs), dtype=bool)
        self.is_max8 = self.is_max.view(np.int8)
        self.ranked8 = np.empty((size, n_runs), dtype=np.int8)
        self.below = np.empty((size, n_runs), dtype=bool)
        self.below8 = self.below.view(np.int8)
        self.fab = np.empty((2, n_runs), dtype=np.int64)
        self.buffers = tuple(np.empty((2, n_runs)) for _ in range(3))

    def step(self, u: np.ndarray) -> None:
        """One TrueSkill update in every run, drawn with the uniforms ``u`` (runs, 2)."""
        var, weights, cum, fab = self.var, self.weights, self.cum, self.fab
        # the system with the largest variance; ties go to the larger index (= larger name)
        np.equal(var, var.max(axis=0), out=self.is_max)
        np.multiply(self.is_max8, self.index8, out=self.ranked8)
        a = self.ranked8.max(axis=0)
        fa = np.multiply(a, self.runs64, out=fab[0])
        fa += self.cols
        # an opponent with probability proportional to exp(-|mu_a - mu_b|): the first b whose
        # cumulative weight reaches target in (0, total], so a (weight 0) is never chosen
        np.multiply(self.emu, self.enmu_flat[fa], out=weights)
        np.multiply(self.enmu, self.emu_flat[fa], out=self.other)
        np.minimum(weights, self.other, out=weights)
        self.weights_flat[fa] = 0.0
        if not self.complete:
            weights *= self.allowed[a].T
        np.copyto(cum[0], weights[0])
        for i in range(1, self.size):
            np.add(cum[i - 1], weights[i], out=cum[i])
        target = 1.0 - u[:, 0]
        target *= cum[-1]
        np.less(cum, target, out=self.below)
        b = self.below8.sum(axis=0, dtype=np.int8)
        fb = np.multiply(b, self.runs64, out=fab[1])
        fb += self.cols
        # one recorded judgment of (a, b), seen from a: +1 a won, -1 a lost, 0 tie
        a = np.multiply(a, self.size64)
        a += b
        pick = u[:, 1] * self.counts[a]
        outcome = self.outcomes[self.offsets[a] + pick.astype(np.int64)]
        mab = self.mu_flat[fab]
        vab = self.var_flat[fab]
        step_mu, shrink = _rate_pairs(mab, vab, outcome, self.two_beta2, self.margin, self.buffers)
        self.mu_flat[fab] = step_mu
        self.var_flat[fab] = shrink
        emu = lockstep_exp(step_mu)
        self.emu_flat[fab] = emu
        self.enmu_flat[fab] = np.divide(1.0, emu, out=emu)
