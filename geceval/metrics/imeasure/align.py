"""The I-measure's 3-way alignment of source, hypothesis and reference, and its column counts.

The cost model, tie order and column classes are those of :mod:`geceval.metrics.imeasure.scorer`'s reading
of ``ieval.py`` (see its docstring); this module computes them.

Speed: the 3-D DP only visits the cells an optimal path can pass through (Carrillo and
Lipman 1988). A column's cost is the sum of its three pairs' costs (the hypothesis-reference
pair weighted ``_HR``), so any path through cell (i, j, l) costs at least the sum of the pairwise
optimal alignments through the matching 2-D cells: source-hypothesis through (i, j),
source-reference through (i, l), hypothesis-reference through (j, l), each the sum of a
prefix and a suffix 2-D edit distance (token mismatch 3, gap 2). A cell whose bound exceeds
the cost ``U`` of some path holds no optimal path (``_region``); the DP runs on the other
cells only, in numpy over anti-diagonal wavefronts (i + j + l constant) of many problems at
once (every hypothesis-reference pair of many sentences). On JFLEG ``-nomix`` the bound of the
whole equals the optimum in 99% of the pairs: 109k cells remain, under 2 per source token and
pair (the length bound used before kept 8M, about 130).

Exact, tie order included: for a cell on an optimal path, every best predecessor lies on an
optimal path too, so inside the region with its true cost; a predecessor that is not best
in the full DP is not best here either (leaving cells out only raises costs). The traceback
from the end therefore follows the full DP's pointers (``_align_chunk``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

# column cost: token/token mismatch, token/gap, weight of the hypothesis-reference pair. The weight is 1:
# ieval.py's align.py (``_threeway_cost_table``) sums the three pairwise costs unweighted. Weight 2 gave
# the same counts on JFLEG but not on CoNLL-14 AMU (sentences 659 and 1266, tests/core/test_imeasure_ieval_parity.py).
_SUB, _GAP, _HR = 3, 2, 1
# moves as bit masks: 1 source, 2 hypothesis, 4 reference; tie order (first wins)
_ORDER = (7, 3, 5, 6, 1, 2, 4)
_INF = 1 << 28
# first limit above the bound of the whole; the bound is the optimum in 99% of JFLEG's pairs
_FIRST_SLACK = 4
# padded 2-D table cells per chunk of problems (each of the three pairs, int32)
_TABLE_BUDGET = 3_000_000

Problem = tuple[Sequence[str], Sequence[str], Sequence[str]]


_Key = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_SOLVED: OrderedDict[_Key, tuple[int, ...]] = OrderedDict()
SOLVED_SIZE = 100_000
_LOCK = threading.Lock()


def clear_solved() -> None:
    """Forget the alignments solved so far in this process."""
    with _LOCK:
        _SOLVED.clear()


def align_many(problems: Sequence[Problem]) -> list[list[int]]:
    """Optimal 3-way alignments (moves per column) of (source, hypothesis, reference) triples.

    A triple aligned before in this process is not aligned again (LRU, ``SOLVED_SIZE`` triples):
    its path depends on its three token sequences only, never on the problems batched with it (see
    the module doc), and on a shared task most triples recur from system to system -- every
    unchanged sentence is (source, source, reference), and so is every baseline."""
    keys = [(tuple(s), tuple(h), tuple(r)) for s, h, r in problems]
    found: dict[_Key, tuple[int, ...]] = {}
    with _LOCK:
        for key in keys:
            if key in _SOLVED:
                found[key] = _SOLVED[key]
                _SOLVED.move_to_end(key)
    todo = list(dict.fromkeys(k for k in keys if k not in found))
    for key, path in zip(todo, _align_all(todo)):
        found[key] = tuple(path)
    with _LOCK:
        for key in todo:
            _SOLVED[key] = found[key]
        while len(_SOLVED) > SOLVED_SIZE:
            _SOLVED.popitem(last=False)
    return [list(found[k]) for k in keys]


def _align_all(problems: Sequence[Problem]) -> list[list[int]]:
    order = sorted(range(len(problems)), key=lambda x: tuple(len(s) for s in problems[x]))
    out: list[list[int]] = [[] for _ in problems]
    chunk: list[int] = []
    dims = [0, 0, 0]
    for x in order:
        grown = [max(d, len(s) + 1) for d, s in zip(dims, problems[x])]
        n1, m1, k1 = grown
        if chunk and (len(chunk) + 1) * (n1 * m1 + n1 * k1 + m1 * k1) > _TABLE_BUDGET:
            for y, path in zip(chunk, _align_chunk([problems[y] for y in chunk])):
                out[y] = path
            chunk, grown = [], [len(s) + 1 for s in problems[x]]
        chunk.append(x)
        dims = grown
    if chunk:
        for y, path in zip(chunk, _align_chunk([problems[y] for y in chunk])):
            out[y] = path
    return out


def _align_chunk(problems: Sequence[Problem]) -> list[list[int]]:
    """Each problem aligned within the limit ``bound + _FIRST_SLACK``; a problem whose best path
    found there costs more is aligned again with that cost as the limit (which then holds every
    optimal path); one with no path inside its region again with twice the slack."""
    toks = _encode(problems)
    tables = [_pair_tables(toks[a], toks[b]) for a, b in ((0, 1), (0, 2), (1, 2))]
    bound = tables[0][1] + tables[1][1] + _HR * tables[2][1]
    limits = bound + _FIRST_SLACK
    paths: list[list[int]] = [[] for _ in problems]
    todo = np.arange(len(problems))
    while len(todo):
        sub_toks = [(t[todo], lens[todo]) for t, lens in toks]
        sub_tables = [(g[todo], c[todo]) for g, c in tables]
        found = _align_region(sub_toks, sub_tables, limits[todo])
        again = []
        for x, (path, cost) in zip(todo.tolist(), found):
            if cost <= limits[x]:
                paths[x] = path
            else:
                limits[x] = cost if cost < _INF else limits[x] + max(_GAP, 2 * (limits[x] - bound[x]))
                again.append(x)
        todo = np.array(again, dtype=np.int64)
    return paths


def _encode(problems: Sequence[Problem]) -> list[tuple[Any, Any]]:
    """Per side (source, hypothesis, reference): padded token ids (pads differ per side) and lengths."""
    vocab: dict[str, int] = {}
    out = []
    for side in range(3):
        seqs = [p[side] for p in problems]
        lens = np.array([len(s) for s in seqs], dtype=np.int64)
        ids = np.full((len(seqs), max(1, int(lens.max()))), -1 - side, dtype=np.int64)
        for x, s in enumerate(seqs):
            ids[x, : len(s)] = [vocab.setdefault(t, len(vocab)) for t in s]
        out.append((ids, lens))
    return out


def _prefix_distances(a: Any, b: Any) -> Any:
    """2-D edit distances (mismatch 3, gap 2) of every prefix pair, per row of ``a`` and ``b``."""
    p, la = a.shape
    lb = b.shape[1]
    ramp = _GAP * np.arange(lb + 1, dtype=np.int32)
    d = np.empty((p, la + 1, lb + 1), dtype=np.int32)
    d[:, 0] = ramp
    e = np.empty((p, lb + 1), dtype=np.int32)
    for i in range(1, la + 1):
        mismatch = np.where(b != a[:, i - 1 : i], _SUB, 0).astype(np.int32)
        prev = d[:, i - 1]
        e[:, 0] = _GAP * i
        np.minimum(prev[:, 1:] + _GAP, prev[:, :-1] + mismatch, out=e[:, 1:])
        e -= ramp  # a run of gaps along b: d[i, j] = min over k <= j of e[k] + gap * (j - k)
        np.minimum.accumulate(e, axis=1, out=d[:, i])
        d[:, i] += ramp
    return d


def _reversed(ids: Any, lens: Any) -> Any:
    idx = lens[:, None] - 1 - np.arange(ids.shape[1])[None, :]
    return np.where(idx >= 0, np.take_along_axis(ids, np.maximum(idx, 0), axis=1), ids[:, -1:])


def _pair_tables(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    """Per problem, the least cost of a pairwise alignment of ``a`` and ``b`` through each 2-D cell
    (prefix plus suffix distance; ``_INF`` outside the problem's lengths) and of the whole."""
    (a_ids, a_len), (b_ids, b_len) = a, b
    pre = _prefix_distances(a_ids, b_ids)
    suf = _prefix_distances(_reversed(a_ids, a_len), _reversed(b_ids, b_len))
    p, la1, lb1 = pre.shape
    ii = a_len[:, None, None] - np.arange(la1)[None, :, None]
    jj = b_len[:, None, None] - np.arange(lb1)[None, None, :]
    inside = (ii >= 0) & (jj >= 0)
    rows = np.arange(p)[:, None, None]
    through = np.where(inside, pre + suf[rows, np.maximum(ii, 0), np.maximum(jj, 0)], _INF)
    return through.astype(np.int32), pre[np.arange(p), a_len, b_len].astype(np.int64)


def _region(tables: Sequence[tuple[Any, Any]], limits: Any) -> tuple[Any, Any, Any, Any]:
    """(problem, i, j, l) of the cells whose pairwise bound is within the problem's limit, sorted."""
    (g_sh, c_sh), (g_sr, c_sr), (g_hr, c_hr) = tables
    cap = limits[:, None, None]
    p_ij, i_ij, j_ij = np.nonzero(g_sh + (c_sr + _HR * c_hr)[:, None, None] <= cap)
    p_il, i_il, l_il = np.nonzero(g_sr + (c_sh + _HR * c_hr)[:, None, None] <= cap)
    # join the (i, j) and (i, l) cells of each problem on i
    rows = g_sh.shape[1]
    count = np.bincount(p_il * rows + i_il, minlength=len(limits) * rows)
    first = np.cumsum(count) - count
    group = p_ij * rows + i_ij
    rep = count[group]
    e = np.repeat(np.arange(len(group)), rep)
    within = np.arange(int(rep.sum())) - np.repeat(np.cumsum(rep) - rep, rep)
    p, i, j = p_ij[e], i_ij[e], j_ij[e]
    l_ = l_il[first[group][e] + within]
    keep = g_sh[p, i, j] + g_sr[p, i, l_] + _HR * g_hr[p, j, l_] <= limits[p]
    return p[keep], i[keep], j[keep], l_[keep]


def _align_region(
    toks: Sequence[tuple[Any, Any]], tables: Sequence[tuple[Any, Any]], limits: Any
) -> list[tuple[list[int], int]]:
    """The 3-D DP over the region cells of every problem at once; per problem the traced path and
    its cost (``>= _INF`` when no path stays inside the region)."""
    p, i, j, l_ = _region(tables, limits)
    n = len(p)
    m1, k1 = tables[0][0].shape[2], tables[1][0].shape[2]
    key = ((p * tables[0][0].shape[1] + i) * m1 + j) * k1 + l_
    wave = i + j + l_
    order = np.argsort(wave, kind="stable")
    where = np.empty(n + 1, dtype=np.int64)
    where[order] = np.arange(n)
    where[n] = n  # the sentinel: a cell outside the region
    preds = np.empty((len(_ORDER), n), dtype=np.int64)
    for x, mv in enumerate(_ORDER):
        di, dj, dl = mv & 1, mv >> 1 & 1, mv >> 2 & 1
        want = key - (di * m1 * k1 + dj * k1 + dl)
        at = np.minimum(np.searchsorted(key, want), n - 1)
        ok = (key[at] == want) & (i >= di) & (j >= dj) & (l_ >= dl)
        preds[x] = where[np.where(ok, at, n)]
    cost = _move_costs(toks, (p, i, j, l_))[:, order]
    preds = preds[:, order]
    starts = np.searchsorted(wave[order], np.arange(int(wave.max()) + 2))
    dist = np.full(n + 1, _INF, dtype=np.int32)
    dist[: starts[1]] = 0  # wave 0: each problem's start cell
    ptr = np.zeros(n, dtype=np.int64)
    for t in range(1, len(starts) - 1):
        lo, hi = starts[t], starts[t + 1]
        if lo == hi:
            continue
        cand = cost[:, lo:hi] + dist[preds[:, lo:hi]]
        best = cand.argmin(axis=0)
        span = np.arange(hi - lo)
        dist[lo:hi] = cand[best, span]
        ptr[lo:hi] = best
    back = preds[ptr, np.arange(n)].tolist()
    ends = where[_end_cells(toks, key, (tables[0][0].shape[1], m1, k1))]
    return _traceback(ends.tolist(), ptr.tolist(), back, dist, int(starts[1]))


def _end_cells(toks: Sequence[tuple[Any, Any]], key: Any, dims: tuple[int, int, int]) -> Any:
    """Positions (in ``key`` order) of each problem's end cell (always in the region)."""
    n1, m1, k1 = dims
    (_s, n), (_h, m), (_r, k) = toks
    want = ((np.arange(len(n)) * n1 + n) * m1 + m) * k1 + k
    return np.searchsorted(key, want)


def _traceback(
    ends: list[int], ptr: list[int], back: list[int], dist: Any, n_start: int
) -> list[tuple[list[int], int]]:
    sentinel = len(ptr)
    out = []
    for end in ends:
        path: list[int] = []
        at = end
        while at >= n_start and at != sentinel:
            path.append(_ORDER[ptr[at]])
            at = back[at]
        path.reverse()
        out.append((path, int(dist[end])))
    return out


def _move_costs(toks: Sequence[tuple[Any, Any]], cells: tuple[Any, Any, Any, Any]) -> Any:
    """Per move (in ``_ORDER``) and region cell, the cost of the column arriving there by that move."""
    p, i, j, l_ = cells
    (s_ids, _), (h_ids, _), (r_ids, _) = toks
    # token before each coordinate; at coordinate 0 a value no token has (the move is invalid there)
    s = np.where(i > 0, s_ids[p, np.maximum(i - 1, 0)], -10)
    h = np.where(j > 0, h_ids[p, np.maximum(j - 1, 0)], -11)
    r = np.where(l_ > 0, r_ids[p, np.maximum(l_ - 1, 0)], -12)
    ne_sh = (s != h).astype(np.int32)
    ne_sr = (s != r).astype(np.int32)
    ne_hr = (h != r).astype(np.int32)
    single = {1: 2 * _GAP, 2: _GAP + _HR * _GAP, 4: _GAP + _HR * _GAP}
    cost = np.empty((len(_ORDER), len(p)), dtype=np.int32)
    for x, mv in enumerate(_ORDER):
        if mv == 7:
            cost[x] = _SUB * (ne_sh + ne_sr + _HR * ne_hr)
        elif mv == 3:
            cost[x] = _SUB * ne_sh + _GAP + _HR * _GAP
        elif mv == 5:
            cost[x] = _SUB * ne_sr + _GAP + _HR * _GAP
        elif mv == 6:
            cost[x] = 2 * _GAP + _HR * _SUB * ne_hr
        else:
            cost[x] = single[mv]
    return cost


def _align_batch(src: Sequence[str], pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[int]]:
    """Optimal 3-way alignments of ``src`` with each (hypothesis, reference) pair; moves per column."""
    return align_many([(src, h, r) for h, r in pairs])


def align3(
    src: Sequence[str], hyp: Sequence[str], ref: Sequence[str]
) -> list[tuple[str | None, str | None, str | None]]:
    """The 3-way alignment as columns ``(source, hypothesis, reference)``; ``None`` is a gap."""
    path = align_many([(src, hyp, ref)])[0]
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
