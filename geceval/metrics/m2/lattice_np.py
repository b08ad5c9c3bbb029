"""The M2 edit lattice's merged arcs and path as numpy arrays, for large lattices.

Above ``NUMPY_VERTICES`` vertices (a runaway hypothesis) :mod:`geceval.metrics.m2.scorer` uses
``ArcsNp`` and ``best_edits_np`` instead of :mod:`geceval.metrics.m2.lattice`'s
``Arcs`` and ``best_edits``: same rules, same result, array operations per
target vertex.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from geceval.metrics.m2.lattice import GoldEdit, Lattice, SysEdit, backtrack, gold_into_arcs


class ArcsNp:
    """``Arcs`` for large lattices, one numpy array set per target vertex.

    Same rules, same result; the per-vertex dictionaries of ``Arcs`` would
    hold millions of entries on a runaway hypothesis (8.7 million merged arcs
    for the 408-token blow-up sentence), which pure Python cannot build in
    seconds. Arrays per target ``v``: source ``x``, and for merged arcs still
    in the edge list their no-op flag and ``kfirst`` (-1 for base edges).
    """

    def __init__(self, lat: Lattice, max_unchanged: int) -> None:
        X: dict[int, Any] = {}
        S: dict[int, Any] = {}
        U: dict[int, Any] = {}
        N: dict[int, Any] = {}
        K: dict[int, Any] = {}
        chunks: dict[int, list[tuple[Any, int, Any]]] = {}
        for v in lat.order:
            X[v], S[v], U[v], N[v], K[v] = _np_arcs_into(lat.preds[v], v, (X, S, U, N), max_unchanged, chunks)
        removed = _np_noops_removed(lat, chunks)
        self.x: dict[int, Any] = {}
        self.noop: dict[int, Any] = {}
        self.kfirst: dict[int, Any] = {}
        self.n_arcs = 0
        for v in lat.order:
            keep = K[v] != -1
            if v in removed:
                for x in removed[v]:
                    keep &= X[v] != x
            self.x[v] = X[v][keep]
            self.noop[v] = N[v][keep]
            self.kfirst[v] = K[v][keep]
            self.n_arcs += int(keep.sum())


def _np_arcs_into(
    preds: list, v: int, done: tuple[dict, dict, dict, dict], max_unchanged: int, chunks: dict
) -> tuple[Any, Any, Any, Any, Any]:
    """``ArcsNp``'s arrays for target ``v`` (sources, steps, unchanged, no-op, kfirst), from its predecessors'.

    Records in ``chunks[k]`` the merged arcs created through intermediate ``k`` (for the no-op removal).
    """
    X, S, U, N = done
    bx = np.array([k for k, _u, _n in preds], dtype=np.int64)
    bs = np.ones(len(preds), dtype=np.int64)
    bu = np.array([u for _k, u, _n in preds], dtype=np.int64)
    bn = np.array([n for _k, _u, n in preds], dtype=bool)
    bk = np.full(len(preds), -1, dtype=np.int64)
    px, ps, pu, pn, pq = [], [], [], [], []
    for q, (k, unch, noop) in enumerate(preds):
        xk = X[k]
        if not len(xk):
            continue
        uq = U[k] + unch
        valid = uq <= max_unchanged
        for b in bx:
            valid &= xk != b
        if not valid.any():
            continue
        px.append(xk[valid])
        ps.append(S[k][valid] + 1)
        pu.append(uq[valid])
        pn.append(N[k][valid] & noop)
        pq.append(np.full(int(valid.sum()), q, dtype=np.int64))
    if not px:
        return bx, bs, bu, bn, bk
    cx, cs, cu, cn, cq = (np.concatenate(part) for part in (px, ps, pu, pn, pq))
    kids = np.array([k for k, _u, _n in preds], dtype=np.int64)
    # winner per source: fewest steps, then the earliest intermediate
    o = np.lexsort((cq, cs, cx))
    xs = cx[o]
    starts = np.flatnonzero(np.concatenate(([True], xs[1:] != xs[:-1])))
    win = o[starts]
    kfirst = kids[np.minimum.reduceat(cq[o], starts)]
    _np_record_created(preds, v, cx, cs, cq, cn, chunks)
    return (
        np.concatenate((bx, cx[win])),
        np.concatenate((bs, cs[win])),
        np.concatenate((bu, cu[win])),
        np.concatenate((bn, cn[win])),
        np.concatenate((bk, kfirst)),
    )


def _np_record_created(preds: list, v: int, cx: Any, cs: Any, cq: Any, cn: Any, chunks: dict) -> None:
    """Creations: a candidate is appended when strictly shorter than all earlier ones (of the same source)."""
    o2 = np.lexsort((cq, cx))
    x2, s2, q2 = cx[o2], cs[o2], cq[o2]
    big = np.iinfo(np.int64).max
    before = np.full(len(o2), big, dtype=np.int64)
    if len(o2) > 1:
        same1 = x2[1:] == x2[:-1]
        before[1:] = np.where(same1, s2[:-1], big)
    if len(o2) > 2:
        same2 = x2[2:] == x2[:-2]
        before[2:] = np.minimum(before[2:], np.where(same2, s2[:-2], big))
    made = s2 < before
    n2 = cn[o2]
    for q, (k, _u, _n) in enumerate(preds):
        sel = made & (q2 == q)
        if sel.any():
            chunks.setdefault(k, []).append((x2[sel], v, n2[sel]))


def _np_noops_removed(lat: Lattice, chunks: dict[int, list[tuple[Any, int, Any]]]) -> dict[int, list[int]]:
    """No-op removal with the reference's skip-after-removal: removed sources per target vertex."""
    removed: dict[int, list[int]] = {}
    last_removed = False
    for k in lat.order:
        parts = chunks.get(k)
        if not parts:
            continue
        if not any(p[2].any() for p in parts):
            last_removed = False
            continue
        xs = np.concatenate([p[0] for p in parts])
        ys = np.concatenate([np.full(len(p[0]), p[1], dtype=np.int64) for p in parts])
        ns = np.concatenate([p[2] for p in parts])
        o = np.lexsort((ys, xs))
        xs, ys, ns = xs[o], ys[o], ns[o]
        status: dict[int, bool] = {}
        for i in np.flatnonzero(ns).tolist():
            prev_removed = status.get(i - 1, False) if i > 0 else last_removed
            if prev_removed:
                status[i] = False  # skipped by the reference: survives
            else:
                status[i] = True
                removed.setdefault(int(ys[i]), []).append(int(xs[i]))
        last_removed = status.get(len(xs) - 1, False)
    return removed


def best_edits_np(lat: Lattice, arcs: ArcsNp, gold: list[GoldEdit]) -> list[SysEdit]:
    """``best_edits`` over ``ArcsNp`` (same rules, array operations per vertex)."""
    L = lat.n + lat.m + 2
    size = (lat.n + 1) * lat.W
    gold_into = gold_into_arcs(lat, gold) if gold else {}
    d = np.zeros(size, dtype=np.int64)
    rnd = np.zeros(size, dtype=np.int64)
    part = np.zeros(size, dtype=np.int64)
    rnd[0] = 1
    choice: dict[int, tuple[int, bool]] = {}
    for v in lat.order:
        if v == 0:
            continue
        best_val = None
        best_ev: tuple = ()
        best_src = (0, False)
        for k, _unch, noop in lat.preds[v]:
            w = -L if k in gold_into.get(v, ()) else (0 if noop else 1)
            val = int(d[k]) + w
            ev = (int(rnd[k] + part[k]), 0, k, 0)
            if best_val is None or val < best_val or (val == best_val and ev < best_ev):
                best_val, best_ev, best_src = val, ev, (k, noop)
        mx = arcs.x[v]
        if len(mx):
            w = np.where(arcs.noop[v], 0, 1)
            for x in gold_into.get(v, ()):
                w[mx == x] = -L
            vals = d[mx] + w
            mval = int(vals.min())
            if mval <= best_val:
                tight = np.flatnonzero(vals == mval)
                tx = mx[tight]
                tk = arcs.kfirst[v][tight]
                tr = rnd[tx]
                j = np.lexsort((tx, tk, tr))[0]
                ev = (int(tr[j]), 1, int(tk[j]), int(tx[j]))
                if mval < best_val or ev < best_ev:
                    best_val, best_ev = mval, ev
                    best_src = (int(tx[j]), bool(arcs.noop[v][tight[j]]))
        d[v] = best_val
        rnd[v] = best_ev[0]
        part[v] = best_ev[1]
        choice[v] = best_src
    return backtrack(lat, choice)
