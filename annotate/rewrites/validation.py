"""Validation of rewrites typed by workers: the messages are shown to them as they are."""

from __future__ import annotations

import difflib
import unicodedata

from annotate.rewrites.tokens import retokenise

MAX_REWRITE_CHARS = 2000
# Invisible characters that change nothing a reader sees but break token comparison.
_INVISIBLE = (
    {"\u200b", "\u200e", "\u200f", "\ufeff", "\u2060"}
    | {chr(c) for c in range(0x202A, 0x202F)}
    | {chr(c) for c in range(0x2066, 0x206A)}
)


class RewriteError(ValueError):
    """Input a worker or researcher can fix; ``str()`` is the message to show them."""


# --------------------------------------------------------------------------- validation


def max_rewrite_chars(source: str) -> int:
    """3x the source plus 200 characters, capped at 2000 (unless the source itself is longer)."""
    return max(min(3 * len(source) + 200, MAX_REWRITE_CHARS), len(source) + 200)


def rewrite_clean(text: str, *, source: str, tokenized: bool) -> str:
    """Validate and normalise a rewrite: NFC, one line, single spaces, tokenised like the source."""
    if not isinstance(text, str):
        raise RewriteError("The rewrite must be text.")
    text = unicodedata.normalize("NFC", text)
    for ch in text:
        if ch in "\r\n":
            raise RewriteError(
                "A rewrite is one line: remove the line break (use the MERGE flag to join sentences)."
            )
        if unicodedata.category(ch) == "Cc" or ch in _INVISIBLE:
            raise RewriteError(
                f"The rewrite contains a control or invisible character (U+{ord(ch):04X}); remove it."
            )
    if not text.strip():
        raise RewriteError("The rewrite is empty: write the corrected sentence, or choose a flag.")
    limit = max_rewrite_chars(source)
    if len(text) > limit:
        raise RewriteError(
            f"The rewrite is too long ({len(text)} characters; at most {limit} for this sentence)."
        )
    if tokenized:
        return retokenise(text, source=" ".join(source.split()))
    return " ".join(text.split())


def far_from_sentence(text: str, *, source: str, length_ratio: float, edit_rate: float) -> str:
    """Why a rewrite is far from its sentence, or ``""`` when it is not (the campaign's thresholds).

    Far: more than ``length_ratio`` times longer or shorter than the sentence
    in tokens, or more than ``edit_rate`` of the sentence's tokens changed
    (not kept, in order, by the longest matching blocks).
    """
    src, out = source.split(), text.split()
    if not src or not out:
        return ""
    longer = max(len(out) / len(src), len(src) / len(out))
    if longer > length_ratio:
        return (
            f"it has {len(out)} words for a sentence of {len(src)} "
            f"(more than {length_ratio:g} times {'longer' if len(out) > len(src) else 'shorter'})"
        )
    matcher = difflib.SequenceMatcher(None, src, out, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    changed = (len(src) - kept) / len(src)
    if changed > edit_rate:
        return f"it changes {changed:.0%} of the sentence's words (more than {edit_rate:.0%})"
    return ""


def _difficulty(value: object) -> int | None:
    if value in (None, ""):
        return None
    try:
        number = int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise RewriteError("Difficulty is a whole number from 1 to 5.") from None
    if not 1 <= number <= 5 or isinstance(value, bool):
        raise RewriteError("Difficulty is a whole number from 1 to 5.")
    return number


def _seconds(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < 86400 else None
