"""spaCy's ``attribute_ruler`` for ERRANT's parses, the same assignments made faster.

The model's attribute ruler (179 rules in en_core_web_sm 3.8: the tag map from TAG to POS and
morphology, and lemma and POS exceptions keyed by LOWER, TAG and DEP) ran spaCy's general
``Matcher`` over every token and was about a fifth of ERRANT's parsing CPU on a shared task (12
CoNLL-14 systems). :func:`compile_ruler` reads the ruler's own rules; :class:`FastRuler` finds the
same matches with a lookup by each rule's first token's TAG or LOWER and hands them, sorted as
``AttributeRuler.match`` sorts them (rule number, then start), to spaCy's own ``set_token_attrs``
with the ruler's own normalised attributes. A rule's conditions are read before any rule is
applied, as the ruler matches the whole doc first. Rules this module does not know how to match
exactly (quantifiers, other attributes or predicates, an index outside the pattern) make :func:`compile_ruler` return None, and spaCy's component runs instead.
tests/core/test_errant_ruler_parity.py holds every token's TAG, POS, MORPH and LEMMA equal to
spaCy's on CoNLL-14 and JFLEG lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

_ATTRS = ("TAG", "LOWER", "DEP", "IS_SPACE", "ORTH")
_FLAGS = frozenset({"IS_SPACE"})

# one token's condition: (column in the doc's array, kind, value); kinds: "eq" (an id or a flag's
# 0/1), "in" / "not_in" (a set of ids), "regex" (a compiled pattern, searched in the string)
_Condition = tuple[int, str, Any]


def _condition(strings: Any, attr: str, value: Any) -> _Condition | None:
    column = _ATTRS.index(attr)
    if isinstance(value, bool):
        return (column, "eq", int(value)) if attr in _FLAGS else None
    if isinstance(value, str) and attr not in _FLAGS:
        return column, "eq", strings.add(value)
    if isinstance(value, dict) and len(value) == 1 and attr not in _FLAGS:
        ((kind, arg),) = value.items()
        if kind in ("IN", "NOT_IN") and isinstance(arg, list) and all(isinstance(v, str) for v in arg):
            return column, kind.lower(), frozenset(strings.add(v) for v in arg)
        if kind == "REGEX" and isinstance(arg, str):
            return column, "regex", re.compile(arg)
    return None


class FastRuler:
    """The matches and assignments of one ``AttributeRuler`` (see the module doc)."""

    def __init__(self, ruler: Any, patterns: list[tuple[int, list[list[_Condition]], int]]) -> None:
        from spacy.attrs import DEP, IS_SPACE, LOWER, ORTH, TAG
        from spacy.tokens._retokenize import set_token_attrs

        self._columns = [
            {"TAG": TAG, "LOWER": LOWER, "DEP": DEP, "IS_SPACE": IS_SPACE, "ORTH": ORTH}[a] for a in _ATTRS
        ]
        self._set = set_token_attrs
        self._attrs = list(ruler.attrs)
        self._strings = ruler.vocab.strings
        self._patterns = patterns
        # patterns by the value their first token must have in TAG (column 0) or LOWER (1)
        self._by: list[dict[int, list[int]]] = [{}, {}]
        self._always: list[int] = []
        for at, (_, tokens, _) in enumerate(patterns):
            key = next(((c, v) for c, kind, v in tokens[0] if kind == "eq" and c in (0, 1)), None)
            if key is None:
                self._always.append(at)
            else:
                self._by[key[0]].setdefault(key[1], []).append(at)

    def _holds(self, row: list[int], condition: _Condition) -> bool:
        column, kind, value = condition
        got = row[column]
        if kind == "eq":
            return got == value
        if kind == "in":
            return got in value
        if kind == "not_in":
            return got not in value
        return bool(value.search(self._strings[got]))

    def __call__(self, doc: Any) -> Any:
        rows = doc.to_array(self._columns).tolist() if len(doc) else []
        by_tag, by_lower, always, patterns, holds = (
            self._by[0],
            self._by[1],
            self._always,
            self._patterns,
            self._holds,
        )
        # a set: two patterns of one rule matching one span are one match, as in the Matcher
        matches: set[tuple[int, int, int, int]] = set()
        n = len(rows)
        for start, row in enumerate(rows):
            for at in by_tag.get(row[0], []) + by_lower.get(row[1], []) + always:
                number, tokens, index = patterns[at]
                end = start + len(tokens)
                if end > n:
                    continue
                if all(holds(rows[start + k], c) for k, conditions in enumerate(tokens) for c in conditions):
                    matches.add((number, start, end, start + index if index >= 0 else end + index))
        for number, _, _, target in sorted(matches):
            self._set(doc[target], self._attrs[number])
        return doc

    def pipe(self, docs: Iterable[Any], batch_size: int = 0) -> Iterator[Any]:
        for doc in docs:
            yield self(doc)


def compile_ruler(ruler: Any) -> FastRuler | None:
    """A :class:`FastRuler` doing what ``ruler`` does, or None when a rule is beyond it."""
    compiled: list[tuple[int, list[list[_Condition]], int]] = []
    for number, rule in enumerate(ruler.patterns):
        index = rule["index"]
        for pattern in rule["patterns"]:
            if not pattern or not -len(pattern) <= index < len(pattern):
                return None
            tokens: list[list[_Condition]] = []
            for spec in pattern:
                conditions = []
                for attr, value in spec.items():
                    if attr not in _ATTRS:
                        return None  # "OP" (a quantifier) or an attribute not read here
                    condition = _condition(ruler.vocab.strings, attr, value)
                    if condition is None:
                        return None
                    conditions.append(condition)
                tokens.append(conditions)
            compiled.append((number, tokens, index))
    return FastRuler(ruler, compiled)
