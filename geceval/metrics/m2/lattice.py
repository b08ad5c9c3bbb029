"""The edit lattice of the M2 scorer: steps 2-5 of :mod:`geceval.metrics.m2.scorer`'s reading of m2scorer 3.2.

``Lattice`` holds the base edges of all optimal token alignments of one
(source, hypothesis) pair; ``Arcs`` adds the merged arcs the reference's
Floyd-Warshall loop adds; ``best_edits`` picks the system edits of one
annotator's gold as the reference's Bellman-Ford does, without |V| passes.

Large lattices (a runaway hypothesis) hold millions of merged arcs; above
``NUMPY_VERTICES`` vertices they are built as numpy arrays per vertex
(``geceval.metrics.m2.lattice_np``, same rules, about 0.5 GB for the 8.4 million
merged arcs of the 408-token blow-up sentence, which the reference did not
finish in 11 minutes and which takes 2-3 CPU-s here).
"""

from __future__ import annotations

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
        if e.type == "noop" or e.start < 0 or e.end < 0 or e.out_of_range:
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
        d2 = _levenshtein(src, hyp, 2, bound=2 * d1[n][m])
        mask: dict[int, int] = {}
        _optimal_steps(src, hyp, d1, 1, mask)
        _optimal_steps(src, hyp, d2, 2, mask)
        self.mask = mask
        self.order = sorted(mask)
        self.end = n * W + m
        # base in-edges per vertex in the reference's order (by source id):
        # (source, unchanged words, is_noop)
        self.preds: dict[int, list[tuple[int, int, bool]]] = {}
        n_edges = 0
        for v in self.order:
            bits = mask[v]
            plist = []
            if bits & _DIAG:
                i, j = divmod(v, W)
                noop = src[i - 1] == hyp[j - 1]
                plist.append((v - W - 1, int(noop), noop))
            if bits & _DEL:
                plist.append((v - W, 0, False))
            if bits & _INS:
                plist.append((v - 1, 0, False))
            self.preds[v] = plist
            n_edges += len(plist)
        self.n_edges = n_edges
        self._columns: dict[int, list[int]] | None = None

    def columns(self) -> dict[int, list[int]]:
        """Row ``i`` -> the columns ``j`` of its vertices, ascending (computed once)."""
        if self._columns is None:
            cols: dict[int, list[int]] = {}
            for v in self.order:
                i, j = divmod(v, self.W)
                cols.setdefault(i, []).append(j)
            self._columns = cols
        return self._columns

    def edit(self, u: int, v: int) -> SysEdit:
        W = self.W
        ui, uj = divmod(u, W)
        vi, vj = divmod(v, W)
        return (ui, vi, " ".join(self.src[ui:vi]), " ".join(self.hyp[uj:vj]))


def _optimal_steps(
    src: list[str], hyp: list[str], dist: list[list[int]], sub: int, mask: dict[int, int]
) -> None:
    """Adds to ``mask`` (vertex -> step bits) the steps of every optimal alignment under ``dist``."""
    n, m = len(src), len(hyp)
    W = m + 1
    seen = {n * W + m}
    stack = [(n, m)]
    while stack:
        i, j = stack.pop()
        v = i * W + j
        bits = 0
        if i and j:
            here = dist[i][j]
            up = dist[i - 1]
            if up[j - 1] + (0 if src[i - 1] == hyp[j - 1] else sub) == here:
                bits = _DIAG
                if v - W - 1 not in seen:
                    seen.add(v - W - 1)
                    stack.append((i - 1, j - 1))
            if up[j] + 1 == here:
                bits |= _DEL
                if v - W not in seen:
                    seen.add(v - W)
                    stack.append((i - 1, j))
            if dist[i][j - 1] + 1 == here:
                bits |= _INS
                if v - 1 not in seen:
                    seen.add(v - 1)
                    stack.append((i, j - 1))
        elif i:
            bits = _DEL
            if v - W not in seen:
                seen.add(v - W)
                stack.append((i - 1, j))
        elif j:
            bits = _INS
            if v - 1 not in seen:
                seen.add(v - 1)
                stack.append((i, j - 1))
        mask[v] = mask.get(v, 0) | bits


def _levenshtein(a: list[str], b: list[str], sub: int, bound: int | None = None) -> list[list[int]]:
    """Token edit distances, exact on every cell of an optimal alignment (Ukkonen's band).

    Indels cost 1, so a cell ``(i, j)`` on an alignment of cost ``D`` has ``|i - j| + |n - m - (i - j)|
    <= D``. The table is filled only on the diagonals within a threshold ``t`` (other cells stay larger
    than any distance); every value is then the cost of some alignment, never below the true distance,
    and exact on all cells of an optimal alignment once ``t >= D``, which the corner value proves when
    it is ``<= t``. Otherwise ``t`` doubles, up to ``bound``, an upper bound of ``D`` (given, else the
    cost of replacing what lies between the common prefix and suffix), where one pass always suffices.
    """
    n, m = len(a), len(b)
    if bound is None:
        p = 0
        while p < n and p < m and a[p] == b[p]:
            p += 1
        s = 0
        while s < n - p and s < m - p and a[n - 1 - s] == b[m - 1 - s]:
            s += 1
        bound = max(n, m) - p - s
    t = min(bound, abs(n - m) + 2)
    while True:
        rows = _banded(a, b, sub, t)
        if rows[n][m] <= t:
            return rows
        t = min(2 * t, bound)


def _banded(a: list[str], b: list[str], sub: int, t: int) -> list[list[int]]:
    n, m = len(a), len(b)
    delta = n - m
    e = (t - abs(delta)) // 2
    dlo, dhi = min(0, delta) - e, max(0, delta) + e  # diagonals i - j kept
    big = n + m + 1
    rows = [list(range(m + 1))]
    prev = rows[0]
    for i in range(1, n + 1):
        row = [big] * (m + 1)
        row[0] = i
        ai = a[i - 1]
        for j in range(max(1, i - dhi), min(m, i - dlo) + 1):
            best = prev[j - 1] if ai == b[j - 1] else prev[j - 1] + sub
            if prev[j] < best:
                best = prev[j] + 1
            if row[j - 1] < best:
                best = row[j - 1] + 1
            row[j] = best
        rows.append(row)
        prev = row
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
            entry = {k: (1, unch, noop, -1) for k, unch, noop in preds}
            for k, unch, noop in preds:
                made = None
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
                    if made is None:
                        made = created.setdefault(k, [])
                    made.append((x, v))
            stored[v] = entry
        removed = _noops_removed(lat.order, created, stored)
        self.into: dict[int, list[tuple[int, bool, int]]] = {}
        self.n_arcs = 0
        for v in lat.order:
            gone = removed.get(v, ())
            lst = [(x, a[2], a[3]) for x, a in stored[v].items() if a[3] != -1 and x not in gone]
            if len(lst) > 1:
                lst.sort()
            self.into[v] = lst
            self.n_arcs += len(lst)


def _noops_removed(
    order: list[int], created: dict[int, list[tuple[int, int]]], stored: dict
) -> dict[int, set[int]]:
    """Target -> sources of the merged no-op arcs the reference deletes.

    It deletes them from the list it iterates (by intermediate vertex, then
    source and target), so the element after each deleted one is skipped and
    survives.
    """
    removed: dict[int, set[int]] = {}
    skip = False
    for k in order:
        made = created.get(k)
        if made is None:
            continue
        made.sort()
        for x, v in made:
            if skip:
                skip = False
            elif stored[v][x][2]:
                removed.setdefault(v, set()).add(x)
                skip = True
    return removed


def gold_into_arcs(lat: Lattice, gold: list[GoldEdit]) -> dict[int, set[int]]:
    """Target y -> sources x whose edit strings equal a gold edit (any arc length)."""
    W = lat.W
    cols = lat.columns()
    out: dict[int, set[int]] = {}
    for start, end, orig, corrs in gold:
        if end > lat.n or orig != " ".join(lat.src[start:end]):
            continue
        for corr in set(corrs):
            ntok = len(corr.split(" ")) if corr else 0
            for xj in cols.get(start, ()):
                y = end * W + xj + ntok
                if xj + ntok > lat.m or (start == end and not ntok) or y not in lat.mask:
                    continue
                if " ".join(lat.hyp[xj : xj + ntok]) == corr:
                    out.setdefault(y, set()).add(start * W + xj)
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
    gold_into = gold_into_arcs(lat, gold) if gold else {}
    d: dict[int, int] = {0: 0}
    rnd: dict[int, int] = {0: 1}
    base_rnd: dict[int, int] = {0: 1}  # round + part: when the vertex's base out-edges relax
    choice: dict[int, tuple[int, bool]] = {}
    into = arcs.into
    preds = lat.preds
    for v in lat.order:
        if v == 0:
            continue
        g = gold_into.get(v, ())
        best_val = None
        best_ev: tuple = ()
        best_src = (0, False)
        for k, _unch, noop in preds[v]:
            val = d[k] + (-L if k in g else (0 if noop else 1))
            ev = (base_rnd[k], 0, k, 0)
            if best_val is None or val < best_val or (val == best_val and ev < best_ev):
                best_val, best_ev, best_src = val, ev, (k, noop)
        for x, noop, kf in into[v]:
            val = d[x] + (-L if x in g else (0 if noop else 1))
            if val > best_val:
                continue
            ev = (rnd[x], 1, kf, x)
            if val < best_val or ev < best_ev:
                best_val, best_ev, best_src = val, ev, (x, noop)
        d[v] = best_val
        rnd[v] = best_ev[0]
        base_rnd[v] = best_ev[0] + best_ev[1]
        choice[v] = best_src
    return backtrack(lat, choice)


def backtrack(lat: Lattice, choice: dict[int, tuple[int, bool]]) -> list[SysEdit]:
    """Non-no-op edits on the chosen path, from the end of the sentence back (the reference's order)."""
    edits: list[SysEdit] = []
    v = lat.end
    while v in choice:
        u, noop = choice[v]
        if not noop:
            edits.append(lat.edit(u, v))
        v = u
    return edits
