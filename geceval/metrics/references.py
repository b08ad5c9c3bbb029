"""Text references to M2: one annotator id per reference (0..N-1).

``align="errant"``
    Typed edits from ERRANT (see :mod:`geceval.metrics.errant.annotation`): the same
    annotation ``errant_parallel`` gives for pretokenised text, cached and
    batched; the source and each reference are parsed once.

``align="levenshtein"``
    Untyped edits, as Sakaguchi et al. (2016) made M2 for references without
    error annotation. Tokens are the whitespace-split line. A token-level
    Levenshtein alignment with unit costs for substitution, insertion and
    deletion (case-sensitive token equality) is traced back from the end,
    preferring on ties the diagonal step (match or substitution), then a
    deletion, then an insertion; then every maximal run of adjacent non-match
    operations becomes ONE edit (m2scorer-style converters merge the same way;
    the JFLEG ``m2converter`` instead splits a replacement into a deletion and
    an insertion). A run covering source tokens ``i..j-1`` and reference tokens
    ``k..l-1`` is ``A i j|||X|||ref[k:l]``. Every edit has the dummy type
    :data:`LEVENSHTEIN_TYPE` (``"X"``: it is neither an ERRANT type nor has an
    operation prefix, so ERRANT's per-category table lists it apart).

In both modes a reference whose tokens equal the source's (or that yields no
edit) gives the annotator a ``noop`` line, so each annotator is present in each
block. ``S`` lines are the source tokens joined by single spaces.
"""

from __future__ import annotations

from collections.abc import Sequence

from geceval.errors import GecInputError
from geceval.formats.m2 import M2Edit, M2Sentence
from geceval.metrics.errant.annotation import errant_annotate_references
from geceval.progress import ProgressFn, no_progress

LEVENSHTEIN_TYPE = "X"
ALIGNMENTS = ("errant", "levenshtein")


def levenshtein_edits(source: Sequence[str], target: Sequence[str]) -> list[tuple[int, int, list[str]]]:
    """Merged non-match runs ``(start, end, target_tokens)`` of a unit-cost token alignment."""
    n, m = len(source), len(target)
    # dist[i][j]: distance between source[:i] and target[:j]
    dist = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        dist[0][j] = j
    for i in range(1, n + 1):
        row, prev = dist[i], dist[i - 1]
        row[0] = i
        s = source[i - 1]
        for j in range(1, m + 1):
            diag = prev[j - 1] + (0 if s == target[j - 1] else 1)
            row[j] = min(diag, prev[j] + 1, row[j - 1] + 1)
    # Trace back: ops as (kind, i, j) with kind in "=", "S", "D", "I", from the end.
    ops: list[tuple[str, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0:
            same = source[i - 1] == target[j - 1]
            if dist[i][j] == dist[i - 1][j - 1] + (0 if same else 1):
                ops.append(("=" if same else "S", i - 1, j - 1))
                i, j = i - 1, j - 1
                continue
        if i > 0 and dist[i][j] == dist[i - 1][j] + 1:
            ops.append(("D", i - 1, j))
            i -= 1
        else:
            ops.append(("I", i, j - 1))
            j -= 1
    ops.reverse()
    edits: list[tuple[int, int, list[str]]] = []
    run: list[tuple[str, int, int]] = []

    def flush() -> None:
        if not run:
            return
        start = run[0][1]
        end = start + sum(1 for kind, _, _ in run if kind in "SD")
        tokens = [target[jj] for kind, _, jj in run if kind in "SI"]
        edits.append((start, end, tokens))
        run.clear()

    for op in ops:
        if op[0] == "=":
            flush()
        else:
            run.append(op)
    flush()
    return edits


def _levenshtein_m2(source: Sequence[str], references: Sequence[Sequence[str]]) -> list[M2Sentence]:
    out = []
    for i, line in enumerate(source):
        tokens = line.split()
        edits: list[M2Edit] = []
        for k, ref in enumerate(references):
            found = levenshtein_edits(tokens, ref[i].split())
            if not found:
                edits.append(M2Edit(-1, -1, "noop", ("",), k))
            else:
                edits.extend(M2Edit(s, e, LEVENSHTEIN_TYPE, (" ".join(c),), k) for s, e, c in found)
        out.append(M2Sentence(" ".join(tokens), edits, None))
    return out


def references_to_m2(
    source: list[str],
    references: list[list[str]],
    *,
    align: str = "errant",
    progress: ProgressFn = no_progress,
) -> list[M2Sentence]:
    """M2 of N line-aligned references (``references[k][i]`` corrects ``source[i]``).

    ``align`` is ``"errant"`` (typed) or ``"levenshtein"`` (type ``"X"``).
    """
    if align not in ALIGNMENTS:
        raise ValueError(f"align must be one of {ALIGNMENTS}, not {align!r}")
    for k, ref in enumerate(references):
        if len(ref) != len(source):
            raise GecInputError(f"reference {k} has {len(ref)} lines but the source has {len(source)}")
    if align == "levenshtein":
        return _levenshtein_m2(source, references)
    return errant_annotate_references(source, references, progress=progress).m2
