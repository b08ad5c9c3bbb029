"""The error inserter's rules: per error type, the places in a sentence it can fire and the
replacement each would make (see :mod:`geceval.traps.inserter` for the types and contexts).

A rule reads the sentence as :class:`Tok` (leading punctuation + core + trailing punctuation)
and returns :class:`Cand` candidates; the inserter picks among them with its seeded rng.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from geceval.traps.words import (
    ARTICLES,
    BE_FORMS,
    COMMA_AFTER,
    DETERMINERS,
    DO_SUPPORT,
    FINAL_PUNCT,
    HAVE_FORMS,
    LETTERS,
    MODALS,
    PLUR_CONTEXT_AFTER,
    PLUR_CONTEXT_BEFORE,
    PLURAL_TO_SINGULAR,
    POSSESSIVES,
    PREPOSITIONS,
    SING_CONTEXT_AFTER,
    SING_CONTEXT_BEFORE,
    SINGULAR_TO_PLURAL,
    SUBJ_PLURAL,
    SUBJ_SINGULAR,
    SUBJECTS,
    SVA_AFTER_PLURAL,
    SVA_SWAPS,
    UNCOUNTABLE_PLURAL,
    VERB_FORMS,
    VERBS,
    VOWELS,
)

# --------------------------------------------------------------------------- tokens

_PARTS_RE = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)
_WORD_RE = re.compile(r"^[A-Za-z]+(?:['’-][A-Za-z]+)*$|^n't$|^'[a-z]{1,2}$", re.I)


@dataclass(frozen=True)
class Tok:
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


def parse_token(token: str) -> Tok:
    m = _PARTS_RE.match(token)
    assert m is not None  # the pattern matches every string
    lead, core, trail = m.groups()
    if core == "" and trail == "":
        # all punctuation: the regex gave it all to ``lead``
        lead, trail = "", token
    is_word = bool(core) and _WORD_RE.match(core) is not None
    return Tok(token, lead, core, trail, core.lower().replace("’", "'"), is_word)


def _match_case(template: str, word: str) -> str:
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _capitalise(tok: Tok) -> str:
    return tok.lead + tok.core[:1].upper() + tok.core[1:] + tok.trail


def _lower_first(tok: Tok) -> str:
    return tok.lead + tok.core[:1].lower() + tok.core[1:] + tok.trail


# --------------------------------------------------------------------------- candidates

Builder = Callable[[random.Random], list[str]]


@dataclass(frozen=True)
class Cand:
    start: int
    end: int
    build: Builder


def _fixed(*options: Sequence[str]) -> Builder:
    opts = [list(o) for o in options]
    return lambda rng: list(rng.choice(opts))


def _one_of_cores(tok: Tok, cores: Sequence[str]) -> Builder:
    return _fixed(*[[tok.with_core(c)] for c in cores])


def _prev_low(toks: list[Tok], i: int) -> str:
    return toks[i - 1].low if i > 0 and toks[i - 1].is_word and not toks[i - 1].trail else ""


def _next_low(toks: list[Tok], i: int) -> str:
    return toks[i + 1].low if i + 1 < len(toks) and toks[i + 1].is_word and not toks[i].trail else ""


def _sva(toks: list[Tok]) -> list[Cand]:
    out = []
    for i, t in enumerate(toks):
        if not t.is_word:
            continue
        w, prev = t.low, _prev_low(toks, i)
        plural_subject = prev in SUBJ_PLURAL or prev in PLURAL_TO_SINGULAR
        singular_subject = prev in SUBJ_SINGULAR or prev in SINGULAR_TO_PLURAL
        new = None
        if w in SVA_SWAPS:
            new = SVA_SWAPS[w]
        elif w in SVA_AFTER_PLURAL and plural_subject:
            new = SVA_AFTER_PLURAL[w]
        else:
            for lemma, tag in VERB_FORMS.get(w, ()):
                if lemma in ("be", "have", "do"):
                    continue
                if tag == "base" and plural_subject:
                    new = VERBS[lemma]["s3"]
                elif tag == "s3" and singular_subject:
                    new = lemma
                if new:
                    break
        if new and new != w:
            out.append(Cand(i, i + 1, _one_of_cores(t, [new])))
    return out


def _det(toks: list[Tok]) -> list[Cand]:
    out = []
    n = len(toks)
    for i, t in enumerate(toks):
        if not t.is_word:
            continue
        w = t.low
        if t.bare and w in ARTICLES:
            # a<->an is always wrong ("an book", "a apple")
            if w in ("a", "an") and i + 1 < n:
                out.append(Cand(i, i + 1, _one_of_cores(t, ["an" if w == "a" else "a"])))
            nxt = _next_low(toks, i)
            if n > 1 and i + 1 < n and (w != "the" or nxt not in PLURAL_TO_SINGULAR):
                if i == 0 and t.core[:1].isupper() and toks[1].core[:1].islower():
                    out.append(Cand(0, 2, _fixed([_capitalise(toks[1])])))
                else:
                    out.append(Cand(i, i + 1, _fixed([])))
        if i > 0 and toks[i - 1].low in DETERMINERS:
            continue
        if w in PLURAL_TO_SINGULAR:
            article = "an" if w[0] in VOWELS else "a"
        elif w in POSSESSIVES:
            article = "the"
        else:
            continue
        if i == 0 and t.core[:1].isupper():
            out.append(Cand(0, 1, _fixed([article.capitalize(), _lower_first(t)])))
        else:
            out.append(Cand(i, i, _fixed([article])))
    return out


def _prep(toks: list[Tok]) -> list[Cand]:
    out = []
    for i, t in enumerate(toks):
        if t.is_word and t.low in PREPOSITIONS:
            others = [p for p in PREPOSITIONS if p != t.low]
            out.append(Cand(i, i + 1, _one_of_cores(t, others)))
    return out


def _verb_form(toks: list[Tok]) -> list[Cand]:
    out = []
    for i, t in enumerate(toks):
        if not t.is_word or t.low not in VERB_FORMS:
            continue
        w, prev = t.low, _prev_low(toks, i)
        options: list[str] = []
        for lemma, tag in VERB_FORMS[w]:
            f = VERBS[lemma]
            if prev in MODALS or prev in DO_SUPPORT or prev == "to":
                if tag == "base":
                    # "to going" can be right ("look forward to going"); after to: s3/past only
                    wanted = ("s3", "past") if prev == "to" else ("s3", "past", "ing")
                    options += [f[k] for k in wanted]
            elif prev in BE_FORMS:
                if tag == "ing":
                    options += [f["base"], f["s3"]]
                elif tag == "pp":
                    # "was took" / "was take"; not -ing, which would make a progressive
                    options += [f["base"]] + ([f["past"]] if f["past"] != f["pp"] else [])
            elif prev in HAVE_FORMS:
                if tag == "pp":
                    options += [f["base"], f["ing"]] + ([f["past"]] if f["past"] != f["pp"] else [])
            elif prev in SUBJECTS and tag in ("base", "s3", "past") and lemma != "be":
                options += [f["ing"]] + ([f["pp"]] if f["pp"] != f["past"] else [])
        cores = [o for o in dict.fromkeys(options) if o != w and o not in ("is", "was")]
        if cores:
            out.append(Cand(i, i + 1, _one_of_cores(t, cores)))
    return out


def _noun_num(toks: list[Tok]) -> list[Cand]:
    out = []
    for i, t in enumerate(toks):
        if not t.is_word:
            continue
        w = t.low
        prev, nxt = _prev_low(toks, i), _next_low(toks, i)
        new = None
        if w in UNCOUNTABLE_PLURAL:
            new = UNCOUNTABLE_PLURAL[w]
        elif w in SINGULAR_TO_PLURAL and (prev in SING_CONTEXT_BEFORE or nxt in SING_CONTEXT_AFTER):
            new = SINGULAR_TO_PLURAL[w]
        elif w in PLURAL_TO_SINGULAR and (prev in PLUR_CONTEXT_BEFORE or nxt in PLUR_CONTEXT_AFTER):
            new = PLURAL_TO_SINGULAR[w]
        if new and new != w:
            out.append(Cand(i, i + 1, _one_of_cores(t, [new])))
    return out


def _word_order(toks: list[Tok]) -> list[Cand]:
    out = []
    for i in range(len(toks) - 1):
        a, b = toks[i], toks[i + 1]
        if not (a.is_word and b.is_word) or a.low == b.low:
            continue
        if i == 0 and a.core[:1].isupper():
            continue  # would need to move the capital: a name stays a name
        new_a = a.lead + b.core + a.trail
        new_b = b.lead + a.core + b.trail
        out.append(Cand(i, i + 2, _fixed([new_a, new_b])))
    return out


def _letters(core: str) -> list[int]:
    return [k for k, ch in enumerate(core) if ch.isalpha()]


def _spell_builder(tok: Tok) -> Builder:
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
                sub = rng.choice([c for c in LETTERS if c != ch.lower()])
                new = core[:k] + (sub.upper() if ch.isupper() else sub) + core[k + 1 :]
        return [tok.lead + new + tok.trail]

    return build


def spell_candidates(toks: list[Tok]) -> list[Cand]:
    return [
        Cand(i, i + 1, _spell_builder(t)) for i, t in enumerate(toks) if t.core and len(_letters(t.core)) >= 3
    ]


def _punct(toks: list[Tok]) -> list[Cand]:
    out = []
    n = len(toks)
    if n == 0:
        return out
    tokenised = any(t.text in (",", ".", "!", "?", ";", ":") for t in toks)
    last = toks[-1]
    if n > 1 and last.text in FINAL_PUNCT:
        out.append(Cand(n - 1, n, _fixed([])))
    elif last.core and last.trail in FINAL_PUNCT:
        out.append(Cand(n - 1, n, _fixed([last.lead + last.core])))
    for i, t in enumerate(toks):
        if t.text == "," and n > 1:
            out.append(Cand(i, i + 1, _fixed([])))
        elif t.core and t.trail == ",":
            out.append(Cand(i, i + 1, _fixed([t.lead + t.core])))
        if (
            i + 1 < n
            and t.is_word
            and t.bare
            and t.low in COMMA_AFTER
            and toks[i + 1].is_word
            and not toks[i + 1].lead
        ):
            if tokenised:
                out.append(Cand(i + 1, i + 1, _fixed([","])))
            else:
                out.append(Cand(i, i + 1, _fixed([t.text + ","])))
    return out


RULES: dict[str, Callable[[list[Tok]], list[Cand]]] = {
    "VERB:SVA": _sva,
    "DET": _det,
    "PREP": _prep,
    "VERB:FORM": _verb_form,
    "NOUN:NUM": _noun_num,
    "WO": _word_order,
    "SPELL": spell_candidates,
    "PUNCT": _punct,
}
