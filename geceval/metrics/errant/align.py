"""ERRANT's linguistic alignment, the same matrices as ``errant.alignment.Alignment.align`` made faster.

``errant`` 3.0.2 fills its Damerau-Levenshtein matrices cell by cell in pure Python, indexing the
spaCy ``Doc`` (a new ``Token`` object on every access) and calling a method for each substitution
cost: on a shared task (12 CoNLL-14 systems, about 7,200 changed lines) that alignment was about
half of ERRANT's CPU, more than spaCy's parsing. This module reads each token's attributes once
into lists and runs the same recurrence on them:

- a match (same ``orth``) copies the diagonal;
- otherwise the costs, in errant's order ``[transposition, substitution, insertion, deletion]``,
  the first cheapest winning ties; the substitution cost is errant's ``get_sub_cost`` (0 when the
  lower-cased forms agree, else ``lemma_cost + pos_cost + char_cost`` added in that order, with
  rapidfuzz's ``Indel.normalized_distance`` for the characters), and a transposition walks the
  diagonal back while it holds no match, comparing the sorted lower-cased tokens.

Every operation, and every float and the order it is added in, is errant's, so the cost and
operation matrices are equal cell for cell (tests/core/test_errant_align_parity.py compares them
with errant's own on the CoNLL-14 and JFLEG references and system outputs). The matrices go into an
``errant`` ``Alignment``, so merging and classification are errant's own code.
"""

from __future__ import annotations

from typing import Any

_INF = float("inf")


def alignment_matrices(orig: Any, cor: Any) -> tuple[list[list[float]], list[list[str]]]:
    """errant's ``Alignment.align(lev=False)`` of two spaCy docs: (cost matrix, op matrix)."""
    import spacy.parts_of_speech as POS  # lazy: spaCy is the optional [errant] extra

    open_pos = [POS.ADJ, POS.ADV, POS.NOUN, POS.VERB]
    o_orth = [t.orth for t in orig]
    c_orth = [t.orth for t in cor]
    o_low = [t.lower for t in orig]
    c_low = [t.lower for t in cor]
    o_lemma = [t.lemma for t in orig]
    c_lemma = [t.lemma for t in cor]
    o_pos = [t.pos for t in orig]
    c_pos = [t.pos for t in cor]
    o_len, c_len = len(o_orth), len(c_orth)
    subs = _substitution_costs(
        (o_low, o_lemma, o_pos, [t.text for t in orig]),
        (c_low, c_lemma, c_pos, [t.text for t in cor]),
        open_pos,
    )
    # where each lower-cased form first occurs: a transposition ending at (i, j) permutes
    # o_low[i-k..i] into c_low[j-k..j], so it needs o_low[i] among c_low[..j] and c_low[j] among
    # o_low[..i]; where either is missing errant's walk finds none, and it is skipped
    o_first: dict[int, int] = {}
    for i, low in enumerate(o_low):
        o_first.setdefault(low, i)
    c_first: dict[int, int] = {}
    for j, low in enumerate(c_low):
        c_first.setdefault(low, j)

    cost = [[0.0] * (c_len + 1) for _ in range(o_len + 1)]
    ops = [["O"] * (c_len + 1) for _ in range(o_len + 1)]
    for i in range(1, o_len + 1):
        cost[i][0] = cost[i - 1][0] + 1
        ops[i][0] = "D"
    row0 = cost[0]
    for j in range(1, c_len + 1):
        row0[j] = row0[j - 1] + 1
        ops[0][j] = "I"

    for i in range(o_len):
        above, here, op_row, sub_row = cost[i], cost[i + 1], ops[i + 1], subs[i]
        orth_i, low_i = o_orth[i], o_low[i]
        low_i_from = c_first.get(low_i, c_len)
        for j in range(c_len):
            if orth_i == c_orth[j]:
                here[j + 1] = above[j]
                op_row[j + 1] = "M"
                continue
            del_cost = above[j + 1] + 1
            ins_cost = here[j] + 1
            trans_cost = _INF
            sub_cost = above[j] + sub_row[j]
            k = 1
            if low_i_from <= j and o_first.get(c_low[j], o_len) <= i:
                while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                    if sorted(o_low[i - k : i + 1]) == sorted(c_low[j - k : j + 1]):
                        trans_cost = cost[i - k][j - k] + k
                        break
                    k += 1
            # the first cheapest of [transposition, substitution, insertion, deletion]
            best = min(trans_cost, sub_cost, ins_cost, del_cost)
            here[j + 1] = best
            if trans_cost == best:
                op_row[j + 1] = "T" + str(k + 1)
            elif sub_cost == best:
                op_row[j + 1] = "S"
            elif ins_cost == best:
                op_row[j + 1] = "I"
            else:
                op_row[j + 1] = "D"
    return cost, ops


def _substitution_costs(
    orig: tuple[list[int], list[int], list[int], list[str]],
    cor: tuple[list[int], list[int], list[int], list[str]],
    open_pos: list[int],
) -> list[list[float]]:
    """errant's ``get_sub_cost`` for every (orig token, cor token): 0 when the lower-cased forms
    agree, else ``lemma_cost + pos_cost + char_cost`` added in that order (float64, as Python adds
    them), the character costs from rapidfuzz's ``Indel.normalized_distance`` in one ``cdist``."""
    import numpy as np
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cdist

    (o_low, o_lemma, o_pos, o_text), (c_low, c_lemma, c_pos, c_text) = orig, cor
    if not o_low or not c_low:
        return [[] for _ in o_low]
    chars = cdist(o_text, c_text, scorer=Indel.normalized_distance, dtype=np.float64)
    lemma = np.where(np.equal.outer(np.array(o_lemma, np.uint64), np.array(c_lemma, np.uint64)), 0.0, 0.499)
    op, cp = np.array(o_pos, np.int64), np.array(c_pos, np.int64)
    both_open = np.logical_and.outer(np.isin(op, open_pos), np.isin(cp, open_pos))
    pos = np.where(np.equal.outer(op, cp), 0.0, np.where(both_open, 0.25, 0.5))
    sub = (lemma + pos) + chars
    sub[np.equal.outer(np.array(o_low, np.uint64), np.array(c_low, np.uint64))] = 0.0
    return sub.tolist()


def alignment(orig: Any, cor: Any) -> Any:
    """An ``errant`` ``Alignment`` of two docs (linguistic costs), its matrices from
    :func:`alignment_matrices`."""
    from errant.alignment import Alignment  # lazy: errant is the optional [errant] extra

    aligned = Alignment.__new__(Alignment)
    aligned.orig, aligned.cor = orig, cor
    aligned.cost_matrix, aligned.op_matrix = alignment_matrices(orig, cor)
    aligned.align_seq = aligned.get_cheapest_align_seq()
    return aligned


def annotate(annotator: Any, orig: Any, cor: Any) -> list[Any]:
    """``annotator.annotate(orig, cor)`` (linguistic alignment, rule-based merging), with this
    module's alignment: errant's merger and classifier on the same alignment."""
    edits = annotator.merge(alignment(orig, cor), "rules")
    for edit in edits:
        annotator.classify(edit)
    return edits
