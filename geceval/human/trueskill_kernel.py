"""The TrueSkill lockstep engine compiled with numba: the numpy engine's arithmetic in fused SIMD loops.

``games`` advances a batch of runs (laid out systems x runs, as the numpy
engine) through a number of iterations. Each phase of an iteration is one
loop over the batch's runs without calls or stores under a branch, so LLVM
turns it into AVX-512/AVX2 code; only the gathers and scatters of the two
players' ratings are scalar. The update is four loops (bounds; the cdf and
pdf of both bounds; the new ratings; their exponentials) rather than one: a
short loop body lets the CPU overlap the long dependency chains (Horner
steps) of several iterations, ~8% faster than one fused loop with the same
operations. Every floating-point operation is the numpy
engine's, in the same order and without fused multiply-adds (numba rounds
each operation unless fastmath is on, which it is not here), and the
exponential is ``lockstep_exp`` written out, so both engines give the same
bits. The random numbers are numpy's PCG64 computed in the kernel (the same
stream as ``run_rng(seed, run).random()``), so no uniforms go through memory.

Imported when a TrueSkill run starts on this engine (ranking_lockstep.kernel): numba's
import and loading the cached kernel cost ~0.3 CPU-s. Compiled code is cached
(``cache=True``); where numba puts it and what happens on a read-only install
is in docs/benchmarks.md ("TrueSkill kernel cache"): ``NUMBA_CACHE_DIR`` if
set, else ``__pycache__`` beside this file, else ``~/.cache/numba``; with none
writable the kernel is compiled in each process (~4 CPU-s, same results).
"""

from __future__ import annotations

import math

import numpy as np

from geceval.ranking_trueskill import (
    ERFC_FIT,
    EXP_COEFS,
    EXP_HI,
    EXP_LO,
    LN2_HI,
    LN2_LO,
    LOG2E,
    LOG_HALF_EXP,
    LOG_SQRT_2PI,
    TWO_SQRT2,
)

try:  # the [fast] extra: without numba this module still imports, and ranking_lockstep never calls it
    import numba
except ImportError:
    numba = None

if numba is not None:

    @numba.extending.intrinsic
    def _bits_to_double(typingctx, bits):
        """The float64 whose bits are the int64 ``bits`` (an LLVM bitcast: vectorises, unlike a table)."""

        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], context.get_value_type(numba.types.float64))

        return numba.types.float64(numba.types.int64), codegen


_F = tuple(float(c) for c in ERFC_FIT)
# numpy's PCG64: the 128-bit LCG multiplier (PCG_DEFAULT_MULTIPLIER_128), XSL-RR output, 53-bit doubles
_MUL_HI, _MUL_LO = np.uint64(2549297995355413924), np.uint64(4865540595714422341)
_MUL_LO_LO, _MUL_LO_HI = np.uint64(4865540595714422341 & 0xFFFFFFFF), np.uint64(4865540595714422341 >> 32)
_U58, _U11, _U64, _U63, _U32, _U1, _U0 = (np.uint64(n) for n in (58, 11, 64, 63, 32, 1, 0))
_LOW32 = np.uint64(0xFFFFFFFF)
_TO_DOUBLE = 1.0 / 9007199254740992.0
_C = tuple(float(c) for c in EXP_COEFS)


def _jit(fn=None, *, inline: str = "never"):
    """numba.njit with the on-disk cache, or without it when numba finds no writable cache directory."""
    if fn is None:
        return lambda f: _jit(f, inline=inline)
    if numba is None:
        return fn
    # no fastmath: every operation rounds as numpy's does (no fused multiply-adds, no reassociation)
    options = {"error_model": "numpy", "nogil": True, "inline": inline}
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available": compile per process
        return numba.njit(cache=False, **options)(fn)


@_jit(inline="always")
def _exp(x):
    """``lockstep_exp`` for one value (see geceval.ranking_trueskill)."""
    xc = min(max(x, EXP_LO), EXP_HI)
    k = math.floor(xc * LOG2E + 0.5)
    r = (xc - k * LN2_HI) - k * LN2_LO
    p = _C[12]
    for i in range(11, -1, -1):  # Horner, highest coefficient first, as lockstep_exp
        p = p * r + _C[i]
    out = p * _bits_to_double((np.int64(k) + 1023) << 52)
    if x < EXP_LO:
        out = 0.0
    if x > EXP_HI:
        out = math.inf
    return out


@_jit(inline="always")
def _mulhi_mul_lo(a):
    """The high 64 bits of ``a * _MUL_LO`` (128-bit product) from 32-bit halves: vectorises (AVX-512)."""
    a_lo, a_hi = a & _LOW32, a >> _U32
    lh, hl = a_lo * _MUL_LO_HI, a_hi * _MUL_LO_LO
    mid = ((a_lo * _MUL_LO_LO) >> _U32) + (lh & _LOW32) + (hl & _LOW32)
    return a_hi * _MUL_LO_HI + (lh >> _U32) + (hl >> _U32) + (mid >> _U32)


@_jit(inline="always")
def _uniform(state, r):
    """The next ``Generator.random()`` of run r's PCG64 (state rows: hi, lo, inc hi, inc lo)."""
    hi, lo, inc_hi, inc_lo = state[0, r], state[1, r], state[2, r], state[3, r]
    new_hi = _mulhi_mul_lo(lo) + lo * _MUL_HI + hi * _MUL_LO + inc_hi
    new_lo = lo * _MUL_LO + inc_lo
    new_hi += _U1 if new_lo < inc_lo else _U0  # carry of the low half
    state[0, r], state[1, r] = new_hi, new_lo
    x = new_hi ^ new_lo
    rot = new_hi >> _U58
    x = (x >> rot) | (x << ((_U64 - rot) & _U63))
    return np.float64(x >> _U11) * _TO_DOUBLE


@_jit(inline="always")
def _cdf_pdf(x):
    """``cdf(x)`` and ``pdf(x)`` as the numpy engine's ``_cdf_pdf``."""
    half_x2 = (x * x) * 0.5
    t = TWO_SQRT2 / (abs(x) + TWO_SQRT2)
    p = _F[0] * t
    p = (p + _F[1]) * t
    p = (p + _F[2]) * t
    p = (p + _F[3]) * t
    p = (p + _F[4]) * t
    p = (p + _F[5]) * t
    p = (p + _F[6]) * t
    p = (p + _F[7]) * t
    p = (p + _F[8]) * t
    p = (p - LOG_HALF_EXP) - half_x2
    p = _exp(p) * t
    cdf = p if x <= 0 else 1.0 - p
    return cdf, _exp(-LOG_SQRT_2PI - half_x2)


@_jit(inline="always")
def _bounds(mu0, mu1, var0, var1, outcome, two_beta2, margin, xs, pre, r):
    """The numpy engine's ``_rate_pairs`` up to the truncation bounds of game r: x0, x1 into ``xs``;
    1/c, 1/c², m and drawn (1.0 for a draw) into ``pre``."""
    c2 = (var0 + var1) + two_beta2
    c = math.sqrt(c2)
    inv_c = 1.0 / c
    inv_c2 = inv_c * inv_c
    t = (mu0 - mu1) * inv_c
    eps = margin * inv_c
    drawn = 1.0 if outcome == 0.0 else 0.0
    m = outcome
    if outcome == 0.0:
        m = 1.0 if t < 0 else -1.0
    mt = m * t
    x1 = mt - eps
    xs[0, r] = mt + eps if outcome == 0.0 else x1
    xs[1, r] = x1
    pre[0, r], pre[1, r], pre[2, r], pre[3, r] = inv_c, inv_c2, m, drawn


@_jit(inline="always")
def _finish(mu0, mu1, var0, var1, pre, xs, cdfs, pdfs, r):
    """The rest of game r from the cdfs and pdfs of its bounds: (mu0, mu1, var0, var1, ok)."""
    inv_c, inv_c2, m, drawn = pre[0, r], pre[1, r], pre[2, r], pre[3, r]
    x0, x1 = xs[0, r], xs[1, r]
    cdf0, pdf0 = cdfs[0, r], pdfs[0, r]
    cdf1 = cdfs[1, r] * drawn
    pdf1 = pdfs[1, r] * drawn
    denom = cdf0 - cdf1
    inv_denom = 1.0 / denom
    g = (pdf0 - pdf1) * inv_denom
    w = ((x0 * pdf0) - (x1 * pdf1)) * inv_denom + g * g
    g *= m
    new_mu0 = (var0 * inv_c) * g + mu0
    new_mu1 = mu1 - (var1 * inv_c) * g
    new_var0 = (1.0 - (var0 * inv_c2) * w) * var0
    new_var1 = (1.0 - (var1 * inv_c2) * w) * var1
    return new_mu0, new_mu1, new_var0, new_var1, denom > 0


@_jit(inline="always")
def _pick_players(var, emu, enmu, u_pick, allowed, complete, a, b, best, ea, ena, total, cum):
    """a = the largest variance (ties: the larger index), b = the opponent drawn with ``u_pick``.

    Written as selects over whole rows (no stores under a branch) so that each loop vectorises;
    system indices are uint64 so that indexing needs no negative-index wraparound.
    """
    size, n_runs = var.shape
    for r in range(n_runs):
        a[r] = _U0
        best[r] = var[0, r]
    for s in range(1, size):
        us = np.uint64(s)
        for r in range(n_runs):
            v = var[s, r]
            take = v >= best[r]
            best[r] = v if take else best[r]
            a[r] = us if take else a[r]
    emu_flat, enmu_flat, width = emu.reshape(emu.size), enmu.reshape(enmu.size), np.uint64(n_runs)
    for r in range(n_runs):
        at = a[r] * width + np.uint64(r)
        ea[r] = emu_flat[at]
        ena[r] = enmu_flat[at]
        total[r] = 0.0
    for s in range(size):
        us = np.uint64(s)
        for r in range(n_runs):
            w = min(emu[s, r] * ena[r], enmu[s, r] * ea[r])
            skip = us == a[r]
            if not complete:  # a system without judgments against a weighs 0 (loop unswitched by LLVM)
                skip |= allowed[a[r] * np.uint64(size) + us] == 0.0
            total[r] += 0.0 if skip else w
            cum[s, r] = total[r]
    for r in range(n_runs):
        best[r] = (1.0 - u_pick[r]) * total[r]  # the target
        b[r] = _U0
    for s in range(size):
        for r in range(n_runs):
            b[r] += _U1 if cum[s, r] < best[r] else _U0


@_jit
def games(mu, var, emu, enmu, state, steps, offsets, countsf, outcomes, allowed, complete, two_beta2, margin):
    """``steps`` iterations of a batch of runs, in place, drawing from the runs' PCG64 ``state`` (4, runs).

    ``offsets`` (uint64) and ``countsf`` locate the judgments of each ordered pair in ``outcomes``
    (``PairData``'s, as int8); ``allowed`` is the flattened (systems x systems) 0/1 matrix of judged pairs.
    Returns False when a game's cdf difference is <= 0 (the numpy engine raises there).
    """
    size, n_runs = mu.shape
    a = np.zeros(n_runs, dtype=np.uint64)
    b = np.zeros(n_runs, dtype=np.uint64)
    cum = np.empty((size, n_runs))
    best, ea, ena, total = np.empty(n_runs), np.empty(n_runs), np.empty(n_runs), np.empty(n_runs)
    u_pick = np.empty(n_runs)
    u_judgment = np.empty(n_runs)
    at = np.empty((2, n_runs), dtype=np.uint64)
    ab = np.empty((5, n_runs))
    new = np.empty((8, n_runs))  # mu a, mu b, var a, var b, exp(mu) a, b, exp(-mu) a, b
    xs, cdfs, pdfs = np.empty((2, n_runs)), np.empty((2, n_runs)), np.empty((2, n_runs))
    pre = np.empty((4, n_runs))  # 1/c, 1/c², m, drawn of each game
    good = np.empty(n_runs, dtype=np.bool_)
    mu_flat, var_flat = mu.reshape(mu.size), var.reshape(var.size)
    emu_flat, enmu_flat = emu.reshape(emu.size), enmu.reshape(enmu.size)
    width, n_systems = np.uint64(n_runs), np.uint64(size)
    ok = True
    for _ in range(steps):
        for r in range(n_runs):
            u_pick[r] = _uniform(state, r)
            u_judgment[r] = _uniform(state, r)
        _pick_players(var, emu, enmu, u_pick, allowed, complete, a, b, best, ea, ena, total, cum)
        for r in range(n_runs):
            at[0, r] = a[r] * width + np.uint64(r)
            at[1, r] = b[r] * width + np.uint64(r)
        for r in range(n_runs):
            q = a[r] * n_systems + b[r]
            ab[0, r] = mu_flat[at[0, r]]
            ab[1, r] = mu_flat[at[1, r]]
            ab[2, r] = var_flat[at[0, r]]
            ab[3, r] = var_flat[at[1, r]]
            ab[4, r] = np.float64(outcomes[offsets[q] + np.uint64(u_judgment[r] * countsf[q])])
        for r in range(n_runs):
            _bounds(ab[0, r], ab[1, r], ab[2, r], ab[3, r], ab[4, r], two_beta2, margin, xs, pre, r)
        for r in range(n_runs):  # the four cdf/pdf chains of a game side by side: more in flight
            c0, p0 = _cdf_pdf(xs[0, r])
            c1, p1 = _cdf_pdf(xs[1, r])
            cdfs[0, r], pdfs[0, r], cdfs[1, r], pdfs[1, r] = c0, p0, c1, p1
        for r in range(n_runs):
            new[0, r], new[1, r], new[2, r], new[3, r], good[r] = _finish(
                ab[0, r], ab[1, r], ab[2, r], ab[3, r], pre, xs, cdfs, pdfs, r
            )
        for r in range(n_runs):
            e0, e1 = _exp(new[0, r]), _exp(new[1, r])
            new[4, r], new[5, r], new[6, r], new[7, r] = e0, e1, 1.0 / e0, 1.0 / e1
        for r in range(n_runs):
            ok &= good[r]
            fa, fb = at[0, r], at[1, r]
            mu_flat[fa], mu_flat[fb] = new[0, r], new[1, r]
            var_flat[fa], var_flat[fb] = new[2, r], new[3, r]
            emu_flat[fa], emu_flat[fb] = new[4, r], new[5, r]
            enmu_flat[fa], enmu_flat[fb] = new[6, r], new[7, r]
    return ok


def warm_up() -> None:
    """Compile ``games`` (or load it from the cache) with the argument types ``_kernel_runs`` passes."""
    mu = np.zeros((2, 1))
    state = np.zeros((4, 1), dtype=np.uint64)
    offsets, counts = np.zeros(4, dtype=np.uint64), np.zeros(4)
    outcomes = np.zeros(4, dtype=np.int8)
    games(mu, mu.copy(), mu.copy(), mu.copy(), state, 0, offsets, counts, outcomes, counts, True, 1.0, 1.0)
