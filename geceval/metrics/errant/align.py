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
    from rapidfuzz.distance import Indel

    open_pos = {POS.ADJ, POS.ADV, POS.NOUN, POS.VERB}
    normalized_distance = Indel.normalized_distance
    o_orth = [t.orth for t in orig]
    c_orth = [t.orth for t in cor]
    o_low = [t.lower for t in orig]
    c_low = [t.lower for t in cor]
    o_lemma = [t.lemma for t in orig]
    c_lemma = [t.lemma for t in cor]
    o_pos = [t.pos for t in orig]
    c_pos = [t.pos for t in cor]
    o_text = [t.text for t in orig]
    c_text = [t.text for t in cor]
    o_len, c_len = len(o_orth), len(c_orth)

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
        above, here, op_row = cost[i], cost[i + 1], ops[i + 1]
        orth_i, low_i, lemma_i, pos_i, text_i = o_orth[i], o_low[i], o_lemma[i], o_pos[i], o_text[i]
        pos_i_open = pos_i in open_pos
        for j in range(c_len):
            if orth_i == c_orth[j]:
                here[j + 1] = above[j]
                op_row[j + 1] = "M"
                continue
            del_cost = above[j + 1] + 1
            ins_cost = here[j] + 1
            trans_cost = _INF
            # errant's get_sub_cost, its values and additions in its order
            if low_i == c_low[j]:
                sub = 0
            else:
                lemma_cost = 0 if lemma_i == c_lemma[j] else 0.499
                pos_j = c_pos[j]
                if pos_i == pos_j:
                    pos_cost = 0
                elif pos_i_open and pos_j in open_pos:
                    pos_cost = 0.25
                else:
                    pos_cost = 0.5
                sub = lemma_cost + pos_cost + normalized_distance(text_i, c_text[j])
            sub_cost = above[j] + sub
            k = 1
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
