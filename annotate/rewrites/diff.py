"""Word-level diff of a rewrite against its source, for the review pages (static/js/word_diff.js runs the same algorithm live)."""

from __future__ import annotations

from difflib import SequenceMatcher


def word_diff(source: str, target: str) -> list[tuple[str, str]]:
    """``[(op, text)]`` with op in {"same", "del", "ins"}: deletions before insertions, as the papers print them."""
    a, b = source.split(), target.split()
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("same", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("del", " ".join(a[i1:i2])))
        if j2 > j1:
            out.append(("ins", " ".join(b[j1:j2])))
    return out
