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

``ignore_whitespace_casing`` (the reference's option) drops system edits
whose original and correction are equal once spaces are removed and case is
folded, and lets a correction match a gold alternative under that folding;
the lattice weights still use exact matching.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from geceval.errors import GecInputError
from geceval.formats.inputs import read_input
from geceval.formats.m2 import M2Sentence, read_m2
from geceval.formats.text import read_lines
from geceval.metrics.base import ALIGN, ERRANT_MODEL, ERRANT_PACKAGES, Metric, MetricScore, beta_parameter
from geceval.metrics.m2.lattice import (
    NUMPY_VERTICES,
    Arcs,
    GoldEdit,
    Lattice,
    SysEdit,
    best_edits,
    gold_edits,
)
from geceval.metrics.m2.lattice_np import ArcsNp, best_edits_np
from geceval.metrics.references import references_to_m2
from geceval.progress import ProgressFn, StderrProgress

INF = float("inf")


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
    lattices: dict[tuple, list[Any]] | None = None,
) -> list[M2Candidate]:
    """Per annotator (increasing id), the system edits and matches of ``hyp`` for one gold block.

    Depends on this sentence only, so callers scoring many mixes of the same outputs may cache
    it per (sentence, line); the choice among candidates depends on the running corpus counts
    and is made by ``score_candidates``.

    ``lattices``: a dict the caller keeps while it scores the same line against several gold
    files of the same source (Sakaguchi et al.'s seven reference sets): the edit lattice and its
    arcs depend on the source and the line only (not on the gold) and are read-only once built,
    and an annotator's best edits depend on them and that annotator's gold edits only; so they
    are built once instead of once per gold file (an annotator present in two files, as every
    one of ``ALL.m2``'s is, costs nothing the second time). The caller bounds its size (e.g. one
    sentence at a time).
    """
    tokens = hyp.split()
    golds = gold_edits(sent)
    if tokens == sent.tokens:
        # An unchanged sentence has one alignment of cost 0, the chain of its n no-op steps; every
        # arc built from them is a no-op, so each annotator's path proposes nothing.
        guard = max_lattice_edges is not None and len(tokens) > max_lattice_edges
        return [M2Candidate(a, 0, (), len(golds[a]), guard) for a in sorted(golds)]
    shared = None
    if lattices is not None:
        line_key = (tuple(sent.tokens), tuple(tokens), max_unchanged_words, max_lattice_edges)
        shared = lattices.setdefault(line_key, [None, None, {}])
    if shared is not None and shared[0] is not None:
        lat = shared[0]
    else:
        lat = Lattice(sent.tokens, tokens)
        if shared is not None:
            shared[0] = lat
    # an annotator's best path depends on the lattice and that annotator's gold edits only
    cache: dict[tuple, list[SysEdit]] = {} if shared is None else shared[2]
    arcs: Any = None if shared is None else shared[1]
    guard = max_lattice_edges is not None and lat.n_edges > max_lattice_edges
    out = []
    for annotator in sorted(golds):
        g = golds[annotator]
        key = tuple(sorted(g))
        if key not in cache:
            if arcs is None:
                if guard:
                    arcs = Arcs.empty(lat)
                elif len(lat.order) > NUMPY_VERTICES:
                    arcs = ArcsNp(lat, max_unchanged_words)
                else:
                    arcs = Arcs(lat, max_unchanged_words)
                if shared is not None:
                    shared[1] = arcs
            if isinstance(arcs, ArcsNp):
                cache[key] = best_edits_np(lat, arcs, g)
            else:
                cache[key] = best_edits(lat, arcs, g)
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


def load_gold(args: Any, align: str) -> list[M2Sentence]:
    refs = list(args.refs)
    if len(refs) == 1 and _is_m2_file(refs[0]):
        return read_m2(refs[0])
    if any(_is_m2_file(r) for r in refs):
        raise GecInputError("give either one M2 file or text references, not several M2 files", path=refs[0])
    if not getattr(args, "source", None):
        raise GecInputError("text references need --source to be converted to M2", path=refs[0])
    source_lines = read_lines(args.source)
    reference_lists = [read_lines(r) for r in refs]
    for path, lines in zip(refs, reference_lists):
        if len(lines) != len(source_lines):
            raise GecInputError(f"has {len(lines)} lines but the source has {len(source_lines)}", path=path)
    return references_to_m2(source_lines, reference_lists, align=align)


def hypotheses_for(args: Any, gold: Sequence[M2Sentence]) -> Iterator[tuple[str, list[str]]]:
    """(path, lines) of each ``--hyp`` file, refused unless it has a line per gold sentence."""
    for hyp_path in args.hyp:
        hyp_path = os.fspath(hyp_path)
        lines = read_lines(hyp_path, allow_empty=True)
        if len(lines) != len(gold):
            raise GecInputError(
                f"has {len(lines)} lines but the gold has {len(gold)} sentences", path=hyp_path
            )
        yield hyp_path, lines


def m2_fields(res: M2Result, beta: float) -> dict[str, Any]:
    return {"p": res.p, "r": res.r, "f": res.f, "tp": res.tp, "fp": res.fp, "fn": res.fn, "beta": beta}


def cli_m2(args: Any) -> list[dict[str, Any]]:
    """Adapter for ``python -m geceval score m2``."""
    options = M2.of_args(args).options
    gold = load_gold(args, options["align"])
    beta = float(options["beta"])
    want_sentences = bool(getattr(args, "sentence", False))
    results = []
    for hyp_path, lines in hypotheses_for(args, gold):
        progress = StderrProgress(f"m2 {hyp_path}") if len(gold) >= 200 else None
        res = m2_score(lines, gold, beta=beta, progress=progress, sentence=want_sentences)
        row: dict[str, Any] = {"hyp": hyp_path, "metric": "m2", "score": res.f, **m2_fields(res, beta)}
        if want_sentences and res.sentences is not None:
            row["sentences"] = [s.as_dict() for s in res.sentences]
        results.append(row)
    return results


def m2_gold(
    references: Sequence[Any], source: Sequence[str] | None, *, align: str = "errant"
) -> list[M2Sentence]:
    """M2 gold from a metric object's ``references``: parsed M2 sentences as they are, or one list
    of lines per reference (with ``source``) aligned into edits by ``align``."""
    refs = list(references)
    if refs and isinstance(refs[0], M2Sentence):
        return refs
    if source is None:
        raise GecInputError("text references need the source to be converted to M2")
    src = list(source)
    ref_lines = [list(r) for r in refs]
    for i, lines in enumerate(ref_lines, start=1):
        if len(lines) != len(src):
            raise GecInputError(f"reference {i} has {len(lines)} lines but the source has {len(src)}")
    return references_to_m2(src, ref_lines, align=align)


def n_annotators(gold: Sequence[M2Sentence]) -> int:
    """How many references an M2 gold holds (its annotator ids; at least one)."""
    return max([1, *(e.annotator + 1 for sent in gold for e in sent.edits)])


class M2(Metric):
    """MaxMatch (M2) precision, recall and F-beta, exactly as m2scorer 3.2."""

    name = "m2"
    parameters = (
        beta_parameter(0.5),
        replace(ALIGN, provenance=False),
    )
    packages = ERRANT_PACKAGES
    model = ERRANT_MODEL
    file_adapter = cli_m2

    def _corpus(self, hypotheses: list, references: list, source: list | None, sentence: bool) -> MetricScore:
        gold = m2_gold(references, source, align=self.options["align"])
        beta = float(self.options["beta"])
        res = m2_score(list(hypotheses), gold, beta=beta, sentence=sentence)
        sentences = [s.as_dict() for s in res.sentences] if res.sentences is not None else None
        return self._result(n_annotators(gold), res.f, m2_fields(res, beta), sentences)
