"""Hidden traps: an erroneous version of a text a worker also judges (Appraise's "bad reference").

Two kinds, mixed so that neither "more edits is worse" nor "fewer edits is worse" tells a trap:

``added_error``        the base with 1-2 rule-inserted errors (:mod:`geceval.traps.inserter`);
``undone_correction``  the base with one of its own edits against the source reverted, so the trap
                       is closer to the source than its base (a correction taken back); or every
                       edit reverted, the source itself (:func:`source_trap`).

A trap is checked before use: it differs from its base, from the source and from every text in
``avoid`` (the other candidates of its screen: two identical candidates never share a screen), and
with references it must score at least ``min_drop`` lower than its base on sentence GLEU+ (the
per-sentence score of :func:`geceval.metrics.gleu.plus.gleu_plus`). Without references nothing can say that the
trap is worse (an inserted error can repair a learner's error), so ``quality`` stays None.

With references every trap, whatever the protocol, also passes :func:`careful_guards` (issue 41): nothing
it changes in its base only respells a word the British or American way, and an undone correction is
not half of a move and takes back a correction every careful reader asks for (one some reference
makes and no reference leaves undone, and more than a verb's tense, which the sentence's document
decides). GLEU+ alone took such traps, which a careful worker may rightly
judge as good as their base.

With ``reference_edits`` (issue 41, the edit-level protocol's rule) a trap must also be wrong in the
eyes of a careful worker who judges edits by the references' edits, not by GLEU+: an added error is an
edit (against the source) that no reference and no base (``bases``: the sentence's other texts) makes,
that leaves every correction of its base whole and keeps clear of them (:func:`errors_apart`: else the
screen may show error and correction as one edit);
an undone correction reverts an edit some reference makes, that no reference leaves undone
(:func:`kept_by`), that is not half of a move (:func:`half_of_a_move`) and that does more than respell
a word the British or American way (:func:`spelling_variant`); and the trap is further from its closest
reference than its base is (:func:`reference_errors`: needless or wrong edits plus missed corrections).

A third kind, ``added_correction`` (issue 41, the edit-level protocol only), is a **positive
control**: the base with one correction that most references make (:func:`agreed_corrections`) and
that no candidate of the screen makes, so the trap's one new edit is a lone edit that a careful reader
calls good. Its verdict is the other way round (``BETTER_KINDS``): the new edit must not be marked bad.
A worker who takes every lone edit for an error (the "agreement" strategy: edits other candidates share
are good, lone ones bad) passes every added error, and fails these.

The randomness comes from ``seed``, which callers derive from a secret kept on the server: with the
code and the public data alone nobody can regenerate a campaign's traps.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from geceval.metrics.gleu.plus import GLEU_ORDER, gleu_from_stats, ngram_counts, tokenize
from geceval.traps.inserter import insert_errors

ADDED_ERROR = "added_error"
UNDONE_CORRECTION = "undone_correction"
ADDED_CORRECTION = "added_correction"
TRAP_KINDS = (ADDED_ERROR, UNDONE_CORRECTION)
"""The kinds every protocol mixes: the trap is worse than its base."""
BETTER_KINDS = (ADDED_CORRECTION,)
"""Positive controls: the trap is *better* than its base (one correction the references agree on
added), and the verdict asks the worker not to call that correction bad."""
ALL_KINDS = (*TRAP_KINDS, *BETTER_KINDS)
DEFAULT_MIN_RISE = 0.0
"""What an added correction must gain on sentence GLEU+ over its base (more than this)."""
MIN_DROP_FLOOR = 0.10
"""No campaign may ask less: a trap at least this much worse than its base by sentence GLEU+."""
DEFAULT_MIN_DROP = 0.25
"""What a trap must lose unless the campaign says otherwise. At the floor (0.10) a careful worker who
rates with 15 points of noise fails a third of the weakest traps, and no rule separates them from a
random clicker within 20 traps; at 0.25 (median drop 0.33 on GMEG FCE) the defaults exclude about 1%
of careful workers and nearly every bot (docs/hardening.md, bench/bots.py)."""
DEFAULT_ATTEMPTS = 12
"""Draws before giving up on a base: that base then gets no trap."""


@dataclass(frozen=True)
class Trap:
    text: str
    kind: str
    base_quality: float | None
    quality: float | None
    """Sentence GLEU+ of the base and of the trap against the references (None without references)."""


def normalise(text: str) -> str:
    return " ".join(text.split())


def word_edits(source: str, text: str) -> list[tuple[int, int, int, int]]:
    """The word-level edits turning ``source`` into ``text``: (source start, end, text start, end)."""
    matcher = SequenceMatcher(None, source.split(), text.split(), autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


EditKey = tuple[int, int, tuple[str, ...]]
"""A word-level edit as (source start, source end, the tokens put there)."""


def edit_keys(source: str, text: str) -> set[EditKey]:
    """The word-level edits turning ``source`` into ``text``, each named by what it does to the source."""
    t = text.split()
    return {(i1, i2, tuple(t[j1:j2])) for i1, i2, j1, j2 in word_edits(source, text)}


def reference_errors(source: str, references: Sequence[str], text: str) -> int:
    """A careful reader's count of what is wrong with ``text`` by the references' edits: against the
    closest reference, the edits of ``text`` the reference does not make (needless or wrong) plus the
    reference's edits ``text`` does not make (missed corrections)."""
    mine = edit_keys(source, text)
    return min(len(mine ^ edit_keys(source, r)) for r in references)


def reference_edit_check(
    base: str, trap: str, kind: str, source: str, references: Sequence[str], bases: Iterable[str] = ()
) -> bool:
    """The edit-level rule of issue 41 (module docstring): a careful worker who marks an edit good when
    a reference makes it finds ``trap`` worse than ``base``, and marks its added edits bad; for an
    added correction, ``trap`` is ``base`` with one of :func:`agreed_corrections` added and has fewer
    errors against its closest reference."""
    refs = [r for r in references if r.strip()]
    if not refs:
        return True  # nothing to compare with: the caller's other checks decide
    ref_edits = set().union(*(edit_keys(source, r) for r in refs))
    base_edits, trap_edits = edit_keys(source, base), edit_keys(source, trap)
    if kind == ADDED_CORRECTION:
        added = trap_edits - base_edits
        agreed = set(agreed_corrections(source, refs, base, bases))
        if len(added) != 1 or not added <= agreed or base_edits - trap_edits:
            return False
        return reference_errors(source, refs, trap) < reference_errors(source, refs, base)
    if kind == ADDED_ERROR:
        added = trap_edits - base_edits
        made = ref_edits.union(*(edit_keys(source, b) for b in bases))
        if not added or added & made or not errors_apart(source, base_edits, trap_edits):
            return False
    else:
        undone = base_edits - trap_edits
        if not undone or not undone <= ref_edits or half_of_a_move(source, base, trap):
            return False
        if any(kept_by(source, r, undone) for r in refs) or any(
            spelling_variant(source, edit) for edit in undone
        ):
            return False
    return reference_errors(source, refs, trap) > reference_errors(source, refs, base)


MOVE_REACH = 2
"""Words at most this far apart that an added error and a base edit share (a comma deleted by the base
and inserted by the error two words on) read to ERRANT as one moved word: one edit."""


def errors_apart(source: str, base_edits: set[EditKey], trap_edits: set[EditKey]) -> bool:
    """An added error leaves its base's corrections whole and stands apart from them (issue 41, h50):
    every edit of the base (word-level, against ``source``) is an edit of the trap, and every edit the
    trap adds has at least one unchanged word between it and each base edit (:func:`_apart`), more
    than ``MOVE_REACH`` words when the two share a word. Otherwise the screen's aligner (ERRANT) may
    draw the error and the base's correction as one edit ("in ," in "But all all in , the parties";
    "s" and "'it" of "At home s 'it completely"; "that the ," for a comma the base deleted and the
    error put back two words on), part correction, part error, which a careful reader may call
    neutral or good while the verdict asks for bad; or the error takes back part of a correction
    (a comma the base added, deleted again), which is an undone correction, judged by its own rule."""
    if not base_edits <= trap_edits:
        return False
    s = source.split()

    def words(edit: EditKey) -> set[str]:
        return {w.lower() for w in (*s[edit[0] : edit[1]], *edit[2])}

    for added in trap_edits - base_edits:
        for edit in base_edits:
            if not _apart(added[:2], edit[:2]):
                return False
            between = max(added[0], edit[0]) - min(added[1], edit[1])
            if between <= MOVE_REACH and words(added) & words(edit):
                return False
    return True


def careful_guards(base: str, trap: str, kind: str, source: str, references: Sequence[str]) -> bool:
    """The guards every hidden trap passes, on GLEU+'s rule as on the edit-level one (issue 41: h40
    found three kinds of trap that careful workers rightly fail, by the edit-level rule; PRWS and
    ranking made them too):

    - no edit from ``base`` to ``trap`` only respells words the other side of the Atlantic's way
      (:func:`spelling_variant`: an "added error" that writes "travelling" for "traveling", or an
      undone correction that puts "theatre" back);
    - an undone correction is not half of a move (:func:`half_of_a_move`), and of the edits it takes
      back (word-level, against ``source``) one at least is a correction every careful reader asks
      for: some reference makes it (the same words at the same place), no reference leaves the
      source's words there (:func:`kept_by`), and it does more than respell or change a verb's
      tense (:func:`tense_only`: the sentence is judged without its document). A trap that undoes
      several (the source as the trap, :func:`source_trap`) may undo optional ones beside it. An
      "added error" that only takes corrections back (the inserter can put a source word back) is
      held to this rule too.

    True without references (nothing to judge by: the caller's other checks decide)."""
    refs = [r for r in references if r.strip()]
    if not refs:
        return True
    if any(spelling_variant(base, edit) for edit in edit_keys(base, trap)):
        return False
    trap_edits, base_edits = edit_keys(source, trap), edit_keys(source, base)
    if kind != UNDONE_CORRECTION and not trap_edits <= base_edits:
        return True  # an added error that only takes corrections back is judged as what it is, below
    if half_of_a_move(source, base, trap):
        return False
    made = set().union(*(edit_keys(source, r) for r in refs))
    return any(
        edit in made
        and not spelling_variant(source, edit)
        and not any(kept_by(source, r, {edit}) for r in refs)
        and not tense_only(source, edit)
        for edit in base_edits - trap_edits
    )


def kept_by(source: str, reference: str, edits: set[EditKey]) -> bool:
    """``reference`` leaves the source's words as they are where one of ``edits`` changes them (no edit
    of the reference, word-level, overlaps or touches that span): the correction is optional by that
    reference, and a text that undoes it can rightly be judged as good as the base (issue 41, GMEG dev
    FCE: "traveling" for "travelling", which one reference keeps; "This , again enables" for "This
    again enables", which one reference is). Erring towards "kept" only costs a trap."""
    theirs = [(k1, k2) for k1, k2, _l1, _l2 in word_edits(source, reference)]
    for i1, i2, _words in edits:
        if all(k2 < i1 or k1 > i2 or (i1 < i2 and (k2 == i1 or k1 == i2) and k1 < k2) for k1, k2 in theirs):
            return True
    return False


_SPELLINGS = (
    ("isation", "ization"),
    ("ise", "ize"),
    ("yse", "yze"),
    ("our", "or"),
    ("tre", "ter"),
    ("ogue", "og"),
    ("ence", "ense"),
    ("programme", "program"),
    ("ll", "l"),
)
"""British spellings and their American forms, replaced anywhere in a word: loose on purpose (a
misspelling such as "noize" for "noise" may match too, which only costs a trap)."""


def _spelling(word: str) -> str:
    word = word.lower()
    for british, american in _SPELLINGS:
        word = word.replace(british, american)
    return word


def spelling_variant(source: str, edit: EditKey) -> bool:
    """``edit`` (against ``source``) only respells words as the other side of the Atlantic does
    ("theatre" -> "theater", "travelling" -> "traveling", "organised" -> "organized"): GMEG dev FCE's
    references make 190 such edits, and a careful reader may rightly rank a text that undoes one level
    with its base (issue 41)."""
    i1, i2, words = edit
    old = source.split()[i1:i2]
    return (
        len(old) == len(words) > 0
        and [w.lower() for w in old] != [w.lower() for w in words]
        and [_spelling(w) for w in old] == [_spelling(w) for w in words]
    )


FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
"""Penn tags of finite verbs: past, present, and modals ("can", "could", "will", "would")."""


def tense_only(source: str, edit: EditKey) -> bool:
    """``edit`` (against ``source``) only moves a finite verb between tenses: ERRANT calls every edit
    it makes VERB:TENSE, and every verb on both sides is finite and agrees with its subject
    ("become" -> "became", "can" -> "could", "has" -> "had"; not "He go" -> "He went"). Either tense
    makes a sentence of its own; which one is right is the document's to say, and a worker may see
    the sentence alone. The four judges of Napoles et al. (2015), shown no context, ranked a text
    with such a correction undone level with the text making it in 9 of 12 pairs (three sentences),
    against 8 ties in 96 pairs of every other correction undone (issue 41;
    tests/core/test_traps_real_judges.py). A verb that is not finite on one side ("let it went")
    stays a trap: the sentence alone says it is wrong. Refusing costs a trap, no more: 13 of 650
    undone corrections on GMEG dev FCE. Needs ERRANT (the ``[errant]`` extra), loaded on first use."""
    # lazy: spaCy and the model take seconds to load, and only traps with references ask
    from geceval.metrics.errant.annotation import pair_edits, pair_parses

    i1, i2, words = edit
    if i1 == i2 or not words:  # an insertion or a deletion has no verb on one side
        return False
    s = source.split()
    edited = " ".join([*s[:i1], *words, *s[i2:]])
    edits = pair_edits(source, edited)
    if not edits or not all(kind.endswith("VERB:TENSE") for _s, _e, kind, _c in edits):
        return False
    source_doc, edited_doc = pair_parses(source, edited)
    old = [t for t in source_doc[i1:i2] if t.tag_.startswith(("VB", "MD"))]
    new = [t for t in edited_doc[i1 : i1 + len(words)] if t.tag_.startswith(("VB", "MD"))]
    return bool(old) and bool(new) and all(t.tag_ in FINITE_TAGS and _agrees(t) for t in old + new)


_SINGULAR = frozenset({"he", "she", "it", "this", "that", "one", "everyone", "everybody", "nobody"})
_NOT_SINGULAR = frozenset({"i", "you", "we", "they", "these", "those"})


def _agrees(verb: Any) -> bool:
    """A present-tense ``verb`` (a spaCy token) agrees with its subject ("He go", "friends becomes"
    do not: the sentence alone says they are wrong, whatever the tense). True when there is no
    subject to read, or a singular noun (a collective noun may take a plural verb): erring towards
    "agrees" only costs a trap."""
    subjects = [t for t in verb.children if t.dep_ in ("nsubj", "nsubjpass")]
    if verb.tag_ not in ("VBZ", "VBP") or not subjects:
        return True
    word, tag = subjects[0].lower_, subjects[0].tag_
    # a singular noun may take either ("A couple ... have a son": collective nouns, British usage)
    singular = word in _SINGULAR
    plural = word in _NOT_SINGULAR or tag in ("NNS", "NNPS")
    return not (verb.tag_ == "VBZ" and plural) and not (verb.tag_ == "VBP" and singular)


def half_of_a_move(source: str, base: str, trap: str) -> bool:
    """``trap`` reverts one half of a move in ``base``: a pure deletion or insertion (word-level,
    against ``source``) that the base pairs with an insertion or deletion of the other kind next to
    it (at most one word between) or sharing a word with it, as the aligner splits a correction that
    moves or rewrites a phrase. Undoing that half does not give the source's words back at one place:
    it leaves the source's phrase beside the base's rewrite of it (or drops both), and ERRANT, aligning
    the trap afresh, shows the base's own corrected words as the trap's edit, which a careful reader
    may rightly call good (issue 41: "and apologized to Maria . After that" on GMEG dev FCE, found by
    bench/bots.py). False when ``trap`` is not ``base`` with one edit undone."""
    edits = word_edits(source, base)
    s, b = source.split(), base.split()
    for i1, i2, j1, j2 in edits:
        if normalise(" ".join([*b[:j1], *s[i1:i2], *b[j2:]])) != normalise(trap):
            continue
        if (i1 == i2) == (j1 == j2):
            return False  # a replacement undone (or nothing): the source's words back in place
        mine = set(s[i1:i2] if j1 == j2 else b[j1:j2])
        for k1, k2, l1, l2 in edits:
            if (k1 == k2) == (i1 == i2) or (k1 == k2) == (l1 == l2):
                continue  # the same kind, or not a pure insertion or deletion
            theirs = set(b[l1:l2] if k1 == k2 else s[k1:k2])
            if max(k1, i1) - min(k2, i2) <= 1 or mine & theirs:
                return True
        return False
    return False


def _apart(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two source spans [start, end) with at least one word between them (an insertion is a span of
    no words: next to a changed word it touches it)."""
    return a[1] < b[0] or b[1] < a[0]


def agreed_corrections(
    source: str, references: Sequence[str], base: str, others: Iterable[str] = ()
) -> list[EditKey]:
    """The corrections an added-correction trap may add to ``base`` (issue 41): word-level edits
    against ``source`` that more than half of the references make; in none of them half of a move
    (:func:`half_of_a_move`: made alone, it would drop or double the moved words); more than a British
    or American respelling (:func:`spelling_variant`); one that ``base`` does not make and leaves room
    for (none of its edits overlaps or touches the span); and one whose span no text of ``others``
    (the screen's other candidates) edits or touches either, so that on the screen it is a lone edit
    whichever aligner draws the edits. (The screen shows ERRANT's edits, which can split a word-level
    edit: a candidate writing "casual clothes" for "cassual" shows "casual" as an edit of its own, and
    a worker who calls lone edits bad passed the trap that added just "casual" (CI, 2026-11-27).) In
    source order."""
    refs = [r for r in references if r.strip()]
    if not refs:
        return []
    s = source.split()
    made: dict[EditKey, int] = {}
    moved: set[EditKey] = set()
    for r in refs:
        words = r.split()
        for i1, i2, j1, j2 in word_edits(source, r):
            key = (i1, i2, tuple(words[j1:j2]))
            made[key] = made.get(key, 0) + 1
            if half_of_a_move(source, r, " ".join([*words[:j1], *s[i1:i2], *words[j2:]])):
                moved.add(key)
    spans = [(i1, i2) for text in (base, *others) for i1, i2, _j1, _j2 in word_edits(source, text)]
    return sorted(
        key
        for key, n in made.items()
        if 2 * n > len(refs)
        and key not in moved
        and not spelling_variant(source, key)
        and all(_apart(key[:2], span) for span in spans)
    )


def correction_room(source: str, references: Sequence[str], texts: Sequence[str], base: int) -> set[int]:
    """The candidates of a screen (``texts``) a trap copy may displace so that an added correction of
    ``texts[base]`` can be a lone edit among the texts it keeps: for some correction of
    :func:`agreed_corrections` of the base, every other text but that one leaves its span alone (any
    candidate, when no other text touches it). Where the references are judged, a correction most of
    them make is usually made by one shown reference too, and only displacing that text leaves room
    for it (issue 41: drawn at random, one pair in several did, and added corrections fell to a tenth
    of the traps)."""
    spans = [[(i1, i2) for i1, i2, _j1, _j2 in word_edits(source, t)] for t in texts]
    room: set[int] = set()
    for edit in agreed_corrections(source, references, texts[base]):
        touching = {
            i for i, own in enumerate(spans) if i != base and not all(_apart(edit[:2], span) for span in own)
        }
        if not touching:
            return set(range(len(texts))) - {base}
        if len(touching) == 1:
            room |= touching
    return room


def with_correction(base: str, source: str, edit: EditKey) -> str | None:
    """``base`` with ``edit`` (against ``source``) made where the base keeps the source's words; None
    when the base changes any word of that span or next to it."""
    s, b = source.split(), base.split()
    i1, i2, words = edit
    for tag, k1, k2, l1, _l2 in SequenceMatcher(None, s, b, autojunk=False).get_opcodes():
        if tag == "equal" and k1 <= i1 and i2 <= k2 and (k1 < i1 or k1 == 0) and (i2 < k2 or k2 == len(s)):
            at = l1 + i1 - k1
            return " ".join([*b[:at], *words, *b[at + i2 - i1 :]])
    return None


def added_corrections(
    base: str, source: str, references: Sequence[str], rng: random.Random, others: Iterable[str] = ()
) -> list[str]:
    """``base`` with one of :func:`agreed_corrections` made, one text per correction, in random order
    (empty without references or such a correction)."""
    texts = [
        text
        for edit in agreed_corrections(source, references, base, list(others))
        if (text := with_correction(base, source, edit)) is not None
    ]
    rng.shuffle(texts)
    return texts


def undone_corrections(base: str, source: str, rng: random.Random) -> list[str]:
    """``base`` with one of its word-level edits against ``source`` reverted, one text per edit, in
    random order (empty: the base has no edit)."""
    edits = word_edits(source, base)
    rng.shuffle(edits)
    s, b = source.split(), base.split()
    return [" ".join([*b[:j1], *s[i1:i2], *b[j2:]]) for i1, i2, j1, j2 in edits]


class SentenceScorer:
    """Sentence-level GLEU+ of many texts of one sentence (every zero statistic replaced by 1,
    averaged over references), as ``gleu_plus(..., sentence=True)`` scores one: the source's and the
    references' n-grams are counted once. Plain Python: a trap search scores a few texts of one
    sentence at a time, where the vectorised corpus scorer's set-up costs ~20x more (parity:
    tests/core/test_traps.py)."""

    def __init__(self, source: str, references: Sequence[str]):
        self.source = [ngram_counts(tokenize(source), n) for n in range(1, GLEU_ORDER + 1)]
        self.references = [
            (len(tokenize(r)), [ngram_counts(tokenize(r), n) for n in range(1, GLEU_ORDER + 1)])
            for r in references
        ]

    def __call__(self, text: str) -> float:
        units = tokenize(text)
        grams = [ngram_counts(units, n) for n in range(1, GLEU_ORDER + 1)]
        scores = []
        for ref_len, ref in self.references:
            row = [len(units), ref_len]
            for n, (h, r, src) in enumerate(zip(grams, ref, self.source, strict=True), start=1):
                gain = sum(min(c, r[g]) if g in r else -min(c, src[g]) for g, c in h.items())
                row += [max(0, gain), max(0, len(units) - n + 1)]
            scores.append(gleu_from_stats(row, smooth=True))
        return sum(scores) / len(scores)


def sentence_gleu(source: str, references: Sequence[str], text: str) -> float:
    """Sentence-level GLEU+ of one text, as the product grades a rewrite."""
    return SentenceScorer(source, references)(text)


def _later(texts: Callable[[], list[str]]) -> Iterator[str]:
    yield from texts()


def make_trap(
    base: str,
    source: str,
    references: Sequence[str] = (),
    *,
    seed: str,
    avoid: Iterable[str] = (),
    kinds: Sequence[str] = TRAP_KINDS,
    min_drop: float = DEFAULT_MIN_DROP,
    attempts: int = DEFAULT_ATTEMPTS,
    error_types: Sequence[str] | None = None,
    n_errors: int | None = None,
    reference_edits: bool = False,
    bases: Iterable[str] = (),
    min_rise: float = DEFAULT_MIN_RISE,
    shown: Iterable[str] | None = None,
) -> Trap | None:
    """A trap for ``base`` (a text shown to the worker) of sentence ``source``, or None when no draw
    within ``attempts`` passes the checks in the module docstring.

    ``kinds``: the kinds allowed, tried in a random order; a caller that needs the two kinds in
    equal numbers asks for one at a time (an undone correction fails the GLEU+ check more often).
    ``error_types`` and ``n_errors``: what an added error may be and how many, as
    :func:`geceval.traps.inserter.insert_errors` takes them (None: every type, 1 or 2).
    ``reference_edits`` and ``bases``: the edit-level rule (module docstring; ``avoid`` counts as bases
    too). An added correction needs references (none without them), gains more than ``min_rise`` on
    sentence GLEU+ and has fewer errors against its closest reference than its base; it must be a lone
    edit among ``shown`` (the texts its screen shows beside it; default: ``avoid`` and ``bases``)."""
    unknown = set(kinds) - set(ALL_KINDS)
    if unknown or not kinds:
        raise ValueError(f"unknown trap kinds {sorted(unknown)}; choose from {', '.join(ALL_KINDS)}")
    rng = random.Random(seed)
    avoid = list(avoid)
    others = [*avoid, *bases]
    beside = others if shown is None else list(shown)
    taken = {normalise(t) for t in avoid} | {normalise(base), normalise(source)}
    refs = [r for r in references if r.strip()]
    score = SentenceScorer(source, refs) if refs else None
    base_quality = score(base) if score else None
    undone = undone_corrections(base, source, rng)
    drafts = {
        ADDED_ERROR: (
            insert_errors(base, seed=f"{seed}/{a}", n_errors=n_errors, types=error_types).text
            for a in range(attempts)
        ),
        UNDONE_CORRECTION: iter(undone[:attempts]),
        # its own generator, drawn only when asked for: the other kinds' draws stay what they were
        ADDED_CORRECTION: _later(
            lambda: added_corrections(base, source, refs, random.Random(f"{seed}/correction"), beside)[
                :attempts
            ]
        ),
    }
    order = list(kinds)
    rng.shuffle(order)
    for kind in order:
        for text in drafts[kind]:
            if normalise(text) in taken:
                continue
            quality = None
            if score is not None:
                quality = score(text)
                if kind in BETTER_KINDS:
                    if quality - base_quality <= min_rise:
                        continue
                elif base_quality - quality < min_drop:
                    continue
                if not careful_guards(base, text, kind, source, refs):
                    continue
                if (reference_edits or kind in BETTER_KINDS) and not reference_edit_check(
                    base, text, kind, source, refs, beside if kind in BETTER_KINDS else others
                ):
                    continue
            return Trap(text, kind, base_quality, quality)
    return None


def source_error(
    source: str,
    references: Sequence[str] = (),
    *,
    seed: str,
    min_drop: float = DEFAULT_MIN_DROP,
    error_types: Sequence[str] | None = None,
    n_errors: int | None = None,
) -> Trap | None:
    """GMEG's Source+error text of one sentence: the source with rule-inserted errors. With references
    it must score ``min_drop`` lower than the source (None when no draw does); without, any draw
    serves, as nothing can say it is worse."""
    if any(r.strip() for r in references):
        return make_trap(
            source,
            source,
            references,
            seed=seed,
            kinds=(ADDED_ERROR,),
            min_drop=min_drop,
            error_types=error_types,
            n_errors=n_errors,
        )
    return Trap(
        insert_errors(source, seed=seed, n_errors=n_errors, types=error_types).text, ADDED_ERROR, None, None
    )


def source_trap(
    base: str,
    source: str,
    references: Sequence[str] = (),
    *,
    min_drop: float = DEFAULT_MIN_DROP,
    reference_edits: bool = False,
) -> Trap | None:
    """The source itself as the trap of a base with edits (every correction undone), when the
    references say the source is at least ``min_drop`` worse and :func:`careful_guards` hold. A trap
    that reads as a copy of the source keeps "shows a source copy" from telling trap screens apart;
    a base of several edits may serve (once only a one-edit base could, and looks with a source copy
    came out short of traps: issue 41)."""
    if not word_edits(source, base):
        return None
    refs = [r for r in references if r.strip()]
    if not refs:
        return Trap(source, UNDONE_CORRECTION, None, None)
    score = SentenceScorer(source, refs)
    base_quality, quality = score(base), score(source)
    if base_quality - quality < min_drop or not careful_guards(base, source, UNDONE_CORRECTION, source, refs):
        return None
    if reference_edits and not reference_edit_check(base, source, UNDONE_CORRECTION, source, refs):
        return None
    return Trap(source, UNDONE_CORRECTION, base_quality, quality)
