"""The edit lattice of the M2 scorer: steps 2-5 of :mod:`geceval.m2`'s reading of m2scorer 3.2.

``Lattice`` holds the base edges of all optimal token alignments of one
(source, hypothesis) pair; ``Arcs`` adds the merged arcs the reference's
Floyd-Warshall loop adds; ``best_edits`` picks the system edits of one
annotator's gold as the reference's Bellman-Ford does, without |V| passes.

Large lattices (a runaway hypothesis) hold millions of merged arcs; above
``NUMPY_VERTICES`` vertices they are built as numpy arrays per vertex
(``ArcsNp``, same rules, about 0.5 GB for the 8.4 million merged arcs of
the 408-token blow-up sentence, which the reference did not finish in 11
minutes and which takes 2-3 CPU-s here).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from geceval.formats.m2 import M2Sentence

# A gold edit as the reference compares it: (start, end, original, corrections).
GoldEdit = tuple[int, int, str, tuple[str, ...]]
# A system edit: (start, end, original, correction).
SysEdit = tuple[int, int, str, str]

_DIAG, _DEL, _INS = 1, 2, 4
# Lattices with more vertices use the array implementation of the merged arcs.
NUMPY_VERTICES = 1000


def gold_edits(sentence: M2Sentence) -> dict[int, list[GoldEdit]]:
    """Annotator -> gold edits, as the reference loads them.

    ``noop`` edits and negative offsets are dropped but still make their
    annotator present; a block with no ``A`` line has one annotator (0) with
    no edits.
    """
    tokens = sentence.tokens
    out: dict[int, list[GoldEdit]] = {}
    for e in sentence.edits:
        edits = out.setdefault(e.annotator, [])
        if e.type == "noop" or e.start < 0 or e.end < 0:
            continue
        corrections = tuple(c.strip() for c in (e.corrections or ("",)))
        edits.append((e.start, e.end, " ".join(tokens[e.start : e.end]), corrections))
    if not out:
        out[0] = []
    return out


class Lattice:
    """Base edit lattice of one (source, hypothesis) pair; vertices are ``i * W + j``."""

    def __init__(self, src: list[str], hyp: list[str]) -> None:
        self.src, self.hyp = src, hyp
        n, m = len(src), len(hyp)
        self.n, self.m, self.W = n, m, m + 1
        W = self.W
        d1 = _levenshtein(src, hyp, 1)
        d2 = _levenshtein(src, hyp, 2)
        mask: dict[int, int] = {}
        for dist, sub in ((d1, 1), (d2, 2)):
            seen = {n * W + m}
            stack = [n * W + m]
            while stack:
                v = stack.pop()
                i, j = divmod(v, W)
                bits = 0
                if i and j:
                    here = dist[i][j]
                    same = src[i - 1] == hyp[j - 1]
                    if dist[i - 1][j - 1] + (0 if same else sub) == here:
                        bits |= _DIAG
                    if dist[i - 1][j] + 1 == here:
                        bits |= _DEL
                    if dist[i][j - 1] + 1 == here:
                        bits |= _INS
                elif i:
                    bits = _DEL
                elif j:
                    bits = _INS
                mask[v] = mask.get(v, 0) | bits
                for bit, u in ((_DIAG, v - W - 1), (_DEL, v - W), (_INS, v - 1)):
                    if bits & bit and u not in seen:
                        seen.add(u)
                        stack.append(u)
        self.mask = mask
        self.order = sorted(mask)
        self.end = n * W + m
        # base in-edges per vertex in the reference's order (by source id):
        # (source, unchanged words, is_noop)
        self.preds: dict[int, list[tuple[int, int, bool]]] = {}
        n_edges = 0
        for v in self.order:
            bits = mask[v]
            i, j = divmod(v, W)
            plist = []
            if bits & _DIAG:
                noop = src[i - 1] == hyp[j - 1]
                plist.append((v - W - 1, int(noop), noop))
            if bits & _DEL:
                plist.append((v - W, 0, False))
            if bits & _INS:
                plist.append((v - 1, 0, False))
            self.preds[v] = plist
            n_edges += len(plist)
        self.n_edges = n_edges

    def edit(self, u: int, v: int) -> SysEdit:
        W = self.W
        ui, uj = divmod(u, W)
        vi, vj = divmod(v, W)
        return (ui, vi, " ".join(self.src[ui:vi]), " ".join(self.hyp[uj:vj]))


def _levenshtein(a: list[str], b: list[str], sub: int) -> list[list[int]]:
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        prev = rows[-1]
        row = [i] * (len(b) + 1)
        ai = a[i - 1]
        for j in range(1, len(b) + 1):
            best = prev[j - 1] + (0 if ai == b[j - 1] else sub)
            if prev[j] + 1 < best:
                best = prev[j] + 1
            if row[j - 1] + 1 < best:
                best = row[j - 1] + 1
            row[j] = best
        rows.append(row)
    return rows


class Arcs:
    """Merged arcs into each vertex, as the reference's transitive-arc loop leaves them.

    ``into[v]`` lists ``(x, noop, kfirst)`` for every merged arc ``x -> v``
    still in the edge list after the no-op removal; ``kfirst`` is the
    intermediate vertex of the loop iteration that first appended the arc,
    which with ``x`` gives the arc's position in the reference's edge list.
    """

    @classmethod
    def empty(cls, lat: Lattice) -> Arcs:
        """No merged arcs at all (the guard's fallback for pathological lattices)."""
        arcs = cls.__new__(cls)
        arcs.into = {v: [] for v in lat.order}
        arcs.n_arcs = 0
        return arcs

    def __init__(self, lat: Lattice, max_unchanged: int) -> None:
        # stored[v]: source x -> (steps, unchanged, noop, kfirst); base arcs have kfirst -1
        stored: dict[int, dict[int, tuple[int, int, bool, int]]] = {}
        created: dict[int, list[tuple[int, int]]] = {}
        for v in lat.order:
            preds = lat.preds[v]
            entry: dict[int, tuple[int, int, bool, int]] = {}
            for k, unch, noop in preds:
                entry[k] = (1, unch, noop, -1)
            for k, unch, noop in preds:
                made = created.setdefault(k, [])
                for x, (steps, u, nx, _kf) in stored[k].items():
                    u2 = u + unch
                    if u2 > max_unchanged:
                        continue
                    cur = entry.get(x)
                    if cur is None:
                        entry[x] = (steps + 1, u2, nx and noop, k)
                    elif steps + 1 < cur[0] and cur[3] != -1:
                        entry[x] = (steps + 1, u2, nx and noop, cur[3])
                    else:
                        continue
                    made.append((x, v))
            stored[v] = entry
        # The reference deletes merged no-op arcs from the list it iterates:
        # the element after each deleted one is skipped and so survives.
        removed: set[tuple[int, int]] = set()
        skip = False
        for k in lat.order:
            for pair in sorted(created.get(k, ())):
                if skip:
                    skip = False
                    continue
                x, v = pair
                if stored[v][x][2]:
                    removed.add(pair)
                    skip = True
        self.into: dict[int, list[tuple[int, bool, int]]] = {}
        self.n_arcs = 0
        for v in lat.order:
            lst = [(x, a[2], a[3]) for x, a in stored[v].items() if a[3] != -1 and (x, v) not in removed]
            lst.sort()
            self.into[v] = lst
            self.n_arcs += len(lst)


def _gold_pairs(lat: Lattice, gold: list[GoldEdit]) -> set[tuple[int, int]]:
    """Vertex pairs (x, y) whose edit strings equal a gold edit (any arc length)."""
    W = lat.W
    out: set[tuple[int, int]] = set()
    for start, end, orig, corrs in gold:
        if end > lat.n or orig != " ".join(lat.src[start:end]):
            continue
        for corr in set(corrs):
            ntok = len(corr.split(" ")) if corr else 0
            for xj in range(lat.m + 1 - ntok):
                x = start * W + xj
                y = end * W + xj + ntok
                if x == y or x not in lat.mask or y not in lat.mask:
                    continue
                if " ".join(lat.hyp[xj : xj + ntok]) == corr:
                    out.add((x, y))
    return out


def best_edits(lat: Lattice, arcs: Arcs, gold: list[GoldEdit]) -> list[SysEdit]:
    """The system edits the reference's Bellman-Ford leaves on the path, against one annotator.

    Weights: gold-matching arc -L, no-op arc 0, other arc 1. ``d`` is the
    shortest distance; among the arcs that achieve it, the reference keeps the
    one it relaxes first after its source reached its final distance: base
    edges in a round's first part (by source), merged arcs in its second part
    (by creation), and a vertex settled by a merged arc feeds base edges only
    in the next round. ``t`` is that (round, part, position) per vertex.
    """
    L = lat.n + lat.m + 2
    gold_pairs = _gold_pairs(lat, gold) if gold else set()
    d: dict[int, int] = {0: 0}
    rnd: dict[int, int] = {0: 1}
    part: dict[int, int] = {0: 0}
    choice: dict[int, tuple[int, bool]] = {}
    into = arcs.into
    for v in lat.order:
        if v == 0:
            continue
        best_val = None
        best_ev = None
        best_src = None
        for k, _unch, noop in lat.preds[v]:
            w = -L if (k, v) in gold_pairs else (0 if noop else 1)
            val = d[k] + w
            ev = (rnd[k] + part[k], 0, k, 0)
            if best_val is None or val < best_val or (val == best_val and ev < best_ev):
                best_val, best_ev, best_src = val, ev, (k, noop)
        for x, noop, kf in into[v]:
            w = -L if (x, v) in gold_pairs else (0 if noop else 1)
            val = d[x] + w
            if val > best_val:
                continue
            ev = (rnd[x], 1, kf, x)
            if val < best_val or ev < best_ev:
                best_val, best_ev, best_src = val, ev, (x, noop)
        d[v] = best_val
        rnd[v] = best_ev[0]
        part[v] = best_ev[1]
        choice[v] = best_src
    return _backtrack(lat, choice)


def _backtrack(lat: Lattice, choice: dict[int, tuple[int, bool]]) -> list[SysEdit]:
    """Non-no-op edits on the chosen path, from the end of the sentence back (the reference's order)."""
    edits: list[SysEdit] = []
    v = lat.end
    while v in choice:
        u, noop = choice[v]
        if not noop:
            edits.append(lat.edit(u, v))
        v = u
    return edits


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
    gold_pairs = _gold_pairs(lat, gold) if gold else set()
    gold_into: dict[int, list[int]] = {}
    for x, y in gold_pairs:
        gold_into.setdefault(y, []).append(x)
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
            w = -L if (k, v) in gold_pairs else (0 if noop else 1)
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
    return _backtrack(lat, choice)
