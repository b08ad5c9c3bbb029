"""TrueSkill as keisks/wmt-trueskill ran it, all runs in numpy lockstep (see :mod:`geceval.ranking`).

The trueskill package's default statistics backend (Numerical Recipes ``erfc``), the closed-form
two-player update, and ``trueskill_runs``; also ``PairData``, the integer encoding of pairwise
judgments that Expected Wins reads as well, and ``run_rng``, the random stream of one run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geceval.judgments import PairwiseJudgment
from geceval.progress import ProgressFn, no_progress

MU = 0.0
SIGMA = 0.5
DRAW_PROBABILITY = 0.25
BLOCK = 256
"""Iterations per block of pre-drawn random numbers (memory: runs x BLOCK x 2 doubles)."""

_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


# --- the trueskill package's default statistics backend, written from Numerical Recipes -----------------


_ERFC_FIT = (
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
    poly = _ERFC_FIT[0]
    for coef in _ERFC_FIT[1:]:
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


# --- data preparation --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairData:
    """Pairwise judgments integer-encoded: systems in Python string order, outcomes per ordered pair.

    ``outcomes[offsets[q]:offsets[q] + counts[q]]`` are the judgments of the
    ordered pair ``q = i * S + j`` seen from system i (+1 win, -1 loss, 0 tie);
    each judgment appears under (i, j) and (j, i).
    """

    systems: tuple[str, ...]
    judgments: int
    winner_loser: np.ndarray  # per judgment: i * S + j when i beat j, -1 for a tie (Expected Wins)
    offsets: np.ndarray
    counts: np.ndarray
    outcomes: np.ndarray

    @property
    def size(self) -> int:
        return len(self.systems)


def prepare(judgments: Sequence[PairwiseJudgment]) -> PairData:
    """Encode pairwise judgments (self-pairs and skipped ranks are ignored, as in ``expand_pairwise``)."""
    usable = [j for j in judgments if j.sys1 != j.sys2 and j.rank1 >= 1 and j.rank2 >= 1]
    if not usable:
        raise ValueError("no usable pairwise judgments (need two different systems with ranks >= 1)")
    systems = tuple(sorted({j.sys1 for j in usable} | {j.sys2 for j in usable}))
    index = {name: i for i, name in enumerate(systems)}
    size = len(systems)
    first = np.array([index[j.sys1] for j in usable], dtype=np.int64)
    second = np.array([index[j.sys2] for j in usable], dtype=np.int64)
    outcome = np.array([j.outcome for j in usable], dtype=np.int64)
    winner_loser = np.where(
        outcome > 0, first * size + second, np.where(outcome < 0, second * size + first, -1)
    )
    # every judgment under both orientations, stably grouped by ordered pair
    q = np.concatenate([first * size + second, second * size + first])
    seen = np.concatenate([outcome, -outcome])
    order = np.argsort(q, kind="stable")
    counts = np.bincount(q, minlength=size * size)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return PairData(
        systems=systems,
        judgments=len(usable),
        winner_loser=winner_loser,
        offsets=offsets.astype(np.int64),
        counts=counts.astype(np.int64),
        outcomes=seen[order].astype(np.float64),
    )


def run_rng(seed: int, run: int) -> np.random.Generator:
    """The random stream of one run: independent of every other run and of how runs are batched."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))


# --- TrueSkill in lockstep over runs ---------------------------------------------------------------------


_TWO_SQRT2 = 2 * _SQRT2
_LOG_HALF_EXP = 1.26551223 + math.log(2.0)
_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _cdf_pdf(x: np.ndarray, cdf_out: np.ndarray, pdf_out: np.ndarray) -> None:
    """Vectorised ``cdf`` and ``pdf`` of the default backend: the same Numerical-Recipes fit, regrouped
    (constants folded into the exponents), equal to the scalar functions to ~1e-15 relative."""
    half_x2 = x * x
    half_x2 *= 0.5  # z² of erfc(-x/√2), and minus the pdf's exponent
    t = np.abs(x)
    t += _TWO_SQRT2
    np.divide(_TWO_SQRT2, t, out=t)  # 1 / (1 + z/2) with z = |x|/√2
    p = _ERFC_FIT[0] * t
    for coef in _ERFC_FIT[1:-1]:
        p += coef
        p *= t
    p += _ERFC_FIT[-1]
    p *= t
    p -= _LOG_HALF_EXP
    p -= half_x2
    np.exp(p, out=p)
    p *= t  # erfc(|x|/√2) / 2 = cdf(-|x|)
    np.subtract(1.0, p, out=cdf_out)
    np.copyto(cdf_out, p, where=x <= 0)
    np.subtract(-_LOG_SQRT_2PI, half_x2, out=half_x2)
    np.exp(half_x2, out=pdf_out)


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
    c = np.sqrt(c2)
    t = mu[0] - mu[1]
    t /= c
    eps = margin / c
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
    g = pdfs[0] - pdfs[1]
    g /= denom
    if (denom <= 0).any():
        # trueskill's v_win falls back to -x here and then w_win raises; its draw raises too
        raise FloatingPointError("TrueSkill update underflows (cdf difference 0)")
    w = x[0] * pdfs[0]
    w -= x[1] * pdfs[1]
    w /= denom
    w += g * g
    g *= m
    new_mu = var / c
    new_mu *= g
    new_mu[1] *= -1.0
    new_mu += mu
    new_var = var / c2
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
) -> tuple[np.ndarray, np.ndarray]:
    """Final (mu, sigma) of each listed run, arrays of shape (len(runs), systems)."""
    run_ids = [int(r) for r in runs]
    n_runs = len(run_ids)
    size = data.size
    if n_runs == 0:
        return np.zeros((0, size)), np.zeros((0, size))
    if size > 127:
        raise ValueError("at most 127 systems")  # int8 system indices below
    iterations = data.judgments + 1
    state = _Runs(data, n_runs)
    generators = [run_rng(seed, r) for r in run_ids]
    uniforms = np.empty((n_runs, BLOCK, 2))
    progress(0, iterations)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for start in range(0, iterations, BLOCK):
            steps = min(BLOCK, iterations - start)
            for k, gen in enumerate(generators):
                gen.random(out=uniforms[k, :steps])
            for step in range(steps):
                state.step(uniforms[:, step].copy())  # one strided gather, then two cheap columns
            progress(start + steps, iterations)
    return state.mu.T.copy(), np.sqrt(state.var.T)


class _Runs:
    """The state of ``n_runs`` runs advanced together, with the buffers each step writes into.

    Laid out (systems, runs): reductions over systems are then row-wise vector operations.
    exp(mu) is kept so the opponent weights need no exp over the whole matrix:
    exp(-|mu_a - mu_j|) = min(r, 1/r) with r = exp(mu_j) / exp(mu_a).
    """

    def __init__(self, data: PairData, n_runs: int) -> None:
        size = data.size
        beta = reference_beta(data.judgments)
        self.margin = draw_margin(DRAW_PROBABILITY, beta)
        self.two_beta2 = 2 * beta * beta
        self.offsets, self.counts, self.outcomes = data.offsets, data.counts.astype(np.float64), data.outcomes
        has_pair = data.counts.reshape(size, size) > 0
        self.complete = bool(np.all(has_pair | np.eye(size, dtype=bool)))
        self.allowed = has_pair.astype(np.float64)  # row a: the systems a has judgments with
        self.size = size
        self.mu = np.full((size, n_runs), MU)
        self.var = np.full((size, n_runs), SIGMA * SIGMA)
        self.emu = np.exp(self.mu)
        self.mu_flat, self.var_flat, self.emu_flat = (m.reshape(-1) for m in (self.mu, self.var, self.emu))
        self.cols = np.arange(n_runs)
        self.index8 = np.arange(size, dtype=np.int8)[
            :, None
        ]  # max of is_max * index = the largest tied index
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
        np.divide(self.emu, self.emu_flat[fa], out=weights)
        np.divide(1.0, weights, out=self.other)
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
        self.emu_flat[fab] = np.exp(step_mu)
