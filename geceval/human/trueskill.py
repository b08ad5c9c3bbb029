"""TrueSkill as keisks/wmt-trueskill ran it: the scalar pieces (see :mod:`geceval.ranking`).

The trueskill package's default statistics backend (Numerical Recipes ``erfc``) and the closed-form
two-player update, game by game; ``PairData``, the integer encoding of pairwise judgments that
Expected Wins reads as well; ``run_rng``, the random stream of one run; and ``lockstep_exp``, the
exponential both lockstep engines (:mod:`geceval.ranking_lockstep`) compute.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from geceval.judgments import PairwiseJudgment, RankingJudgment

MU = 0.0
SIGMA = 0.5
DRAW_PROBABILITY = 0.25
BLOCK = 256
"""The numpy engine's iterations per block of pre-drawn random numbers (memory: runs x BLOCK x 2 doubles)."""

_SQRT2 = math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
TWO_SQRT2 = 2 * _SQRT2
LOG_HALF_EXP = 1.26551223 + math.log(2.0)
LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


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


# --- the exponential of the lockstep engines ---------------------------------------------------------------

LOG2E = 1.4426950408889634
LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of ln 2: k * LN2_HI is exact for |k| < 2**20
LN2_LO = 1.90821492927058770002e-10
EXP_LO, EXP_HI = -708.0, 709.0
EXP_COEFS = tuple(1.0 / math.factorial(n) for n in range(13))


def lockstep_exp(x: np.ndarray) -> np.ndarray:
    """exp for the lockstep engines, the same operations in numpy and in the numba kernel.

    Written out rather than taken from numpy or libm so that the two engines
    agree bit for bit (numpy's exp, SIMD on AVX-512 machines, and libm's differ
    in the last bit for ~5% of arguments), and so do machines with different
    SIMD: ``x = k ln2 + r`` with ``|r| <= ln2/2``, a degree-12 Taylor
    polynomial of exp(r) in Horner form, times 2**k built from its bits.
    Within 3 ulp of ``math.exp`` on [-708, 709]; 0 below -708 (libm gives
    subnormals down to -745), inf above 709.
    """
    xc = np.clip(x, EXP_LO, EXP_HI)
    k = xc * LOG2E
    k += 0.5
    np.floor(k, out=k)
    r = xc - k * LN2_HI
    r -= k * LN2_LO
    p = np.full_like(r, EXP_COEFS[12])
    for coef in EXP_COEFS[11::-1]:
        p *= r
        p += coef
    scale = k.astype(np.int64)
    scale += 1023
    scale <<= 52  # the bits of the float64 2**k
    p *= scale.view(np.float64)
    p[x < EXP_LO] = 0.0
    p[x > EXP_HI] = np.inf
    return p


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

    def to_dict(self) -> dict:
        """A JSON-able form (integers only) that ``from_dict`` turns back into equal arrays."""
        return {
            "systems": list(self.systems),
            "judgments": self.judgments,
            "winner_loser": self.winner_loser.tolist(),
            "offsets": self.offsets.tolist(),
            "counts": self.counts.tolist(),
            "outcomes": self.outcomes.astype(np.int64).tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> PairData:
        return cls(
            systems=tuple(data["systems"]),
            judgments=int(data["judgments"]),
            winner_loser=np.asarray(data["winner_loser"], dtype=np.int64),
            offsets=np.asarray(data["offsets"], dtype=np.int64),
            counts=np.asarray(data["counts"], dtype=np.int64),
            outcomes=np.asarray(data["outcomes"], dtype=np.float64),
        )


def prepare(judgments: Sequence[PairwiseJudgment]) -> PairData:
    """Encode pairwise judgments (self-pairs and skipped ranks are ignored, as in ``expand_pairwise``)."""
    usable = [j for j in judgments if j.sys1 != j.sys2 and j.rank1 >= 1 and j.rank2 >= 1]
    return _encode(
        [j.sys1 for j in usable],
        [j.sys2 for j in usable],
        np.array([j.outcome for j in usable], dtype=np.int64),
    )


def prepare_rankings(rankings: Iterable[RankingJudgment]) -> PairData:
    """``prepare(expand_pairwise(rankings))`` without building the pair objects (~half the time:
    the command line reads 28,146 pairs this way)."""
    sys1: list[str] = []
    sys2: list[str] = []
    rank1: list[int] = []
    rank2: list[int] = []
    for ranking in rankings:
        entries = ranking.entries
        for i, (first, r1) in enumerate(entries):
            if r1 < 1:  # skipped (or invalid): in no pair
                continue
            for second, r2 in entries[i + 1 :]:  # the pairs of itertools.combinations, in its order
                if r2 >= 1 and first != second:
                    sys1.append(first)
                    sys2.append(second)
                    rank1.append(r1)
                    rank2.append(r2)
    # +1 when sys1 ranks better (lower), as PairwiseJudgment.outcome
    outcome = np.sign(np.array(rank2, dtype=np.int64) - np.array(rank1, dtype=np.int64))
    return _encode(sys1, sys2, outcome)


def _encode(sys1: list[str], sys2: list[str], outcome: np.ndarray) -> PairData:
    """PairData of usable pairs given as columns (outcome +1/-1/0 from sys1's view)."""
    if not sys1:
        raise ValueError("no usable pairwise judgments (need two different systems with ranks >= 1)")
    systems = tuple(sorted(set(sys1) | set(sys2)))
    index = {name: i for i, name in enumerate(systems)}
    first = np.array([index[s] for s in sys1], dtype=np.int64)
    second = np.array([index[s] for s in sys2], dtype=np.int64)
    return prepare_indices(systems, first, second, outcome)


def prepare_indices(
    systems: tuple[str, ...], first: np.ndarray, second: np.ndarray, outcome: np.ndarray
) -> PairData:
    """PairData of usable pairs given as int64 indices into ``systems`` (sorted names) and outcomes
    (+1/-1/0 from ``first``'s view): what ``prepare`` builds, for callers that hold arrays already."""
    size = len(systems)
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
        judgments=len(first),
        winner_loser=winner_loser.astype(np.int64),
        offsets=offsets.astype(np.int64),
        counts=counts.astype(np.int64),
        outcomes=seen[order].astype(np.float64),
    )


def run_rng(seed: int, run: int) -> np.random.Generator:
    """The random stream of one run: independent of every other run and of how runs are batched."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))
