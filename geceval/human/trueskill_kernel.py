"""The TrueSkill kernel, compiled with numba: a batch of runs advanced together, one phase at a time.

``games`` advances a batch of runs (laid out systems x runs) through the
iterations whose uniforms it is given. Each phase of an iteration is one loop
over the batch's runs (pick the players; gather their ratings; the truncation
bounds; the cdf and pdf of both bounds; the new ratings; their exponentials), so
the phases without calls become SIMD loops and the others keep several runs'
long dependency chains in flight. The statistics are the trueskill package's
default backend (Numerical Recipes' ``erfc`` fit, as :func:`geceval.human.trueskill.cdf`),
regrouped; a game equals ``trueskill.rate_1vs1`` to ~1e-13 (tests/core/test_ranking.py).

Imported when a TrueSkill run starts (``trueskill_runs``): numba's import and
loading the cached kernel cost ~0.3 CPU-s. Compiled code is cached
(``cache=True``); where numba puts it and what happens on a read-only install
is in docs/benchmarks.md ("TrueSkill kernel cache"): ``NUMBA_CACHE_DIR`` if
set, else ``__pycache__`` beside this file, else ``~/.cache/numba``; with none
writable the kernel is compiled in each process (~4 CPU-s, same results).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from geceval.human.trueskill import ERFC_FIT

_F = tuple(float(c) for c in ERFC_FIT)
_U0, _U1 = np.uint64(0), np.uint64(1)
TWO_SQRT2 = 2 * math.sqrt(2)
LOG_HALF_EXP = 1.26551223 + math.log(2.0)
LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _jit(fn=None, *, inline: str = "never"):
    """numba.njit with the on-disk cache, or without it when numba finds no writable cache directory."""
    if fn is None:
        return lambda f: _jit(f, inline=inline)
    options = {"error_model": "numpy", "nogil": True, "inline": inline}
    try:
        return numba.njit(cache=True, **options)(fn)
    except RuntimeError:  # "cannot cache function ...: no locator available": compile per process
        return numba.njit(cache=False, **options)(fn)


@_jit(inline="always")
def _cdf_pdf(x):
    """``cdf(x)`` and ``pdf(x)`` of the default backend, constants folded into the exponents."""
    half_x2 = (x * x) * 0.5
    t = TWO_SQRT2 / (abs(x) + TWO_SQRT2)  # 1 / (1 + z/2) with z = |x|/√2
    p = _F[0] * t
    p = (p + _F[1]) * t
    p = (p + _F[2]) * t
    p = (p + _F[3]) * t
    p = (p + _F[4]) * t
    p = (p + _F[5]) * t
    p = (p + _F[6]) * t
    p = (p + _F[7]) * t
    p = (p + _F[8]) * t
    p = math.exp((p - LOG_HALF_EXP) - half_x2) * t  # erfc(|x|/√2) / 2 = cdf(-|x|)
    cdf = p if x <= 0 else 1.0 - p
    return cdf, math.exp(-LOG_SQRT_2PI - half_x2)


@_jit(inline="always")
def _bounds(mu0, mu1, var0, var1, outcome, two_beta2, margin, xs, pre, r):
    """The truncation bounds of game r: x0, x1 into ``xs``; 1/c, 1/c², m and drawn (1.0 for a draw)
    into ``pre``. A win has ``x0 = x1 = t - eps`` (seen from the winner); a draw ``x0 = eps - |t|``,
    ``x1 = -eps - |t|``, with m = -sign(t) so that one set of formulas serves both."""
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
    """The rest of game r from the cdfs and pdfs of its bounds: (mu0, mu1, var0, var1, ok).

    ``v = (pdf(x0) - pdf(x1)) / (cdf(x0) - cdf(x1))`` and
    ``w = v² + (x0 pdf(x0) - x1 pdf(x1)) / (cdf(x0) - cdf(x1))``; a win is the
    same with ``cdf(x1) = pdf(x1) = 0`` (``v = pdf(x)/cdf(x)``, ``w = v (v + x)``).
    """
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
def games(mu, var, emu, enmu, uniforms, offsets, countsf, outcomes, allowed, complete, two_beta2, margin):
    """One iteration of a batch of runs per row of ``uniforms`` (steps, 2, runs), in place.

    ``mu``, ``var``, ``emu`` = exp(mu) and ``enmu`` = exp(-mu) are (systems, runs); ``uniforms[i, 0]``
    picks the opponents of iteration i, ``uniforms[i, 1]`` the judgments.

    ``offsets`` (uint64) and ``countsf`` locate the judgments of each ordered pair in ``outcomes``
    (``PairData``'s, as int8); ``allowed`` is the flattened (systems x systems) 0/1 matrix of judged pairs.
    Returns False when a game's cdf difference is <= 0 (the trueskill package raises there).
    """
    size, n_runs = mu.shape
    a = np.zeros(n_runs, dtype=np.uint64)
    b = np.zeros(n_runs, dtype=np.uint64)
    cum = np.empty((size, n_runs))
    best, ea, ena, total = np.empty(n_runs), np.empty(n_runs), np.empty(n_runs), np.empty(n_runs)
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
    for step in range(uniforms.shape[0]):
        u_pick, u_judgment = uniforms[step, 0], uniforms[step, 1]
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
            e0, e1 = math.exp(new[0, r]), math.exp(new[1, r])
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
    """Compile ``games`` (or load it from the cache) with the argument types ``trueskill_runs`` passes."""
    mu = np.zeros((2, 1))
    uniforms = np.zeros((0, 2, 1))
    offsets, counts = np.zeros(4, dtype=np.uint64), np.zeros(4)
    outcomes = np.zeros(4, dtype=np.int8)
    games(mu, mu.copy(), mu.copy(), mu.copy(), uniforms, offsets, counts, outcomes, counts, True, 1.0, 1.0)
