"""TrueSkill as keisks/wmt-trueskill ran it (Sakaguchi, Post and Van Durme 2014, the procedure of the
GEC papers; details in REFERENCE_FIGURES.md "TrueSkill ranking").

- One run: every system starts at mu 0, sigma 0.5; ``beta = 0.5 * N / 40`` with
  ``N`` = pairwise judgments + 1; tau 0; draw probability 0.25, draw margin
  ``ppf(0.625) * sqrt(2) * beta`` (trueskill's ``calc_draw_margin`` for two
  players). ``N`` iterations, each: the system with the largest sigma² (ties:
  the larger name in Python string order), an opponent with probability
  proportional to ``exp(-|mu_a - mu_b|)`` among the systems it has recorded
  judgments with, one recorded judgment of that pair drawn uniformly with
  replacement, and one two-player TrueSkill update (lower rank wins, equal
  ranks draw).
- The update is the closed form of the trueskill package's 1-vs-1 factor graph
  (``v``/``w`` functions for win and draw) with the package's *default*
  backend: the Numerical-Recipes ``erfc`` approximation (fractional error
  < 1.2e-7), ``cdf``/``pdf`` from it and ``ppf`` by two Newton steps on it. The
  reference ran with that backend, so a game's result equals
  ``trueskill.rate_1vs1`` (0.4.5) to ~1e-12 (tested to 1e-9, game by game and
  over whole runs); the package's per-game factor graph is never built.
- Random stream: per run a numpy generator ``run_rng(seed, run)``; two
  uniforms per iteration, u1 for the opponent (the first b, in name order,
  whose cumulative weight reaches ``(1 - u1) * total``) and u2 for the
  judgment (index ``floor(u2 * count)``). The reference's own stream (Python 2
  ``random``) is not reproduced: between streams mean mu moves by about ±0.02
  and range ends by ±1.
- Opponents are limited to systems with at least one recorded judgment against
  the chosen one (there is nothing to draw otherwise); in the reference data
  every pair was judged, so this changes nothing there.

``rate_pair`` is one game in plain Python; ``trueskill_runs`` runs many runs
at once in the numba kernel (:mod:`geceval.human.trueskill_kernel`, ~70 ns a
game and run; docs/benchmarks.md). Rank ranges and clusters over the runs are
:mod:`geceval.human.system_ranking`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from geceval.human.pairs import PairData, run_rng
from geceval.progress import ProgressFn, no_progress

MU = 0.0
SIGMA = 0.5
DRAW_PROBABILITY = 0.25
KERNEL_BATCH = 64
"""Runs advanced together by the kernel: the batch's state (systems x runs) stays in L1."""
KERNEL_BLOCK = 4096
"""Iterations per kernel call: the uniforms drawn for it (batch x block x 2 doubles, 4 MB), and the
progress reports between calls."""

_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


# --- the trueskill package's default statistics backend, written from Numerical Recipes -----------------


ERFC_FIT = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
)
"""Numerical Recipes' erfc fit, highest power first (the exponent adds -z² - 1.26551223 + t * poly)."""


def erfc(x: float) -> float:
    """Complementary error function, Numerical Recipes' Chebyshev fit (trueskill's default backend)."""
    z = abs(x)
    t = 1.0 / (1.0 + z / 2.0)
    poly = ERFC_FIT[0]
    for coef in ERFC_FIT[1:]:
        poly = coef + t * poly
    r = t * math.exp(-z * z - 1.26551223 + t * poly)
    return 2.0 - r if x < 0 else r


def cdf(x: float) -> float:
    return 0.5 * erfc(-x / _SQRT2)


def pdf(x: float) -> float:
    return _INV_SQRT_2PI * math.exp(-(x**2) / 2)


def erfcinv(y: float) -> float:
    """Inverse of ``erfc``: Numerical Recipes' rational start and two Newton-Halley steps on ``erfc``."""
    if y >= 2:
        return -100.0
    if y <= 0:
        return 100.0
    lower = y < 1
    if not lower:
        y = 2 - y
    t = math.sqrt(-2 * math.log(y / 2.0))
    x = -0.70711 * ((2.30753 + t * 0.27061) / (1.0 + t * (0.99229 + t * 0.04481)) - t)
    for _ in range(2):
        err = erfc(x) - y
        x += err / (1.12837916709551257 * math.exp(-(x**2)) - x * err)
    return x if lower else -x


def ppf(p: float) -> float:
    return -_SQRT2 * erfcinv(2 * p)


def draw_margin(draw_probability: float, beta: float, players: int = 2) -> float:
    """trueskill's ``calc_draw_margin``: ``ppf((p + 1) / 2) * sqrt(players) * beta``."""
    return ppf((draw_probability + 1) / 2.0) * math.sqrt(players) * beta


def reference_beta(pairwise_judgments: int) -> float:
    """keisks/wmt-trueskill's beta: ``sigma * N / 40`` with N = judgments + 1 (0.5 * N / 40)."""
    return SIGMA * (pairwise_judgments + 1) / 40.0


def rate_pair(
    mu1: float, sigma1: float, mu2: float, sigma2: float, outcome: int, *, beta: float, margin: float
) -> tuple[float, float, float, float]:
    """One 1-vs-1 TrueSkill game (tau 0): ``outcome`` +1 = player 1 wins, -1 = player 2 wins, 0 = draw.

    Returns ``(mu1, sigma1, mu2, sigma2)`` after the game, as
    ``trueskill.rate_1vs1`` with the default backend: the same v/w functions;
    ``FloatingPointError`` where the package raises one (a cdf underflow).
    """
    var1, var2 = sigma1 * sigma1, sigma2 * sigma2
    c2 = 2 * beta * beta + var1 + var2
    c = math.sqrt(c2)
    t = (mu1 - mu2) / c
    eps = margin / c
    if outcome:
        x = outcome * t - eps
        denom = cdf(x)
        v = pdf(x) / denom if denom else -x
        w = v * (v + x)
        if not 0 < w < 1:
            raise FloatingPointError("TrueSkill win update out of range (the trueskill package raises too)")
        v *= outcome
    else:
        a, b = eps - abs(t), -eps - abs(t)
        denom = cdf(a) - cdf(b)
        if not denom:
            raise FloatingPointError("TrueSkill draw update underflows (the trueskill package raises too)")
        v_abs = (pdf(b) - pdf(a)) / denom
        v = v_abs * (-1 if t < 0 else 1)
        w = v_abs * v_abs + (a * pdf(a) - b * pdf(b)) / denom
    mu1 += var1 / c * v
    mu2 -= var2 / c * v
    var1 *= 1 - var1 / c2 * w
    var2 *= 1 - var2 / c2 * w
    return mu1, math.sqrt(var1), mu2, math.sqrt(var2)


# --- many runs at once: the numba kernel -------------------------------------------------------------------


def load_kernel() -> None:
    """Compile the kernel, or load it from numba's cache (a Celery worker does this when it starts)."""
    # lazy: importing the kernel imports numba (~0.3 CPU-s), which only a run needs
    from geceval.human import trueskill_kernel

    trueskill_kernel.warm_up()


def trueskill_runs(
    data: PairData, runs: Sequence[int], seed: int, *, progress: ProgressFn = no_progress
) -> tuple[np.ndarray, np.ndarray]:
    """Final (mu, sigma) of each listed run, arrays of shape (len(runs), systems).

    Run ``r`` draws from ``run_rng(seed, r)`` only, so its result does not depend on
    which other runs share its batch. ``progress`` counts iterations (28,147 for the
    gec-ranking judgments), in the kernel's blocks.
    """
    # lazy: numba's import (~0.3 CPU-s) only when a run starts
    from geceval.human.trueskill_kernel import games

    run_ids = [int(r) for r in runs]
    size, n_runs, iterations = data.size, len(run_ids), data.judgments + 1
    mu = np.full((size, n_runs), MU)
    var = np.full((size, n_runs), SIGMA * SIGMA)
    if not run_ids:
        return mu.T.copy(), np.sqrt(var.T)
    beta = reference_beta(data.judgments)
    margin = draw_margin(DRAW_PROBABILITY, beta)
    allowed = (data.counts > 0).astype(np.float64)
    complete = bool(np.all(allowed.reshape(size, size) + np.eye(size) > 0))
    countsf, offsets = data.counts.astype(np.float64), data.offsets.astype(np.uint64)
    outcomes = data.outcomes.astype(np.int8)  # -1/0/+1: 8x less memory for the random draws
    progress(0, iterations)
    for start in range(0, n_runs, KERNEL_BATCH):
        batch = slice(start, min(start + KERNEL_BATCH, n_runs))
        generators = [run_rng(seed, r) for r in run_ids[batch]]
        b_mu, b_var = np.ascontiguousarray(mu[:, batch]), np.ascontiguousarray(var[:, batch])
        b_emu = np.exp(b_mu)
        b_enmu = 1.0 / b_emu
        drawn = np.empty((len(generators), KERNEL_BLOCK, 2))
        for first in range(0, iterations, KERNEL_BLOCK):
            steps = min(KERNEL_BLOCK, iterations - first)
            for k, generator in enumerate(generators):
                generator.random(out=drawn[k, :steps])
            uniforms = np.ascontiguousarray(drawn[:, :steps].transpose(1, 2, 0))  # (steps, 2, runs)
            ok = games(
                b_mu, b_var, b_emu, b_enmu, uniforms, offsets, countsf, outcomes, allowed, complete,
                2 * beta * beta, margin,
            )  # fmt: skip
            if not ok:
                raise FloatingPointError("TrueSkill update underflows (cdf difference 0)")
            done = start * iterations + (first + steps) * (batch.stop - start)
            progress(done // n_runs, iterations)
        mu[:, batch], var[:, batch] = b_mu, b_var
    return mu.T.copy(), np.sqrt(var.T)
