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
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass

from geceval.progress import ProgressFn

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


# --------------------------------------------------------------------------- word lists
# fmt: off

_SUBJ_PLURAL = ("i", "you", "we", "they")
_SUBJ_SINGULAR = ("he", "she", "it")
_SUBJECTS = _SUBJ_PLURAL + _SUBJ_SINGULAR
_MODALS = ("can", "could", "will", "would", "shall", "should", "may", "might", "must", "'ll", "cannot")
_DO_SUPPORT = (
    "do", "does", "did", "don't", "doesn't", "didn't", "can't", "won't", "wouldn't", "couldn't",
    "shouldn't", "mustn't", "n't", "not",
)
_BE_FORMS = ("am", "is", "are", "was", "were", "be", "been", "being", "'m", "'re", "isn't", "aren't")
_BE_FORMS += ("wasn't", "weren't")
_HAVE_FORMS = ("have", "has", "had", "'ve", "haven't", "hasn't", "hadn't")

_SVA_SWAPS: dict[str, str] = {
    "is": "are", "are": "is", "was": "were", "were": "was", "am": "is", "has": "have", "does": "do",
    "isn't": "aren't", "aren't": "isn't", "wasn't": "weren't", "weren't": "wasn't", "hasn't": "haven't",
    "haven't": "hasn't", "doesn't": "don't", "don't": "doesn't",
}
# Only after a plural subject: "to have" / "will do" would be a verb-form error, not agreement.
_SVA_AFTER_PLURAL: dict[str, str] = {"have": "has", "do": "does"}

_PREPOSITIONS = ("in", "on", "at", "of", "for", "to", "with", "from", "by", "about", "into")
_ARTICLES = ("a", "an", "the")
_DETERMINERS = (
    "a", "an", "the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their",
    "some", "any", "no", "every", "each", "many", "much", "several", "few", "both", "all", "another", "one",
    "two", "three",
)
_POSSESSIVES = ("my", "your", "his", "our", "their")
_SING_CONTEXT_BEFORE = ("a", "an", "one", "every", "each", "this", "another", "either", "neither")
_PLUR_CONTEXT_BEFORE = ("these", "those", "many", "several", "few", "both", "various", "numerous")
_PLUR_CONTEXT_BEFORE += ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_SING_CONTEXT_AFTER = ("is", "was", "has", "does", "isn't", "wasn't", "hasn't", "doesn't")
_PLUR_CONTEXT_AFTER = ("are", "were", "have", "do", "aren't", "weren't", "haven't", "don't")
_COMMA_AFTER = _ARTICLES + _POSSESSIVES + _PREPOSITIONS + _SUBJECTS + _MODALS + ("very", "its", "her")
_FINAL_PUNCT = (".", "!", "?")

# Irregular verbs: lemma -> (past, past participle).
_IRREGULAR_VERBS: dict[str, tuple[str, str]] = {
    "be": ("was", "been"), "have": ("had", "had"), "do": ("did", "done"), "go": ("went", "gone"),
    "say": ("said", "said"), "make": ("made", "made"), "take": ("took", "taken"), "come": ("came", "come"),
    "see": ("saw", "seen"), "know": ("knew", "known"), "get": ("got", "got"), "give": ("gave", "given"),
    "find": ("found", "found"), "think": ("thought", "thought"), "tell": ("told", "told"),
    "become": ("became", "become"), "leave": ("left", "left"), "feel": ("felt", "felt"),
    "bring": ("brought", "brought"), "begin": ("began", "begun"), "keep": ("kept", "kept"),
    "hold": ("held", "held"), "write": ("wrote", "written"), "stand": ("stood", "stood"),
    "hear": ("heard", "heard"), "let": ("let", "let"), "mean": ("meant", "meant"), "meet": ("met", "met"),
    "run": ("ran", "run"), "pay": ("paid", "paid"), "sit": ("sat", "sat"), "speak": ("spoke", "spoken"),
    "read": ("read", "read"), "grow": ("grew", "grown"), "lose": ("lost", "lost"),
    "fall": ("fell", "fallen"), "send": ("sent", "sent"), "build": ("built", "built"),
    "understand": ("understood", "understood"), "draw": ("drew", "drawn"), "break": ("broke", "broken"),
    "spend": ("spent", "spent"), "drive": ("drove", "driven"), "buy": ("bought", "bought"),
    "wear": ("wore", "worn"), "choose": ("chose", "chosen"), "throw": ("threw", "thrown"),
    "catch": ("caught", "caught"), "win": ("won", "won"), "forget": ("forgot", "forgotten"),
    "sell": ("sold", "sold"), "teach": ("taught", "taught"), "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"), "sing": ("sang", "sung"), "swim": ("swam", "swum"),
    "fly": ("flew", "flown"), "sleep": ("slept", "slept"), "ride": ("rode", "ridden"),
    "fight": ("fought", "fought"), "put": ("put", "put"), "cut": ("cut", "cut"),
    "steal": ("stole", "stolen"), "lend": ("lent", "lent"), "forgive": ("forgave", "forgiven"),
    "wake": ("woke", "woken"), "hide": ("hid", "hidden"), "shake": ("shook", "shaken"),
}
_IRREGULAR_S3 = {"be": "is", "have": "has", "do": "does", "go": "goes"}

_REGULAR_VERBS = (
    "want", "like", "love", "need", "use", "help", "work", "play", "live", "try", "ask", "call", "look",
    "seem", "start", "move", "happen", "believe", "include", "continue", "change", "watch", "follow",
    "stop", "create", "open", "walk", "offer", "remember", "consider", "appear", "wait", "expect", "stay",
    "reach", "remain", "suggest", "decide", "return", "explain", "hope", "develop", "carry", "learn",
    "agree", "enjoy", "visit", "travel", "study", "arrive", "finish", "prepare", "organise", "organize",
    "receive", "invite", "answer", "cook", "clean", "dance", "listen", "talk", "improve", "produce",
    "provide", "allow", "add", "plan", "prefer", "discuss", "describe", "imagine", "hate", "miss", "wish",
    "check", "close", "save", "spend", "phone", "join", "pass", "die", "book", "fix", "thank", "apply",
    "admit", "shop", "chat", "drop", "refer", "occur", "regret", "control",
)
_DOUBLING = ("stop", "plan", "prefer", "travel", "admit", "shop", "chat", "drop", "refer", "occur")
_DOUBLING += ("regret", "control", "get", "begin", "run", "sit", "swim", "put", "cut", "let", "win", "forget")

# Countable nouns (plural by the regular rules unless in _IRREGULAR_NOUNS).
_NOUNS = (
    "friend", "person", "child", "man", "woman", "family", "house", "room", "city", "country", "school",
    "student", "teacher", "book", "letter", "car", "job", "place", "problem", "thing", "day", "week",
    "month", "year", "hour", "minute", "way", "idea", "reason", "question", "example", "group", "life",
    "computer", "film", "song", "game", "restaurant", "hotel", "party", "present", "holiday", "trip",
    "ticket", "bus", "train", "bike", "street", "road", "town", "village", "picture", "photo", "camera",
    "animal", "dog", "cat", "bird", "tree", "flower", "garden", "table", "chair", "window", "door", "bed",
    "kitchen", "fridge", "cooker", "machine", "television", "programme", "program", "class", "lesson",
    "course", "exam", "subject", "language", "word", "sentence", "story", "newspaper", "magazine",
    "message", "page", "parent", "brother", "sister", "mother", "father", "son", "daughter", "girl", "boy",
    "baby", "guest", "customer", "member", "player", "team", "company", "office", "product", "price",
    "result", "chance", "advantage", "disadvantage", "opportunity", "activity", "event", "festival",
    "concert", "club", "sport", "museum", "hospital", "doctor", "system", "situation", "solution",
    "decision", "difference", "rule", "night", "morning", "evening", "weekend", "meal", "dish", "cake",
    "apple", "egg", "sandwich", "glass", "bottle", "cup", "box", "bag", "shoe", "dress", "shirt", "hat",
    "key", "dollar", "pound", "mile", "foot", "tooth", "mouse", "knife", "wife", "leaf", "half", "thief",
    "shelf", "potato", "tomato", "hero", "crowd", "building", "lot", "pupil", "shop", "visit", "plan",
    "show", "walk", "journey", "toy", "boat", "ship", "plane", "beach", "church", "mountain", "river",
    "island", "kid", "adult", "colleague", "neighbour", "neighbor", "boss", "manager", "owner", "tourist",
    "visitor", "artist", "singer", "band", "advertisement", "website",
)
_IRREGULAR_NOUNS: dict[str, str] = {
    "person": "people", "child": "children", "man": "men", "woman": "women", "foot": "feet",
    "tooth": "teeth", "mouse": "mice", "life": "lives", "knife": "knives", "wife": "wives",
    "leaf": "leaves", "half": "halves", "thief": "thieves", "shelf": "shelves", "potato": "potatoes",
    "tomato": "tomatoes", "hero": "heroes",
}
_UNCOUNTABLE = (
    "information", "advice", "furniture", "equipment", "homework", "luggage", "baggage", "knowledge",
    "evidence", "vocabulary", "accommodation", "scenery",
)
# -ing forms that are mostly nouns: not treated as verbs.
_ING_NOUNS = ("building", "meeting", "evening", "morning", "wedding", "ending", "painting", "feeling")
_ING_NOUNS += ("beginning", "setting", "training", "thing", "something", "nothing", "anything", "everything")

_VOWELS = "aeiou"
_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# fmt: on


def _s3(lemma: str) -> str:
    if lemma in _IRREGULAR_S3:
        return _IRREGULAR_S3[lemma]
    return _plural_regular(lemma)


def _plural_regular(word: str) -> str:
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2] not in _VOWELS:
        return word[:-1] + "ies"
    return word + "s"


def _ing(lemma: str) -> str:
    if lemma.endswith("ie"):
        return lemma[:-2] + "ying"
    if lemma in _DOUBLING:
        return lemma + lemma[-1] + "ing"
    if lemma.endswith("e") and not lemma.endswith(("ee", "ye", "oe")) and lemma != "be":
        return lemma[:-1] + "ing"
    return lemma + "ing"


def _past_regular(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ied"
    if lemma in _DOUBLING:
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def _verb_forms(lemma: str) -> dict[str, str]:
    """Tag -> form for ``base``, ``s3``, ``past``, ``pp``, ``ing``."""
    past, pp = _IRREGULAR_VERBS.get(lemma) or (_past_regular(lemma),) * 2
    return {"base": lemma, "s3": _s3(lemma), "past": past, "pp": pp, "ing": _ing(lemma)}


_VERBS: dict[str, dict[str, str]] = {
    lemma: _verb_forms(lemma) for lemma in (*_IRREGULAR_VERBS, *_REGULAR_VERBS)
}
# form -> [(lemma, tag), ...] in table order (deterministic).
_VERB_FORMS: dict[str, list[tuple[str, str]]] = {}
for _lemma, _forms in _VERBS.items():
    for _tag, _form in _forms.items():
        if _lemma == "be" and _tag in ("s3", "past"):
            continue  # is/was are agreement's business
        if _tag == "ing" and _form in _ING_NOUNS:
            continue
        entries = _VERB_FORMS.setdefault(_form, [])
        if (_lemma, _tag) not in entries:
            entries.append((_lemma, _tag))

_SINGULAR_TO_PLURAL: dict[str, str] = {
    n: _IRREGULAR_NOUNS.get(n) or _plural_regular(n) for n in dict.fromkeys(_NOUNS)
}
_PLURAL_TO_SINGULAR: dict[str, str] = {p: s for s, p in _SINGULAR_TO_PLURAL.items()}
_UNCOUNTABLE_PLURAL: dict[str, str] = {u: u + "s" for u in _UNCOUNTABLE}


# --------------------------------------------------------------------------- tokens

_PARTS_RE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)
_WORD_RE = re.compile(r"^[A-Za-z]+(?:['’-][A-Za-z]+)*$|^n't$|^'[a-z]{1,2}$", re.I)


@dataclass(frozen=True)
class _Tok:
    """A whitespace token read as leading punctuation + core + trailing punctuation."""

    text: str
    lead: str
    core: str
    trail: str
    low: str  # the core lower-cased, curly apostrophe straightened, for the word lists
    is_word: bool

    @property
    def bare(self) -> bool:
        return not self.lead and not self.trail

    def with_core(self, core: str) -> str:
        return self.lead + _match_case(self.core, core) + self.trail


def _parse(token: str) -> _Tok:
    m = _PARTS_RE.match(token)
    assert m is not None  # the pattern matches every string
    lead, core, trail = m.groups()
    if core == "" and trail == "":
        # all punctuation: the regex gave it all to ``lead``
        lead, trail = "", token
    is_word = bool(core) and _WORD_RE.match(core) is not None
    return _Tok(token, lead, core, trail, core.lower().replace("’", "'"), is_word)


def _match_case(template: str, word: str) -> str:
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _capitalise(tok: _Tok) -> str:
    return tok.lead + tok.core[:1].upper() + tok.core[1:] + tok.trail


def _lower_first(tok: _Tok) -> str:
    return tok.lead + tok.core[:1].lower() + tok.core[1:] + tok.trail


# --------------------------------------------------------------------------- candidates

Builder = Callable[[random.Random], list[str]]


@dataclass(frozen=True)
class _Cand:
    start: int
    end: int
    build: Builder


def _fixed(*options: Sequence[str]) -> Builder:
    opts = [list(o) for o in options]
    return lambda rng: list(rng.choice(opts))


def _one_of_cores(tok: _Tok, cores: Sequence[str]) -> Builder:
    return _fixed(*[[tok.with_core(c)] for c in cores])


def _prev_low(toks: list[_Tok], i: int) -> str:
    return toks[i - 1].low if i > 0 and toks[i - 1].is_word and not toks[i - 1].trail else ""


def _next_low(toks: list[_Tok], i: int) -> str:
    return toks[i + 1].low if i + 1 < len(toks) and toks[i + 1].is_word and not toks[i].trail else ""


def _sva(toks: list[_Tok]) -> list[_Cand]:
    out = []
    for i, t in enumerate(toks):
        if not t.is_word:
            continue
        w, prev = t.low, _prev_low(toks, i)
        plural_subject = prev in _SUBJ_PLURAL or prev in _PLURAL_TO_SINGULAR
        singular_subject = prev in _SUBJ_SINGULAR or prev in _SINGULAR_TO_PLURAL
        new = None
        if w in _SVA_SWAPS:
            new = _SVA_SWAPS[w]
        elif w in _SVA_AFTER_PLURAL and plural_subject:
            new = _SVA_AFTER_PLURAL[w]
        else:
            for lemma, tag in _VERB_FORMS.get(w, ()):
                if lemma in ("be", "have", "do"):
                    continue
                if tag == "base" and plural_subject:
                    new = _VERBS[lemma]["s3"]
                elif tag == "s3" and singular_subject:
                    new = lemma
                if new:
                    break
        if new and new != w:
            out.append(_Cand(i, i + 1, _one_of_cores(t, [new])))
    return out


def _det(toks: list[_Tok]) -> list[_Cand]:
    out = []
    n = len(toks)
    for i, t in enumerate(toks):
        if not t.is_word:
            continue
        w = t.low
        if t.bare and w in _ARTICLES:
            # a<->an is always wrong ("an book", "a apple")
            if w in ("a", "an") and i + 1 < n:
                out.append(_Cand(i, i + 1, _one_of_cores(t, ["an" if w == "a" else "a"])))
            nxt = _next_low(toks, i)
            if n > 1 and i + 1 < n and (w != "the" or nxt not in _PLURAL_TO_SINGULAR):
                if i == 0 and t.core[:1].isupper() and toks[1].core[:1].islower():
                    out.append(_Cand(0, 2, _fixed([_capitalise(toks[1])])))
                else:
                    out.append(_Cand(i, i + 1, _fixed([])))
        if i > 0 and toks[i - 1].low in _DETERMINERS:
            continue
        if w in _PLURAL_TO_SINGULAR:
            article = "an" if w[0] in _VOWELS else "a"
        elif w in _POSSESSIVES:
            article = "the"
        else:
            continue
        if i == 0 and t.core[:1].isupper():
            out.append(_Cand(0, 1, _fixed([article.capitalize(), _lower_first(t)])))
        else:
            out.append(_Cand(i, i, _fixed([article])))
    return out


def _prep(toks: list[_Tok]) -> list[_Cand]:
    out = []
    for i, t in enumerate(toks):
        if t.is_word and t.low in _PREPOSITIONS:
            others = [p for p in _PREPOSITIONS if p != t.low]
            out.append(_Cand(i, i + 1, _one_of_cores(t, others)))
    return out


def _verb_form(toks: list[_Tok]) -> list[_Cand]:
    out = []
    for i, t in enumerate(toks):
        if not t.is_word or t.low not in _VERB_FORMS:
            continue
        w, prev = t.low, _prev_low(toks, i)
        options: list[str] = []
        for lemma, tag in _VERB_FORMS[w]:
            f = _VERBS[lemma]
            if prev in _MODALS or prev in _DO_SUPPORT or prev == "to":
                if tag == "base":
                    # "to going" can be right ("look forward to going"); after to: s3/past only
                    wanted = ("s3", "past") if prev == "to" else ("s3", "past", "ing")
                    options += [f[k] for k in wanted]
            elif prev in _BE_FORMS:
                if tag == "ing":
                    options += [f["base"], f["s3"]]
                elif tag == "pp":
                    # "was took" / "was take"; not -ing, which would make a progressive
                    options += [f["base"]] + ([f["past"]] if f["past"] != f["pp"] else [])
            elif prev in _HAVE_FORMS:
                if tag == "pp":
                    options += [f["base"], f["ing"]] + ([f["past"]] if f["past"] != f["pp"] else [])
            elif prev in _SUBJECTS and tag in ("base", "s3", "past") and lemma != "be":
                options += [f["ing"]] + ([f["pp"]] if f["pp"] != f["past"] else [])
        cores = [o for o in dict.fromkeys(options) if o != w and o not in ("is", "was")]
        if cores:
            out.append(_Cand(i, i + 1, _one_of_cores(t, cores)))
    return out


def _noun_num(toks: list[_Tok]) -> list[_Cand]:
    out = []
    for i, t in enumerate(toks):
        if not t.is_word:
            continue
        w = t.low
        prev, nxt = _prev_low(toks, i), _next_low(toks, i)
        new = None
        if w in _UNCOUNTABLE_PLURAL:
            new = _UNCOUNTABLE_PLURAL[w]
        elif w in _SINGULAR_TO_PLURAL and (prev in _SING_CONTEXT_BEFORE or nxt in _SING_CONTEXT_AFTER):
            new = _SINGULAR_TO_PLURAL[w]
        elif w in _PLURAL_TO_SINGULAR and (prev in _PLUR_CONTEXT_BEFORE or nxt in _PLUR_CONTEXT_AFTER):
            new = _PLURAL_TO_SINGULAR[w]
        if new and new != w:
            out.append(_Cand(i, i + 1, _one_of_cores(t, [new])))
    return out


def _word_order(toks: list[_Tok]) -> list[_Cand]:
    out = []
    for i in range(len(toks) - 1):
        a, b = toks[i], toks[i + 1]
        if not (a.is_word and b.is_word) or a.low == b.low:
            continue
        if i == 0 and a.core[:1].isupper():
            continue  # would need to move the capital: a name stays a name
        new_a = a.lead + b.core + a.trail
        new_b = b.lead + a.core + b.trail
        out.append(_Cand(i, i + 2, _fixed([new_a, new_b])))
    return out


def _letters(core: str) -> list[int]:
    return [k for k, ch in enumerate(core) if ch.isalpha()]


def _spell_builder(tok: _Tok) -> Builder:
    def build(rng: random.Random) -> list[str]:
        core = tok.core
        pos = _letters(core)
        ops = ["delete", "duplicate", "substitute"]
        pairs = [k for k in pos if k + 1 < len(core) and core[k + 1].isalpha() and core[k] != core[k + 1]]
        if pairs:
            ops.append("transpose")
        op = rng.choice(ops)
        if op == "transpose":
            k = rng.choice(pairs)
            new = core[:k] + core[k + 1] + core[k] + core[k + 2 :]
        else:
            k = rng.choice(pos)
            ch = core[k]
            if op == "delete":
                new = core[:k] + core[k + 1 :]
            elif op == "duplicate":
                new = core[:k] + ch + core[k:]
            else:
                sub = rng.choice([c for c in _LETTERS if c != ch.lower()])
                new = core[:k] + (sub.upper() if ch.isupper() else sub) + core[k + 1 :]
        return [tok.lead + new + tok.trail]

    return build


def _spell(toks: list[_Tok]) -> list[_Cand]:
    return [
        _Cand(i, i + 1, _spell_builder(t))
        for i, t in enumerate(toks)
        if t.core and len(_letters(t.core)) >= 3
    ]


def _punct(toks: list[_Tok]) -> list[_Cand]:
    out = []
    n = len(toks)
    if n == 0:
        return out
    tokenised = any(t.text in (",", ".", "!", "?", ";", ":") for t in toks)
    last = toks[-1]
    if n > 1 and last.text in _FINAL_PUNCT:
        out.append(_Cand(n - 1, n, _fixed([])))
    elif last.core and last.trail in _FINAL_PUNCT:
        out.append(_Cand(n - 1, n, _fixed([last.lead + last.core])))
    for i, t in enumerate(toks):
        if t.text == "," and n > 1:
            out.append(_Cand(i, i + 1, _fixed([])))
        elif t.core and t.trail == ",":
            out.append(_Cand(i, i + 1, _fixed([t.lead + t.core])))
        if (
            i + 1 < n
            and t.is_word
            and t.bare
            and t.low in _COMMA_AFTER
            and toks[i + 1].is_word
            and not toks[i + 1].lead
        ):
            if tokenised:
                out.append(_Cand(i + 1, i + 1, _fixed([","])))
            else:
                out.append(_Cand(i, i + 1, _fixed([t.text + ","])))
    return out


_RULES: dict[str, Callable[[list[_Tok]], list[_Cand]]] = {
    "VERB:SVA": _sva,
    "DET": _det,
    "PREP": _prep,
    "VERB:FORM": _verb_form,
    "NOUN:NUM": _noun_num,
    "WO": _word_order,
    "SPELL": _spell,
    "PUNCT": _punct,
}


# --------------------------------------------------------------------------- insertion


def line_seed(seed: int | str, index: int) -> str:
    """The seed of line ``index`` (0-based) of a file inserted with ``seed``."""
    return f"{seed}/{index}"


def _free(cand: _Cand, spans: list[tuple[int, int]]) -> bool:
    """The candidate neither overlaps nor touches an earlier edit (whose spans are output spans)."""
    return all(cand.end < s or cand.start > e for s, e in spans)


def _char_fallback(tokens: list[str], rng: random.Random) -> tuple[list[str], InsertedEdit]:
    cands = _spell([_parse(t) for t in tokens])
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
        toks = [_parse(t) for t in current]
        spans = [(e.start, e.end) for e in edits]
        available: dict[str, list[_Cand]] = {}
        for name in types:
            cands = [c for c in _RULES[name](toks) if _free(c, spans)]
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
