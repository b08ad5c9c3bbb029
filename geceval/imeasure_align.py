"""The I-measure's 3-way alignment of source, hypothesis and reference, and its column counts.

The cost model, tie order and column classes are those of :mod:`geceval.imeasure`'s reading
of ``ieval.py`` (see its docstring); this module computes them.

Speed: the DP runs in numpy over anti-diagonal wavefronts (i + j + k
constant), all candidate references of a sentence at once, and only over
the cells a cheap path can pass through: a path cannot cost less than its
length bound (a gap per token one side of a pair has more), so cells whose
bound from the start plus bound to the end exceeds the cost of a known path
hold no optimal path (``_align_region``; exact, the traceback and its ties
included). The source is aligned as a hypothesis only against the
references tied at the best WAcc (JFLEG ``-nomix``: about 3 CPU-s, the tool
257; the full cube took 7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# column cost: token/token mismatch, token/gap, weight of the hypothesis-reference pair
_SUB, _GAP, _HR = 3, 2, 2
# moves as bit masks: 1 source, 2 hypothesis, 4 reference; tie order (first wins)
_ORDER = (7, 3, 5, 6, 1, 2, 4)
_INF = 1 << 28
_SINGLE_COST = {1: 2 * _GAP, 2: _GAP + _HR * _GAP, 4: _GAP + _HR * _GAP}
# first alignment limit above the length bound (about four differing tokens); see _align_batch
_FIRST_SLACK = 40


def _ids(seqs: Sequence[Sequence[str]]) -> list[np.ndarray]:
    vocab: dict[str, int] = {}
    return [np.array([vocab.setdefault(t, len(vocab) + 1) for t in s], dtype=np.int64) for s in seqs]


def _length_bound(ds, dh, dr):  # type: ignore[no-untyped-def]
    """Least cost of any run of columns consuming ``ds`` source, ``dh`` hypothesis and ``dr``
    reference tokens: each pair pays a gap for every token one side has more (numpy-friendly)."""
    return _GAP * abs(ds - dh) + _GAP * abs(ds - dr) + _HR * _GAP * abs(dh - dr)


def _align_batch(src: Sequence[str], pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[int]]:
    """Optimal 3-way alignments of ``src`` with each (hypothesis, reference) pair; moves per column.

    Each pair is first aligned inside the cells whose length bounds (from the start plus to
    the end) stay within ``_FIRST_SLACK`` of the bound of the whole; if the best path found
    there costs more than that limit, it is aligned again with its cost as the limit, which
    then holds every optimal path (see ``_align_region``).
    """
    n = len(src)
    limits = [_length_bound(n, len(h), len(r)) + _FIRST_SLACK for h, r in pairs]
    paths: list[list[int]] = [[] for _ in pairs]
    todo = list(range(len(pairs)))
    while todo:
        found = _align_region(src, [pairs[x] for x in todo], [limits[x] for x in todo])
        again = []
        for x, (path, cost) in zip(todo, found):
            if cost <= limits[x]:
                paths[x] = path
            else:
                limits[x] = cost
                again.append(x)
        todo = again
    return paths


def _align_region(
    src: Sequence[str], pairs: Sequence[tuple[Sequence[str], Sequence[str]]], limits: Sequence[int]
) -> list[tuple[list[int], int]]:
    """The 3-D DP over the cells whose length bound (start to cell plus cell to end) is at most
    the pair's limit; per pair the traced path and its cost.

    Exact when the cost is within the limit: every path leaving the region costs more than
    the limit, so all optimal paths, and every cell on them, lie inside it; a cell outside is
    never a best predecessor of a cell on an optimal path, and the traceback (tie order
    included) follows the same pointers as the full DP.
    """
    b = len(pairs)
    n = len(src)
    m = max(len(h) for h, _ in pairs)
    k = max(len(r) for _, r in pairs)
    s_prev, h_prev, r_prev = _previous_tokens(src, pairs, m, k)
    cells, ci, cj, cl, starts = _region_cells(n, m, k, pairs, limits)
    cost = _move_costs(s_prev[ci], h_prev[:, cj], r_prev[:, cl], (ci, cj, cl), b)
    st_i, st_j = (m + 1) * (k + 1), k + 1
    offsets = np.array([(mv & 1) * st_i + (mv >> 1 & 1) * st_j + (mv >> 2 & 1) for mv in _ORDER])
    preds = cells[None, :] - offsets[:, None]
    np.maximum(preds, 0, out=preds)  # invalid moves (cost _INF) may point before the box
    # cells outside the region keep _INF: never a best predecessor of a cell on an optimal path
    dist = np.full((b, (n + 1) * st_i), _INF, dtype=np.int32)
    dist[:, 0] = 0
    ptr = np.zeros(dist.shape, dtype=np.int8)
    moves = np.array(_ORDER, dtype=np.int8)
    for t in range(1, n + m + k + 1):
        lo, hi = starts[t], starts[t + 1]
        if lo == hi:
            continue
        here = cells[lo:hi]
        cand = cost[:, :, lo:hi] + dist[:, preds[:, lo:hi]]
        best = cand.argmin(axis=1)
        dist[:, here] = np.take_along_axis(cand, best[:, None, :], axis=1)[:, 0, :]
        ptr[:, here] = moves[best]
    return _traceback(pairs, n, dist, ptr, (st_i, st_j))


def _previous_tokens(
    src: Sequence[str], pairs: Sequence[tuple[Sequence[str], Sequence[str]]], m: int, k: int
) -> tuple[Any, Any, Any]:
    """Token ids at position-1 along each axis (index 0 = before the start: never used unmasked)."""
    b = len(pairs)
    enc = _ids([src] + [h for h, _ in pairs] + [r for _, r in pairs])
    h_mat = np.full((b, m), -1, dtype=np.int64)
    r_mat = np.full((b, k), -2, dtype=np.int64)
    for x in range(b):
        h_mat[x, : len(pairs[x][0])] = enc[1 + x]
        r_mat[x, : len(pairs[x][1])] = enc[1 + b + x]
    s_prev = np.concatenate(([-3], enc[0]))  # (n+1)
    h_prev = np.concatenate((np.full((b, 1), -4), h_mat), axis=1)  # (b, m+1)
    r_prev = np.concatenate((np.full((b, 1), -5), r_mat), axis=1)  # (b, k+1)
    return s_prev, h_prev, r_prev


def _region_cells(
    n: int,
    m: int,
    k: int,
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    limits: Sequence[int],
) -> tuple[Any, Any, Any, Any, Any]:
    """The flat ids and coordinates of the cells within some pair's limit, by wave (i + j + l); wave starts."""
    shape = (n + 1, m + 1, k + 1)
    ii = np.arange(n + 1, dtype=np.int32)[:, None, None]
    jj = np.arange(m + 1, dtype=np.int32)[None, :, None]
    ll = np.arange(k + 1, dtype=np.int32)[None, None, :]
    from_start = _length_bound(ii, jj, ll)
    keep = np.zeros(shape, dtype=bool)
    for (h, r), limit in zip(pairs, limits):
        keep |= from_start + _length_bound(n - ii, len(h) - jj, len(r) - ll) <= limit
    cells = np.flatnonzero(keep)
    ci, cj, cl = np.unravel_index(cells, shape)
    wave = ci + cj + cl
    order = np.argsort(wave, kind="stable")
    cells, ci, cj, cl = cells[order], ci[order], cj[order], cl[order]
    starts = np.searchsorted(wave[order], np.arange(n + m + k + 2))
    return cells, ci, cj, cl, starts


def _move_costs(s_tok: Any, h_tok: Any, r_tok: Any, coords: tuple[Any, Any, Any], b: int) -> Any:
    """Per pair, move (in ``_ORDER``) and region cell, the cost of arriving there by that move."""
    ci, cj, cl = coords
    ne_sh = (s_tok[None, :] != h_tok).astype(np.int32)  # (b, R)
    ne_sr = (s_tok[None, :] != r_tok).astype(np.int32)
    ne_hr = (h_tok != r_tok).astype(np.int32)
    cost = np.empty((b, len(_ORDER), len(ci)), dtype=np.int32)
    for x, mv in enumerate(_ORDER):
        if mv == 7:
            cost[:, x] = _SUB * (ne_sh + ne_sr + _HR * ne_hr)
        elif mv == 3:
            cost[:, x] = _SUB * ne_sh + _GAP + _HR * _GAP
        elif mv == 5:
            cost[:, x] = _SUB * ne_sr + _GAP + _HR * _GAP
        elif mv == 6:
            cost[:, x] = 2 * _GAP + _HR * _SUB * ne_hr
        else:
            cost[:, x] = _SINGLE_COST[mv]
        invalid = np.zeros(len(ci), dtype=bool)
        for bit, pos in ((1, ci), (2, cj), (4, cl)):
            if mv & bit:
                invalid |= pos == 0
        cost[:, x, invalid] = _INF
    return cost


def _traceback(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    n: int,
    dist: Any,
    ptr: Any,
    strides: tuple[int, int],
) -> list[tuple[list[int], int]]:
    """Per pair, the moves from the start to its end cell along the pointers, and the end cell's cost."""
    st_i, st_j = strides
    out = []
    for x, (h, r) in enumerate(pairs):
        i, j, l_ = n, len(h), len(r)
        end = i * st_i + j * st_j + l_
        path: list[int] = []
        row = ptr[x].tobytes()
        while i or j or l_:
            mv = row[i * st_i + j * st_j + l_]
            path.append(mv)
            i -= mv & 1
            j -= mv >> 1 & 1
            l_ -= mv >> 2 & 1
        path.reverse()
        out.append((path, int(dist[x, end])))
    return out


_CELL_BUDGET = 2_000_000  # box cells per numpy batch (distance + pointer each; 7 costs per region cell)


def align_chunked(
    src: Sequence[str], pairs: Sequence[tuple[Sequence[str], Sequence[str]]]
) -> list[list[int]]:
    """``_align_batch`` over chunks small enough to bound memory."""
    if not pairs:
        return []
    m = max(len(h) for h, _ in pairs)
    k = max(len(r) for _, r in pairs)
    per = max(1, _CELL_BUDGET // ((len(src) + 1) * (m + 1) * (k + 1)))
    out: list[list[int]] = []
    for a in range(0, len(pairs), per):
        out.extend(_align_batch(src, pairs[a : a + per]))
    return out


def align3(
    src: Sequence[str], hyp: Sequence[str], ref: Sequence[str]
) -> list[tuple[str | None, str | None, str | None]]:
    """The 3-way alignment as columns ``(source, hypothesis, reference)``; ``None`` is a gap."""
    path = _align_batch(src, [(hyp, ref)])[0]
    return _columns(src, hyp, ref, path)


def _columns(src, hyp, ref, path):  # type: ignore[no-untyped-def]
    i = j = l_ = 0
    cols = []
    for mv in path:
        s = src[i] if mv & 1 else None
        h = hyp[j] if mv & 2 else None
        r = ref[l_] if mv & 4 else None
        i += mv & 1
        j += mv >> 1 & 1
        l_ += mv >> 2 & 1
        cols.append((s, h, r))
    return cols


def count_columns(src, hyp, ref, path) -> tuple[tuple[int, ...], tuple[int, ...]]:  # type: ignore[no-untyped-def]
    c = [0, 0, 0, 0, 0]
    d = [0, 0, 0, 0, 0]
    for s, h, r in _columns(src, hyp, ref, path):
        if h == s:
            if r == s:
                c[1] += 1
                d[1] += 1
            else:
                c[3] += 1
                d[3] += 1
        elif r == s:
            c[2] += 1
            d[2] += 1
        else:
            d[0] += 1
            if h == r:
                c[0] += 1
            else:
                c[2] += 1
                c[3] += 1
                c[4] += 1
    return tuple(c), tuple(d)
