"""Traps from the campaign form: ten examples to look at before creating a campaign, and the paper's
Source+error system generated for a corpus (issue 20).

The examples use a fresh secret seed each time, never the campaign's: a campaign draws its own traps
with its own secret when it is created, so nothing shown here (nor anything a researcher could copy
from it) tells which screens a worker will see as traps. Both designs check traps against the
corpus's references, as the campaign does (:mod:`geceval.traps.hidden`).
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annotate.models import Corpus, Output, System
from annotate.rewrites.diff import word_diff
from annotate.rewrites.tokens import shown
from annotate.selectors import corpus_references
from annotate.services import trap_system_generate
from geceval.errors import GecInputError
from geceval.traps.hidden import (
    ADDED_CORRECTION,
    ADDED_ERROR,
    BETTER_KINDS,
    DEFAULT_MIN_DROP,
    UNDONE_CORRECTION,
    Trap,
    make_trap,
    source_error,
    source_trap,
)
from ranking.models import TrapDesign
from ranking.protocols import DEFAULT_PROTOCOL, protocol_get
from ranking.work.judging import normalise

PREVIEW_COUNT = 10
PREVIEW_SCAN = 20
"""Drafts per example wanted before the preview gives up (a trap may fail its checks). A corpus with
fewer sentences than that is gone through again, with other bases and seeds."""
PREVIEW_MISSES = 60
"""Misses in a row of one trap kind before the preview leaves it out: some bases cannot be undone, and
a correction most references make and no output makes is rare (under the edit-level rule on GMEG dev
FCE about 1 draft in 20 gives an undone correction, 1 in 8 an added correction)."""
KIND_LABELS = {
    ADDED_ERROR: "errors added",
    UNDONE_CORRECTION: "a correction undone",
    ADDED_CORRECTION: "a correction added",
}


@dataclass(frozen=True)
class TrapExample:
    line: int
    """The sentence's line in the corpus, from 1."""
    source: str
    base: str
    base_from: str
    """The systems whose output the base is, or "the source" (the paper's design)."""
    trap: str
    kind: str
    """How the trap differs from its base (``KIND_LABELS``)."""
    judged: str
    """How a careful worker should judge the trap against its base: "worse", or "better" for a
    positive control (an added correction, ``BETTER_KINDS``)."""
    base_quality: float | None
    quality: float | None
    """Sentence GLEU+ of base and trap against the references (None: the corpus has none)."""
    changes: list[tuple[str, str]]
    """The trap's word diff against its base, as the pages show text."""


def trap_preview(
    *,
    corpus: Corpus,
    design: str = TrapDesign.HIDDEN,
    protocol: str = DEFAULT_PROTOCOL,
    systems: Iterable[System] = (),
    domain: str = "",
    error_types: Sequence[str] | None = None,
    n_errors: int | None = None,
    min_drop: float = DEFAULT_MIN_DROP,
    count: int = PREVIEW_COUNT,
    seed: str | None = None,
) -> list[TrapExample]:
    """Up to ``count`` traps of random sentences beside their bases. Hidden design: the base is an
    output of one of ``systems`` and the ``protocol``'s trap kinds come in turn at their weights, under
    its rules, as its campaigns mix them (the edit-level and ranking protocols add corrections too, with
    references); the paper's design: the base is the source and the trap its Source+error text."""
    rng = random.Random(seed or secrets.token_hex(16))
    sentences = corpus.sentences.filter(domain=domain) if domain else corpus.sentences.all()
    rows = list(sentences.order_by("position").values_list("pk", "position", "text"))
    bases = (
        _bases(rows, systems)
        if design == TrapDesign.HIDDEN
        else {pk: [(text, "the source")] for pk, _, text in rows}
    )
    if design == TrapDesign.HIDDEN and not bases:
        raise GecInputError("choose systems with outputs to see traps of their outputs")
    rows = [row for row in rows if row[0] in bases]
    picked = rng.sample(rows, min(len(rows), count * PREVIEW_SCAN))
    refs = corpus_references(corpus.pk, [pk for pk, _, _ in picked])
    rules = protocol_get(protocol)
    # an added correction is one the references agree on: without any, the preview shows none
    shares = {k: w for k, w in rules.trap_kinds.items() if w and (refs or k not in BETTER_KINDS)}
    shown: set[tuple[int, str]] = set()
    made: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    examples: list[TrapExample] = []
    for pk, position, source in [row for _ in range(PREVIEW_SCAN) for row in picked][: count * PREVIEW_SCAN]:
        if len(examples) == count:
            break
        options = {"min_drop": min_drop, "error_types": error_types, "n_errors": n_errors}
        if design == TrapDesign.HIDDEN:
            # the kind made least for its weight, as a campaign balances them, of those not left out
            # after their misses; when every kind is, any serves
            live = [k for k in shares if missed[k] < PREVIEW_MISSES]
            kind = min(live or shares, key=lambda k: made[k] / shares[k])
            kinds = (kind,) if live else tuple(shares)
            base, base_from = _base(bases[pk], source, kind, rng)
            others = [text for text, _ in bases[pk]]
            trap = make_trap(
                base,
                source,
                refs.get(pk, ()),
                seed=f"{rng.random()}",
                avoid=others,
                kinds=kinds,
                reference_edits=rules.trap_reference_edits,
                **options,
            )
            if trap is None and kind == UNDONE_CORRECTION:  # every correction undone: the source
                trap = source_trap(
                    base,
                    source,
                    refs.get(pk, ()),
                    min_drop=min_drop,
                    reference_edits=rules.trap_reference_edits,
                )
                if trap is not None and any(normalise(trap.text) == normalise(o) for o in others):
                    trap = None  # the source is on the screen already: two texts alike never share one
            missed[kind] = 0 if trap is not None and trap.kind == kind else missed[kind] + 1
        else:
            base, base_from = source, "the source"
            trap = source_error(source, refs.get(pk, ()), seed=f"{rng.random()}", **options)
        if trap is not None and (pk, trap.text) not in shown:
            shown.add((pk, trap.text))
            made[trap.kind] += 1
            examples.append(_example(corpus, position, source, base, base_from, trap))
    return examples


def _bases(rows: list[tuple[int, int, str]], systems: Iterable[System]) -> dict[int, list[tuple[str, str]]]:
    """Per sentence id, its distinct output texts with the names of the systems that wrote each."""
    names = {s.pk: s.name for s in systems}
    by_sentence: dict[int, dict[str, tuple[str, list[str]]]] = {}
    outputs = Output.objects.filter(system_id__in=list(names), sentence_id__in=[pk for pk, _, _ in rows])
    for sentence_id, system_id, text in outputs.order_by("system__name").values_list(
        "sentence_id", "system_id", "text"
    ):
        group = by_sentence.setdefault(sentence_id, {}).setdefault(normalise(text), (text, []))
        group[1].append(names[system_id])
    return {
        pk: [(text, ", ".join(who)) for text, who in groups.values()] for pk, groups in by_sentence.items()
    }


def _base(choices: list[tuple[str, str]], source: str, kind: str, rng: random.Random) -> tuple[str, str]:
    """A random output as the base; to undo a correction, one that has a correction when any has."""
    if kind == UNDONE_CORRECTION:
        edited = [c for c in choices if normalise(c[0]) != normalise(source)]
        choices = edited or choices
    return rng.choice(choices)


def _example(
    corpus: Corpus, position: int, source: str, base: str, base_from: str, trap: Trap
) -> TrapExample:
    tokenized = corpus.tokenized
    return TrapExample(
        line=position + 1,
        source=shown(source, tokenized),
        base=shown(base, tokenized),
        base_from=base_from,
        trap=shown(trap.text, tokenized),
        kind=KIND_LABELS[trap.kind],
        judged="better" if trap.kind in BETTER_KINDS else "worse",
        base_quality=trap.base_quality,
        quality=trap.quality,
        changes=word_diff(shown(base, tokenized), shown(trap.text, tokenized)),
    )


def trap_system_for_campaign(
    *, corpus: Corpus, error_types: Sequence[str] | None, n_errors: int | None, min_drop: float
) -> System:
    """The paper's Source+error system made now for a campaign, under a name the corpus has free."""
    taken = set(corpus.systems.values_list("name", flat=True))
    name = next(
        n for n in ("source+error", *(f"source+error {i}" for i in range(2, 10_000))) if n not in taken
    )
    return trap_system_generate(
        corpus=corpus, name=name, min_drop=min_drop, error_types=error_types, n_errors=n_errors
    )
