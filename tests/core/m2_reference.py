"""A deliberately literal MaxMatch (M2) scorer, kept only for parity tests.

It follows the reference algorithm (m2scorer 3.2, Dahlmeier & Ng 2012) step by
step, the way that description reads, with none of the shortcuts of
``geceval.metrics.m2.scorer``: both Levenshtein matrices with all optimal back-pointers, the
union lattice, transitive arcs added by a Floyd-Warshall style triple loop
over the sorted vertices (an arc is added or replaced only when its distance
is strictly smaller and it keeps at most ``max_unchanged_words`` unchanged
tokens), the removal pass for merged no-op arcs (a list mutated while it is
iterated, so the arc after each removed one is not visited), gold-matching
arcs weighted ``-len(E)``, no-op arcs 0 and every other arc 1 (however
many tokens it spans), Bellman-Ford over the edge list in its order with
strict improvements, and the running-F annotator choice.

It is cubic and slow on purpose: ``geceval.metrics.m2.scorer`` must give the same answer on
every input, and ``tests/core/test_m2.py`` checks that on random cases.
"""

from __future__ import annotations

from dataclasses import dataclass

INF = float("inf")


def _matrix(first: list[str], second: list[str], sub_cost: int):
    rows, cols = len(first) + 1, len(second) + 1
    dist = [[0] * cols for _ in range(rows)]
    back: dict[tuple[int, int], list] = {}
    for i in range(1, rows):
        dist[i][0] = i
        back[(i, 0)] = [((i - 1, 0), ("del", i - 1, i, first[i - 1], "", 0))]
    for j in range(1, cols):
        dist[0][j] = j
        back[(0, j)] = [((0, j - 1), ("ins", 0, 0, "", second[j - 1], 0))]
    for i in range(1, rows):
        for j in range(1, cols):
            same = first[i - 1] == second[j - 1]
            options = [
                (dist[i - 1][j - 1] + (0 if same else sub_cost), "diag"),
                (dist[i - 1][j] + 1, "del"),
                (dist[i][j - 1] + 1, "ins"),
            ]
            best = min(c for c, _ in options)
            dist[i][j] = best
            entries = []
            for cost, kind in options:
                if cost != best:
                    continue
                if kind == "del":
                    entries.append(((i - 1, j), ("del", i - 1, i, first[i - 1], "", 0)))
                elif kind == "ins":
                    entries.append(((i, j - 1), ("ins", i, i, "", second[j - 1], 0)))
                elif same:
                    entries.append(((i - 1, j - 1), ("noop", i - 1, i, first[i - 1], second[j - 1], 1)))
                else:
                    entries.append(((i - 1, j - 1), ("sub", i - 1, i, first[i - 1], second[j - 1], 0)))
            back[(i, j)] = entries
    return dist, back


def _graph(dist, back):
    start = (len(dist) - 1, len(dist[0]) - 1)
    vertices: list = []
    edges: list = []
    weights: dict = {}
    edits: dict = {}
    queue = [start]
    while queue:
        v = queue.pop(0)
        if v in vertices:
            continue
        vertices.append(v)
        for u, edit in back.get(v, []):
            edges.append((u, v))
            weights[(u, v)] = 1
            edits[(u, v)] = edit
            if u not in queue:
                queue.append(u)
    return vertices, edges, weights, edits


def _merge_edit(a, b):
    """Concatenate two edits; the type stays only when both share it."""
    kind = a[0] if a[0] == b[0] and a[0] in ("ins", "del", "noop") else "sub"
    orig = " ".join(s for s in (a[3], b[3]) if s)
    corr = " ".join(s for s in (a[4], b[4]) if s)
    return (kind, a[1], b[2], orig, corr, a[5] + b[5])


def _transitive(vertices, edges, weights, edits, max_unchanged):
    for vk in vertices:
        for vi in vertices:
            if (vi, vk) not in edits:
                continue
            for vj in vertices:
                if (vk, vj) not in edits:
                    continue
                d = weights[(vi, vk)] + weights[(vk, vj)]
                if d < weights.get((vi, vj), INF):
                    merged = _merge_edit(edits[(vi, vk)], edits[(vk, vj)])
                    if merged[5] <= max_unchanged:
                        edges.append((vi, vj))
                        weights[(vi, vj)] = d
                        edits[(vi, vj)] = merged
    # The reference removes merged no-op arcs while iterating the same list,
    # so the element after each removed one is never looked at.
    for edge in edges:
        e = edits[edge]
        if e[0] == "noop" and weights[edge] > 1:
            edges.remove(edge)
            weights[edge] = INF
            del edits[edge]


def _gold_match(edit, gold, ignore_case_ws: bool) -> bool:
    start, end, orig, corr = edit
    if (start, end, orig) != (gold[0], gold[1], gold[2]):
        return False
    if corr in gold[3]:
        return True
    return ignore_case_ws and any(_norm(corr) == _norm(c) for c in gold[3])


def _norm(s: str) -> str:
    return s.replace(" ", "").lower()


@dataclass
class RefSentence:
    annotator: int
    tp: int
    proposed: int
    gold: int
    edits: list


def reference_sentence_edits(source: str, hyp: str, gold: list, *, max_unchanged: int = 2):
    """The system edit sequence chosen against one annotator's gold edits."""
    src, cand = source.split(), hyp.split()
    g1 = _graph(*_matrix(src, cand, 1))
    g2 = _graph(*_matrix(src, cand, 2))
    vertices = sorted(set(g1[0]) | set(g2[0]))
    edges = sorted(g1[1] + g2[1])
    weights = {**g2[2], **g1[2]}
    edits = {**g2[3], **g1[3]}
    _transitive(vertices, edges, weights, edits, max_unchanged)
    return _best_sequence(vertices, edges, weights, edits, gold)


def _best_sequence(vertices, edges, weights, edits, gold):
    # Weights as the reference's numbers require: a gold-matching arc
    # -len(E), a no-op arc 0, any other arc 1 however many tokens it spans.
    local = {}
    for edge in edges:
        e = edits[edge]
        if any(_gold_match((e[1], e[2], e[3], e[4]), g, False) for g in gold):
            local[edge] = -len(edges)
        else:
            local[edge] = 0 if e[0] == "noop" else 1
    dist = dict.fromkeys(vertices, INF)
    dist[(0, 0)] = 0
    path: dict = {}
    for _ in range(len(vertices) - 1):
        changed = False
        for u, v in edges:
            if dist[u] + local[(u, v)] < dist[v]:
                dist[v] = dist[u] + local[(u, v)]
                path[v] = u
                changed = True
        if not changed:
            break  # later rounds would change nothing either
    seq = []
    v = vertices[-1]
    while v in path:
        u = path[v]
        e = edits[(u, v)]
        if e[0] != "noop":
            seq.append((e[1], e[2], e[3], e[4]))
        v = u
    return seq


def reference_score(
    hyps: list[str],
    sources: list[str],
    golds: list[dict[int, list]],
    *,
    beta: float = 0.5,
    max_unchanged: int = 2,
    ignore_whitespace_casing: bool = False,
):
    """Corpus (p, r, f) and per-sentence choices. ``golds[i]``: annotator -> [(start, end, orig, (corr, ...))]."""
    correct = proposed = total_gold = 0.0
    sq = beta * beta
    details = []
    for hyp, source, gold_set in zip(hyps, sources, golds):
        src, cand = source.split(), hyp.split()
        g1 = _graph(*_matrix(src, cand, 1))
        g2 = _graph(*_matrix(src, cand, 2))
        vertices = sorted(set(g1[0]) | set(g2[0]))
        edges = sorted(g1[1] + g2[1])
        weights = {**g2[2], **g1[2]}
        edits = {**g2[3], **g1[3]}
        _transitive(vertices, edges, weights, edits, max_unchanged)
        best = None
        f_max, c_max, p_min, g_min = -1.0, -1.0, INF, INF
        for annotator in sorted(gold_set):
            gold = gold_set[annotator]
            seq = _best_sequence(vertices, edges, weights, edits, gold)
            if ignore_whitespace_casing:
                seq = [e for e in seq if _norm(e[2]) != _norm(e[3])]
            tp = sum(1 for e in seq for g in gold if _gold_match(e, g, ignore_whitespace_casing))
            c, p, g = correct + tp, proposed + len(seq), total_gold + len(gold)
            try:
                f = (1.0 + sq) * c / (sq * g + p)
            except ZeroDivisionError:
                f = 1.0 if c == 0 else 0.0
            if (
                f_max < f
                or (f_max == f and c_max < c)
                or (f_max == f and c_max == c and p_min + sq * g_min > p + sq * g)
            ):
                best = RefSentence(annotator, tp, len(seq), len(gold), seq)
                f_max, c_max, p_min, g_min = f, c, p, g
        correct += best.tp
        proposed += best.proposed
        total_gold += best.gold
        details.append(best)
    p = correct / proposed if proposed else 1.0
    r = correct / total_gold if total_gold else 1.0
    try:
        f = (1.0 + sq) * p * r / (sq * p + r)
    except ZeroDivisionError:
        f = 0.0
    return p, r, f, details
