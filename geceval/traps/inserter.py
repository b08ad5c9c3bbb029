"""Rule-based error insertion: GMEG-style "Source+error" trap sentences.

GMEG (Napoles et al. 2019) mixes into every PRWS screen a copy of the source
with errors added ("Source+error"); a worker who does not rate it below the
source is not reading. This module makes such traps for any corpus: it
inserts one or two typed errors into a sentence with a seeded
``random.Random`` and records every insertion with its type.

Error types (:data:`ERROR_TYPES`, named after ERRANT's categories so a
researcher can check the inserted edits with ERRANT):

``VERB:SVA``   subject-verb agreement: is<->are, was<->were, has<->have,
               does<->do, isn't<->aren't ...; a verb's 3rd-person -s added
               after I/you/we/they or a plural noun, removed after
               he/she/it or a singular noun.
``DET``        determiner: a/an/the deleted; a<->an swapped; "a" inserted
               before a plural noun, "the" before my/your/his/our/their.
``PREP``       preposition swapped for another (in/on/at/of/for/to/with/...).
``VERB:FORM``  another form of the same verb (go/goes/went/gone/going, from a
               small irregular table plus the regular rules), chosen so that
               the form is wrong in its context: a non-base form after a
               modal, "to" or do-support ("will went"); base/past after a
               form of be ("is go"); base/-ing after have ("have go"); -ing
               or participle after a subject pronoun ("I going").
``NOUN:NUM``   noun number where agreement makes it wrong: singular->plural
               after a/one/each/this or before is/was/has ("a friends"),
               plural->singular after these/many/two... or before
               are/were/have; an uncountable noun made plural
               ("informations", "advices").
``WO``         word order: two adjacent words swapped.
``SPELL``      one character deleted, duplicated, substituted, or two adjacent
               letters transposed, inside a word of at least 3 letters.
``PUNCT``      sentence-final . ! ? dropped; a comma dropped; a comma
               inserted after a function word ("in , the crowds").

The word lists are small and our own (no tagger: the inserter must be fast
and dependency-free), so a rule fires only in the narrow contexts above where
its result is very likely ungrammatical. Preposition swaps, comma drops and
determiner deletions can occasionally give an acceptable sentence; GMEG's own
traps have the same property.

Tokens and text: the sentence is split at whitespace (``str.split``). Rules
read a token as leading punctuation + core + trailing punctuation, so both
tokenised ("letter .") and untokenised ("letter.") English work; edits keep
the punctuation attached to a word. The output is the tokens joined by
single spaces (whitespace is normalised).

Edits: ``InsertedEdit(type, start, end, original, inserted)``. ``start`` and
``end`` are whitespace-token offsets in the OUTPUT: ``output.split()[start:end]``
are exactly the tokens of ``inserted`` (``start == end`` for a deletion).
``original`` is the source text that was replaced (tokens joined by single
spaces; ``""`` for a pure insertion). Edits are sorted by ``start``, never
overlap and never touch each other; so replacing each edit's output span by
its ``original`` gives back the whitespace-normalised source.

Guarantees: the output is never equal to the source, also not after
whitespace normalisation. Where no rule of the allowed types applies (or
the rules' edits happen to cancel out) a character-level ``SPELL`` edit is
used, whatever ``types`` says; a line with no word of 3 letters gets one
character of one token doubled ("a" -> "aa", "!" -> "!!"). An empty or
whitespace-only sentence becomes "." (one ``PUNCT`` insertion).

Determinism: every choice comes from ``random.Random(seed)`` built per call
(no global state; word lists are tuples, never sets, so the choices do not
depend on ``PYTHONHASHSEED``). ``seed`` may be an int or a string; ``5`` and
``"5"`` are the same seed. For a file, line ``i`` uses :func:`line_seed`
``(seed, i)``, so a line's trap depends only on the seed, its index and its
own text.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from geceval.progress import ProgressFn
from geceval.traps.rules import RULES, Cand, parse_token, spell_candidates

ERROR_TYPES: tuple[str, ...] = ("VERB:SVA", "DET", "PREP", "VERB:FORM", "NOUN:NUM", "WO", "SPELL", "PUNCT")

TYPE_DESCRIPTIONS: dict[str, str] = {
    "VERB:SVA": "subject-verb agreement",
    "DET": "determiner deleted, inserted or a/an swapped",
    "PREP": "preposition swapped",
    "VERB:FORM": "wrong verb form",
    "NOUN:NUM": "wrong noun number",
    "WO": "adjacent words swapped",
    "SPELL": "character-level spelling error",
    "PUNCT": "punctuation dropped or inserted",
}


@dataclass(frozen=True)
class InsertedEdit:
    """One inserted error; ``start``/``end`` are whitespace-token offsets in the output."""

    type: str
    start: int
    end: int
    original: str
    inserted: str

    def to_dict(self) -> dict[str, str | int]:
        return asdict(self)


@dataclass(frozen=True)
class TrapResult:
    """The altered sentence (tokens joined by single spaces) and its edits sorted by ``start``."""

    text: str
    edits: list[InsertedEdit]

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "edits": [e.to_dict() for e in self.edits]}


# --------------------------------------------------------------------------- insertion


def line_seed(seed: int | str, index: int) -> str:
    """The seed of line ``index`` (0-based) of a file inserted with ``seed``."""
    return f"{seed}/{index}"


def _free(cand: Cand, spans: list[tuple[int, int]]) -> bool:
    """The candidate neither overlaps nor touches an earlier edit (whose spans are output spans)."""
    return all(cand.end < s or cand.start > e for s, e in spans)


def _char_fallback(tokens: list[str], rng: random.Random) -> tuple[list[str], InsertedEdit]:
    cands = spell_candidates([parse_token(t) for t in tokens])
    if cands:
        cand = rng.choice(cands)
        k, new = cand.start, cand.build(rng)[0]
    else:
        k = rng.randrange(len(tokens))
        j = rng.randrange(len(tokens[k]))
        new = tokens[k][:j] + tokens[k][j] + tokens[k][j:]
    out = [*tokens[:k], new, *tokens[k + 1 :]]
    return out, InsertedEdit("SPELL", k, k + 1, tokens[k], new)


def _attempt(
    tokens: list[str], rng: random.Random, n_errors: int, types: Sequence[str]
) -> tuple[list[str], list[InsertedEdit]]:
    current = list(tokens)
    edits: list[InsertedEdit] = []
    for _ in range(n_errors):
        toks = [parse_token(t) for t in current]
        spans = [(e.start, e.end) for e in edits]
        available: dict[str, list[Cand]] = {}
        for name in types:
            cands = [c for c in RULES[name](toks) if _free(c, spans)]
            if cands:
                available[name] = cands
        if not available:
            break
        used = {e.type for e in edits}
        fresh = [name for name in available if name not in used]
        name = rng.choice(fresh or list(available))
        cand = rng.choice(available[name])
        new = cand.build(rng)
        old = current[cand.start : cand.end]
        if new == old:
            continue
        delta = len(new) - (cand.end - cand.start)
        edits = [
            e
            if e.end < cand.start
            else InsertedEdit(e.type, e.start + delta, e.end + delta, e.original, e.inserted)
            for e in edits
        ]
        edits.append(InsertedEdit(name, cand.start, cand.start + len(new), " ".join(old), " ".join(new)))
        current[cand.start : cand.end] = new
    return current, sorted(edits, key=lambda e: e.start)


def insert_errors(
    sentence: str,
    *,
    seed: int | str,
    n_errors: int | None = None,
    types: Sequence[str] | None = None,
) -> TrapResult:
    """Insert ``n_errors`` (1 or 2; drawn by the rng when None) typed errors into ``sentence``.

    ``n_errors`` is an upper bound: when the first edit leaves no free place
    for a second rule (edits never overlap or touch), one edit is returned.

    ``types`` restricts the grammatical rules (names from :data:`ERROR_TYPES`);
    the ``SPELL`` fallback is used when none of them applies. See the module
    docstring for the edit offsets and guarantees.
    """
    if n_errors is not None and n_errors not in (1, 2):
        raise ValueError(f"n_errors must be 1 or 2, not {n_errors!r}")
    chosen = tuple(ERROR_TYPES if types is None else types)
    unknown = [t for t in chosen if t not in ERROR_TYPES]
    if unknown or not chosen:
        raise ValueError(f"unknown error types {unknown}; choose from {', '.join(ERROR_TYPES)}")
    rng = random.Random(str(seed))
    tokens = sentence.split()
    if not tokens:
        return TrapResult(".", [InsertedEdit("PUNCT", 0, 1, "", ".")])
    n = n_errors if n_errors is not None else rng.choice((1, 2))
    for _ in range(3):
        out, edits = _attempt(tokens, rng, n, chosen)
        if edits and out != tokens:
            return TrapResult(" ".join(out), edits)
    out, edit = _char_fallback(tokens, rng)
    return TrapResult(" ".join(out), [edit])


def insert_errors_lines(
    lines: Iterable[str],
    *,
    seed: int | str,
    n_errors: int | None = None,
    types: Sequence[str] | None = None,
    progress: ProgressFn | None = None,
) -> list[TrapResult]:
    """One trap per line; line ``i`` uses :func:`line_seed` ``(seed, i)``, independent of the others."""
    lines = list(lines)
    results = []
    for i, line in enumerate(lines):
        results.append(insert_errors(line, seed=line_seed(seed, i), n_errors=n_errors, types=types))
        if progress is not None and (i + 1 == len(lines) or (i + 1) % 1000 == 0):
            progress(i + 1, len(lines))
    return results
