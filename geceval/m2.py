"""MaxMatch (M2) scorer: the exact numbers of m2scorer 3.2, in seconds.

The reading (Dahlmeier & Ng 2012, "Better evaluation for grammatical error
correction", and the behaviour of the m2scorer 3.2 tool that printed the
published numbers; every figure in REFERENCE_FIGURES is reproduced):

1. Tokens are ``str.split()`` of the source (M2 ``S`` line) and hypothesis.
2. The edit lattice is the union of all optimal token Levenshtein alignments
   under two cost schemes (insert/delete 1 with substitute 1, and with
   substitute 2); a vertex is a matrix cell ``(i, j)``, a diagonal step
   between equal tokens is a no-op carrying one unchanged word. Insertions
   before the first source token sit at offset 0 (the published fix).
3. Merged arcs are added the way the reference's Floyd-Warshall loop adds
   them: for each intermediate vertex ``k`` in sorted order, each arc
   ``x -> k`` and base edge ``k -> y`` give a candidate ``x -> y`` of ``d(x,k)
   + 1`` steps, stored when strictly shorter than the stored arc and with at
   most ``max_unchanged_words`` unchanged tokens (so a pair keeps its first
   shortest *valid* candidate, which decides which longer arcs exist). Merged
   no-op arcs are then removed, but from the list being iterated, so the arc
   right after each removed one survives; reproduced, since it can change
   which edit wins a tie.
4. Per annotator, an arc matching a gold edit (same span and original,
   correction among the ``||`` alternatives) weighs ``-len(E)``, a no-op arc
   0, any other arc 1 however many tokens it spans (this weighting is what
   reproduces the published numbers; weighting a merged arc by its length
   gives CoNLL-14 AMU P 0.3704 instead of 0.4162). The reference then runs
   Bellman-Ford over the edge list (base edges sorted by source, then merged
   arcs in creation order), updating only on strict improvement.
5. That is computed without |V| passes: the distance is a topological DP,
   and among the arcs achieving a vertex's distance the reference keeps the
   one it relaxes first after the arc's source was settled -- base edges in a
   round's first part, merged arcs in its second, and a vertex settled by a
   merged arc reaches base edges only in the next round. With these weights
   every shortest path has the same numbers of matched and proposed edits, so
   the tie order changes only which edits are listed (and counts when gold
   edits are duplicated or with ``ignore_whitespace_casing``); it is
   reproduced all the same, and ``tests/core/m2_reference.py`` (a literal
   version) checks it on random cases.
6. The path's non-no-op edits are the system edits; each counts once per gold
   edit it matches (duplicated gold edits count twice, as in the reference).
   Per sentence the annotator maximising the running corpus F_beta is chosen
   (ties: more true positives, then fewer ``proposed + beta^2 * gold``);
   annotators are visited in increasing id order, only those present in the
   block (a ``noop`` line makes one present; a block with no ``A`` line has
   one annotator with no edits).
7. P = tp/proposed (1 when nothing is proposed), R = tp/gold (1 when there is
   no gold edit), F_beta from P and R (0 when both are 0). The reference
   prints 4 decimals; we return full floats.

Large lattices (a runaway hypothesis) hold millions of merged arcs; above
``_NUMPY_VERTICES`` vertices they are built as numpy arrays per vertex
(``_ArcsNp``, same rules, about 0.5 GB for the 8.4 million merged arcs of
the 408-token blow-up sentence, which the reference did not finish in 11
minutes and which takes 2-3 CPU-s here).

``ignore_whitespace_casing`` (the reference's option) drops system edits
whose original and correction are equal once spaces are removed and case is
folded, and lets a correction match a gold alternative under that folding;
the lattice weights still use exact matching.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.inputs import read_input
from geceval.formats.m2 import M2Sentence, read_m2
from geceval.formats.text import read_lines
from geceval.progress import ProgressFn

INF = float("inf")

# A gold edit as the reference compares it: (start, end, original, corrections).
GoldEdit = tuple[int, int, str, tuple[str, ...]]
# A system edit: (start, end, original, correction).
SysEdit = tuple[int, int, str, str]

_DIAG, _DEL, _INS = 1, 2, 4
# Lattices with more vertices use the array implementation of the merged arcs.
_NUMPY_VERTICES = 1000


@dataclass
class M2SentenceScore:
    annotator: int
    tp: int
    fp: int
    fn: int
    edits: list[SysEdit]
    guarded: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "annotator": self.annotator,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "edits": [list(e) for e in self.edits],
            **({"guarded": True} if self.guarded else {}),
        }


@dataclass
class M2Result:
    p: float
    r: float
    f: float
    tp: int
    fp: int
    fn: int
    beta: float
    sentences: list[M2SentenceScore] | None = None
    guarded: list[int] = field(default_factory=list)  # 0-based sentence indices


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


class _Lattice:
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


class _Arcs:
    """Merged arcs into each vertex, as the reference's transitive-arc loop leaves them.

    ``into[v]`` lists ``(x, noop, kfirst)`` for every merged arc ``x -> v``
    still in the edge list after the no-op removal; ``kfirst`` is the
    intermediate vertex of the loop iteration that first appended the arc,
    which with ``x`` gives the arc's position in the reference's edge list.
    """

    @classmethod
    def empty(cls, lat: _Lattice) -> _Arcs:
        """No merged arcs at all (the guard's fallback for pathological lattices)."""
        arcs = cls.__new__(cls)
        arcs.into = {v: [] for v in lat.order}
        arcs.n_arcs = 0
        return arcs

    def __init__(self, lat: _Lattice, max_unchanged: int) -> None:
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


def _gold_pairs(lat: _Lattice, gold: list[GoldEdit]) -> set[tuple[int, int]]:
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


def _best_edits(lat: _Lattice, arcs: _Arcs, gold: list[GoldEdit]) -> list[SysEdit]:
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


def _backtrack(lat: _Lattice, choice: dict[int, tuple[int, bool]]) -> list[SysEdit]:
    """Non-no-op edits on the chosen path, from the end of the sentence back (the reference's order)."""
    edits: list[SysEdit] = []
    v = lat.end
    while v in choice:
        u, noop = choice[v]
        if not noop:
            edits.append(lat.edit(u, v))
        v = u
    return edits


class _ArcsNp:
    """``_Arcs`` for large lattices, one numpy array set per target vertex.

    Same rules, same result; the per-vertex dictionaries of ``_Arcs`` would
    hold millions of entries on a runaway hypothesis (8.7 million merged arcs
    for the 408-token blow-up sentence), which pure Python cannot build in
    seconds. Arrays per target ``v``: source ``x``, and for merged arcs still
    in the edge list their no-op flag and ``kfirst`` (-1 for base edges).
    """

    def __init__(self, lat: _Lattice, max_unchanged: int) -> None:
        import numpy as np

        X: dict[int, Any] = {}
        S: dict[int, Any] = {}
        U: dict[int, Any] = {}
        N: dict[int, Any] = {}
        K: dict[int, Any] = {}
        chunks: dict[int, list[tuple[Any, int, Any]]] = {}
        for v in lat.order:
            preds = lat.preds[v]
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
                X[v], S[v], U[v], N[v], K[v] = bx, bs, bu, bn, bk
                continue
            cx = np.concatenate(px)
            cs = np.concatenate(ps)
            cu = np.concatenate(pu)
            cn = np.concatenate(pn)
            cq = np.concatenate(pq)
            kids = np.array([k for k, _u, _n in preds], dtype=np.int64)
            # winner per source: fewest steps, then the earliest intermediate
            o = np.lexsort((cq, cs, cx))
            xs = cx[o]
            starts = np.flatnonzero(np.concatenate(([True], xs[1:] != xs[:-1])))
            win = o[starts]
            kfirst = kids[np.minimum.reduceat(cq[o], starts)]
            # creations: a candidate is appended when strictly shorter than all earlier ones
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
            X[v] = np.concatenate((bx, cx[win]))
            S[v] = np.concatenate((bs, cs[win]))
            U[v] = np.concatenate((bu, cu[win]))
            N[v] = np.concatenate((bn, cn[win]))
            K[v] = np.concatenate((bk, kfirst))
        # no-op removal with the reference's skip-after-removal
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


def _best_edits_np(lat: _Lattice, arcs: _ArcsNp, gold: list[GoldEdit]) -> list[SysEdit]:
    """``_best_edits`` over ``_ArcsNp`` (same rules, array operations per vertex)."""
    import numpy as np

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


def _fold(s: str) -> str:
    return s.replace(" ", "").lower()


def _count_matches(edits: list[SysEdit], gold: list[GoldEdit], fold: bool) -> int:
    tp = 0
    for e in edits:
        for g in gold:
            if e[0] != g[0] or e[1] != g[1] or e[2] != g[2]:
                continue
            if e[3] in g[3] or (fold and any(_fold(e[3]) == _fold(c) for c in g[3])):
                tp += 1
    return tp


@dataclass(frozen=True)
class M2Candidate:
    """One annotator's reading of one sentence: the system edits the lattice picks against
    that annotator's gold, and how many of them match."""

    annotator: int
    tp: int
    edits: tuple[SysEdit, ...]
    n_gold: int
    guarded: bool = False


def sentence_candidates(
    hyp: str,
    sent: M2Sentence,
    *,
    max_unchanged_words: int = 2,
    ignore_whitespace_casing: bool = False,
    max_lattice_edges: int | None = None,
) -> list[M2Candidate]:
    """Per annotator (increasing id), the system edits and matches of ``hyp`` for one gold block.

    Depends on this sentence only, so callers scoring many mixes of the same outputs may cache
    it per (sentence, line); the choice among candidates depends on the running corpus counts
    and is made by ``score_candidates``.
    """
    lat = _Lattice(sent.tokens, hyp.split())
    golds = gold_edits(sent)
    cache: dict[tuple, list[SysEdit]] = {}
    arcs: Any = None
    guard = max_lattice_edges is not None and lat.n_edges > max_lattice_edges
    out = []
    for annotator in sorted(golds):
        g = golds[annotator]
        key = tuple(sorted(g))
        if key not in cache:
            if arcs is None:
                if guard:
                    arcs = _Arcs.empty(lat)
                elif len(lat.order) > _NUMPY_VERTICES:
                    arcs = _ArcsNp(lat, max_unchanged_words)
                else:
                    arcs = _Arcs(lat, max_unchanged_words)
            if isinstance(arcs, _ArcsNp):
                cache[key] = _best_edits_np(lat, arcs, g)
            else:
                cache[key] = _best_edits(lat, arcs, g)
        edits = cache[key]
        if ignore_whitespace_casing:
            edits = [e for e in edits if _fold(e[2]) != _fold(e[3])]
        tp = _count_matches(edits, g, ignore_whitespace_casing)
        out.append(M2Candidate(annotator, tp, tuple(edits), len(g), guard))
    return out


def score_candidates(
    per_sentence: Iterable[Sequence[M2Candidate]], *, beta: float = 0.5, sentence: bool = False
) -> M2Result:
    """Corpus P/R/F_beta: per sentence the candidate maximising the running corpus F_beta
    (ties: more true positives, then fewer ``proposed + beta^2 * gold``)."""
    sq = beta * beta
    correct = proposed = total_gold = 0.0
    details: list[M2SentenceScore] = []
    guarded_ids: list[int] = []
    for idx, candidates in enumerate(per_sentence):
        best: M2Candidate | None = None
        f_max, c_max, p_min, g_min = -1.0, -1.0, INF, INF
        for cand in candidates:
            c, p, gl = correct + cand.tp, proposed + len(cand.edits), total_gold + cand.n_gold
            try:
                f = (1.0 + sq) * c / (sq * gl + p)
            except ZeroDivisionError:
                f = 1.0 if c == 0 else 0.0
            if (
                f_max < f
                or (f_max == f and c_max < c)
                or (f_max == f and c_max == c and p_min + sq * g_min > p + sq * gl)
            ):
                f_max, c_max, p_min, g_min = f, c, p, gl
                best = cand
        if best is None:
            raise GecInputError(f"sentence {idx + 1} has no annotator")
        correct += best.tp
        proposed += len(best.edits)
        total_gold += best.n_gold
        if best.guarded:
            guarded_ids.append(idx)
        if sentence:
            details.append(
                M2SentenceScore(
                    best.annotator,
                    best.tp,
                    len(best.edits) - best.tp,
                    best.n_gold - best.tp,
                    list(best.edits),
                    guarded=best.guarded,
                )
            )
    p = correct / proposed if proposed else 1.0
    r = correct / total_gold if total_gold else 1.0
    try:
        f = (1.0 + sq) * p * r / (sq * p + r)
    except ZeroDivisionError:
        f = 0.0
    tp_i = int(correct)
    return M2Result(
        p=p,
        r=r,
        f=f,
        tp=tp_i,
        fp=int(proposed) - tp_i,
        fn=int(total_gold) - tp_i,
        beta=beta,
        sentences=details if sentence else None,
        guarded=guarded_ids,
    )


def m2_score(
    hypotheses: Sequence[str],
    gold: Sequence[M2Sentence],
    *,
    beta: float = 0.5,
    max_unchanged_words: int = 2,
    ignore_whitespace_casing: bool = False,
    progress: ProgressFn | None = None,
    sentence: bool = False,
    max_lattice_edges: int | None = None,
) -> M2Result:
    """Corpus M2 P/R/F_beta of ``hypotheses`` (one line per gold block), as m2scorer 3.2.

    ``sentence=True`` keeps per-sentence details (chosen annotator, tp/fp/fn,
    the system edits, from the end of the sentence back as the reference
    lists them). ``max_lattice_edges`` (off by default; exact scoring needs
    none: the 408-token blow-up sentence takes seconds) is a guard for
    pathological input: a sentence whose base lattice has more (distinct)
    edges is
    scored without merged arcs, so its multi-token edits stay split and the
    numbers may differ from the reference; such sentences are listed (0-based)
    in ``M2Result.guarded`` and flagged in the details.
    """
    if len(hypotheses) != len(gold):
        raise GecInputError(f"{len(hypotheses)} hypothesis lines for {len(gold)} gold sentences")
    total = len(gold)

    def candidates() -> Iterator[list[M2Candidate]]:
        for idx, (hyp, sent) in enumerate(zip(hypotheses, gold)):
            yield sentence_candidates(
                hyp,
                sent,
                max_unchanged_words=max_unchanged_words,
                ignore_whitespace_casing=ignore_whitespace_casing,
                max_lattice_edges=max_lattice_edges,
            )
            if progress is not None:
                progress(idx + 1, total)

    return score_candidates(candidates(), beta=beta, sentence=sentence)


def _is_m2_file(path: str) -> bool:
    text = read_input(path).data.decode("utf-8", errors="replace")  # gzip or not
    for line in text.split("\n"):
        if line.strip():
            return line.startswith("S ")
    return False


def load_gold(args: Any) -> list[M2Sentence]:
    refs = list(args.refs)
    if len(refs) == 1 and _is_m2_file(refs[0]):
        return read_m2(refs[0])
    if any(_is_m2_file(r) for r in refs):
        raise GecInputError("give either one M2 file or text references, not several M2 files", path=refs[0])
    if not getattr(args, "source", None):
        raise GecInputError("text references need --source to be converted to M2", path=refs[0])
    try:
        from geceval.convert import references_to_m2
    except ImportError as exc:
        raise GecInputError(
            f"converting text references to M2 needs geceval.convert, which is not available ({exc}); "
            "give one M2 file as --refs instead",
            path=refs[0],
        ) from None
    source_lines = read_lines(args.source)
    reference_lists = [read_lines(r) for r in refs]
    for path, lines in zip(refs, reference_lists):
        if len(lines) != len(source_lines):
            raise GecInputError(f"has {len(lines)} lines but the source has {len(source_lines)}", path=path)
    return references_to_m2(source_lines, reference_lists, align=getattr(args, "align", "errant"))


def cli_m2(args: Any) -> list[dict[str, Any]]:
    """Adapter for ``python -m geceval score m2``."""
    from geceval.progress import StderrProgress

    gold = load_gold(args)
    beta = 0.5 if getattr(args, "beta", None) is None else float(args.beta)
    want_sentences = bool(getattr(args, "sentence", False))
    results = []
    for hyp_path in args.hyp:
        hyp_path = os.fspath(hyp_path)
        lines = read_lines(hyp_path, allow_empty=True)
        if len(lines) != len(gold):
            raise GecInputError(
                f"has {len(lines)} lines but the gold has {len(gold)} sentences", path=hyp_path
            )
        progress = StderrProgress(f"m2 {hyp_path}") if len(gold) >= 200 else None
        res = m2_score(lines, gold, beta=beta, progress=progress, sentence=want_sentences)
        row: dict[str, Any] = {
            "hyp": hyp_path,
            "metric": "m2",
            "score": res.f,
            "p": res.p,
            "r": res.r,
            "f": res.f,
            "tp": res.tp,
            "fp": res.fp,
            "fn": res.fn,
            "beta": beta,
        }
        if want_sentences and res.sentences is not None:
            row["sentences"] = [s.as_dict() for s in res.sentences]
        results.append(row)
    return results
