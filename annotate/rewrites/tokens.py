"""Show tokenised text to people and tokenise their rewrites back the same way.

Corpora such as JFLEG and CoNLL are stored Penn-Treebank-style ("do n't",
"word ,"). People read ``detokenise(x)`` ("don't", "word,"); their rewrite is
stored as ``retokenise(text, source=x)``. With the source given, every word the
annotator left as the source showed it gets back exactly the source's tokens
(so ``retokenise(detokenise(x), source=x) == x`` for any single-spaced x and
unchanged words stay comparable with the source); new words are split by
PTB-like rules (clitics, punctuation, brackets), which is how the JFLEG and
CoNLL sources were tokenised. These rules are ours, not a port of any tokenizer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

ATTACH_LEFT = {",", ".", "!", "?", ";", ":", "%", ")", "]", "}", "...", "''", "n't", "N'T"}
CLITICS = {"'s", "'re", "'ve", "'ll", "'d", "'m", "'S", "'RE", "'VE", "'LL", "'D", "'M", "'"}
ATTACH_RIGHT = {"(", "[", "{", "$", "``", "#"}


def _chunks(tokens: list[str]) -> list[list[str]]:
    """Group tokens into the whitespace-separated words a reader sees."""
    chunks: list[list[str]] = []
    glue_next = False
    open_quote = False
    for tok in tokens:
        glue = glue_next or tok in ATTACH_LEFT or tok in CLITICS
        glue_next = tok in ATTACH_RIGHT
        if tok == '"':
            if open_quote:
                glue, glue_next = True, False
            else:
                glue_next = True
            open_quote = not open_quote
        if glue and chunks:
            chunks[-1].append(tok)
        else:
            chunks.append([tok])
    return chunks


def detokenise(text: str) -> str:
    """``"I do n't know , really ."`` -> ``"I don't know, really."`` (whitespace collapsed)."""
    return " ".join("".join(c) for c in _chunks(text.split()))


def shown(text: str, tokenized: bool) -> str:
    """What every page shows of a sentence, source or correction: detokenised when its corpus is
    whitespace-tokenised (``"bus ."`` -> ``"bus."``), else as stored. The one rule for display."""
    return detokenise(text) if tokenized else text


_OPENERS = '([{$#"`'
_CLOSERS = ",.!?;:%)]}\"'"
_CONTRACTION = re.compile(r"^(.+?)(n't|N'T|'s|'S|'re|'RE|'ve|'VE|'ll|'LL|'d|'D|'m|'M)$")
_ABBREV = re.compile(r"^(?:[A-Za-z]\.){2,}$|^(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|vs|etc|e\.g|i\.e)\.$")
_NUMBER = re.compile(r"^\d+(?:[.,:]\d+)*$")


def _split_word(word: str) -> list[str]:
    head: list[str] = []
    tail: list[str] = []
    while len(word) > 1 and word[0] in _OPENERS:
        head.append(word[0])
        word = word[1:]
    while len(word) > 1:
        if word.endswith("..."):
            tail.insert(0, "...")
            word = word[:-3]
        elif word[-1] in _CLOSERS and not _ABBREV.match(word):
            tail.insert(0, word[-1])
            word = word[:-1]
        else:
            break
    middle = [word] if word else []
    m = _CONTRACTION.match(word)
    if m and not _NUMBER.match(word):
        stem, clitic = m.group(1), m.group(2)
        if clitic.lower() == "n't" and stem.lower() in {"ca", "wo", "sha"}:
            middle = [stem, clitic]
        elif clitic.lower() == "n't" and stem.lower() == "can":  # "cannot" spelt "can't" -> "ca n't"
            middle = [stem[:2], clitic]
        else:
            middle = [stem, clitic]
    return [t.replace("`", "'") if t == "`" else t for t in head + middle + tail]


def tokenise_words(text: str) -> str:
    """Rule-based PTB-like tokenisation of free text."""
    return " ".join(t for word in text.split() for t in _split_word(word))


def retokenise(text: str, *, source: str | None = None, like: Iterable[str] = ()) -> str:
    """Tokenise ``text`` as the tokenised ``source`` is: unchanged words reuse the source's tokens.

    ``like``: more tokenised texts of the same corpus (its references), whose
    words are reused the same way when the source does not have them, so a
    word the corpus keeps whole ("doesn't") is not split by the PTB rules.
    """
    known: dict[str, list[str]] = {}
    for tokenised in [*([source] if source is not None else []), *like]:
        for chunk in _chunks(tokenised.split()):
            known.setdefault("".join(chunk), chunk)
    out: list[str] = []
    for word in text.split():
        out.extend(known.get(word) or _split_word(word))
    return " ".join(out)


_SPLIT_MARKS = re.compile(r"\s(?:[.,!?;:]|n't|'s|'re|'ve|'ll|'d|'m)(?=\s|$)")


def looks_tokenised(texts: Iterable[str]) -> bool:
    """Whether any text is whitespace-tokenised: punctuation or a clitic standing alone ("word .")."""
    return any(_SPLIT_MARKS.search(t) for t in texts)


def tokenise_like(answer: str, *, source: str, references: list[str], tokenized: bool) -> str:
    """A typed answer tokenised the way its corpus is, for comparing with the corpus's references.

    A corpus marked tokenised, or whose source and references read tokenised,
    gets the answer detokenised (undoing whatever tokenisation it was stored
    with) then retokenised with the source's and references' own words.
    """
    if not (tokenized or looks_tokenised([source, *references])):
        return " ".join(answer.split())
    return retokenise(detokenise(answer), source=" ".join(source.split()), like=references)
