"""MaxMatch (M2) scorer: exact numbers of m2scorer 3.2, in linear-ish time.

The reading (Dahlmeier & Ng 2012, "Better evaluation for grammatical error
correction", and the behaviour of the m2scorer 3.2 tool that printed the
published numbers):

1. Tokens are ``str.split()`` of the source (M2 ``S`` line) and hypothesis.
2. The edit lattice is the union of all optimal token Levenshtein alignments
   under two cost schemes (insert/delete 1, substitute 1; and substitute 2),
   a vertex being a cell ``(i, j)`` of the matrices. A diagonal step between
   equal tokens is a no-op carrying one unchanged word.
3. Merged arcs ("transitive arcs") are added the way the reference's
   Floyd-Warshall loop adds them: for each intermediate vertex ``k`` in
   sorted order, each arc ``x -> k`` and base edge ``k -> y`` give a candidate
   ``x -> y`` of distance ``d(x,k) + 1``, kept when it is strictly shorter than
   the stored arc and has at most ``max_unchanged_words`` unchanged tokens
   (so the stored arc is the first shortest *valid* candidate). Merged no-op
   arcs are then removed, but the reference removes them from the list it is
   iterating, so the arc right after each removed one survives; we reproduce
   that, since a surviving no-op arc can change which later edits merge.
4. For each annotator, arcs matching a gold edit (same span, same original,
   correction among the ``||`` alternatives) get weight ``-len(E)``, others
   their distance. The reference runs Bellman-Ford over the edge list (base
   edges sorted by source, then merged arcs in the order they were created),
   updating only on strict improvement; with equal-cost paths that order
   decides whether neighbouring system edits come out merged or split (it
   changes P). We reproduce the result exactly without |V| passes: a pass over
   base edges is a topological DP; in the pass over merged arcs only gold
   arcs and arcs leaving a vertex that improved in that same pass can improve
   anything, and the first arc in list order wins ties. A sentence whose
   annotators have no gold arc of more than one step needs no merged arc at
   all, which is what makes the 408-token blow-up sentence take milliseconds.
5. The path's non-no-op edits are the system edits; each counts once per gold
   edit it matches (duplicated gold edits count twice, as in the reference).
   Per sentence the annotator maximising the running corpus F_beta is chosen,
   ties broken by more true positives, then by fewer ``proposed + beta² *
   gold``; annotators are visited in increasing id order and only those
   present in the block (a ``noop`` line makes an annotator present).
6. P = tp/proposed (1 when nothing is proposed), R = tp/gold (1 when there is
   no gold edit), F from P and R (0 when both are 0).

``ignore_whitespace_casing`` (the reference's option of the same name)
drops system edits whose original and correction are equal once spaces are
removed and case is folded, and lets a correction match a gold alternative
under the same folding; the lattice weights still use exact matching.

Insertions before the first source token are placed at offset 0 (the fixed
behaviour of the published scorer; older copies used the hypothesis index).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Sentence, read_m2
from geceval.formats.text import read_lines
from geceval.progress import ProgressFn

INF = float("inf")

# A gold edit as the reference compares it: (start, end, original, corrections).
GoldEdit = tuple[int, int, str, tuple[str, ...]]
# A system edit: (start, end, original, correction).
SysEdit = tuple[int, int, str, str]

_DIAG, _DEL, _INS = 1, 2, 4


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

    def __init__(self, lat: _Lattice, max_unchanged: int) -> None:
        W = lat.W
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
        del W


class _GoldIndex:
    def __init__(self, gold: list[GoldEdit]) -> None:
        self.by_span: dict[tuple[int, int, str], set[str]] = {}
        for start, end, orig, corrs in gold:
            self.by_span.setdefault((start, end, orig), set()).update(corrs)

    def matches(self, edit: SysEdit) -> bool:
        corrs = self.by_span.get(edit[:3])
        return corrs is not None and edit[3] in corrs


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
    the system edits). ``max_lattice_edges`` (off by default) is a guard for
    pathological input: a sentence whose base lattice has more edges and that
    would need the merged-arc pass scores without it (merged gold edits then
    cannot match); such sentences are listed in ``M2Result.guarded``.
    """
    if len(hypotheses) != len(gold):
        raise GecInputError(f"{len(hypotheses)} hypothesis lines for {len(gold)} gold sentences")
    sq = beta * beta
    correct = proposed = total_gold = 0.0
    details: list[M2SentenceScore] = []
    guarded_ids: list[int] = []
    total = len(gold)
    for idx, (hyp, sent) in enumerate(zip(hypotheses, gold)):
        lat = _Lattice(sent.tokens, hyp.split())
        golds = gold_edits(sent)
        best: M2SentenceScore | None = None
        best_counts = (0, 0, 0)
        f_max, c_max, p_min, g_min = -1.0, -1.0, INF, INF
        cache: dict[tuple, list[SysEdit]] = {}
        arcs: _Arcs | None = None
        for annotator in sorted(golds):
            g = golds[annotator]
            key = tuple(sorted(g))
            if key not in cache:
                if arcs is None:
                    arcs = _Arcs(lat, max_unchanged_words)
                cache[key] = _best_edits(lat, arcs, g)
            edits = cache[key]
            if ignore_whitespace_casing:
                edits = [e for e in edits if _fold(e[2]) != _fold(e[3])]
            tp = _count_matches(edits, g, ignore_whitespace_casing)
            c, p, gl = correct + tp, proposed + len(edits), total_gold + len(g)
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
                best_counts = (tp, len(edits), len(g))
                best = M2SentenceScore(annotator, tp, len(edits) - tp, len(g) - tp, edits)
        assert best is not None
        correct += best_counts[0]
        proposed += best_counts[1]
        total_gold += best_counts[2]
        if sentence:
            details.append(best)
        if progress is not None:
            progress(idx + 1, total)
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


def _is_m2_file(path: str) -> bool:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
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
