"""System outputs: import from line-aligned files, and the generated Source+error trap system."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from annotate.models import Corpus
from annotate.services import MAX_SYSTEMS, InputFile, check_same_length, text_lines
from geceval.errors import GecInputError
from ranking.models import Output, System, SystemKind


@transaction.atomic
def outputs_import_lines(
    *, corpus: Corpus, system_name: str, kind: str, lines: list[str], filename: str
) -> System:
    """One system's line-aligned outputs. An empty line is a valid (empty) output."""
    system_name = system_name.strip()
    if not system_name:
        raise GecInputError("the system needs a name", path=filename)
    if kind not in SystemKind.values:
        raise GecInputError(f"unknown system kind {kind!r}; one of {', '.join(SystemKind.values)}")
    sentence_ids = list(corpus.sentences.order_by("position").values_list("id", flat=True))
    check_same_length(len(sentence_ids), f"corpus {corpus.name!r}", lines, filename)
    if System.objects.filter(corpus=corpus, name=system_name).exists():
        raise GecInputError(f"a system named {system_name!r} already exists in corpus {corpus.name!r}")
    if System.objects.filter(corpus=corpus).count() >= MAX_SYSTEMS:
        raise GecInputError(f"corpus {corpus.name!r} already has {MAX_SYSTEMS} systems, the most it may have")
    bad = next((i for i, line in enumerate(lines, start=1) if "\x00" in line), None)
    if bad is not None:
        raise GecInputError("contains a NUL character", path=filename, line=bad)
    try:
        with transaction.atomic():
            system = System.objects.create(corpus=corpus, name=system_name, kind=kind)
    except IntegrityError:
        raise GecInputError(
            f"a system named {system_name!r} already exists in corpus {corpus.name!r}"
        ) from None
    Output.objects.bulk_create(
        [Output(system=system, sentence_id=sid, text=text) for sid, text in zip(sentence_ids, lines)],
        batch_size=2000,
    )
    return system


def outputs_import(*, corpus: Corpus, system_name: str, kind: str, file: InputFile) -> System:
    if not file.data:
        raise GecInputError("file is empty", path=file.name)
    return outputs_import_lines(
        corpus=corpus, system_name=system_name, kind=kind, lines=text_lines(file), filename=file.name
    )


def trap_system_generate(*, corpus: Corpus, seed: int = 0, name: str = "source+error") -> System:
    """GMEG's trap: every source sentence with 1-2 rule-inserted errors (never equal to the source)."""
    from geceval.insert_errors import insert_errors_lines

    sources = list(corpus.sentences.order_by("position").values_list("text", flat=True))
    traps = insert_errors_lines(sources, seed=seed)
    return outputs_import_lines(
        corpus=corpus,
        system_name=name,
        kind=SystemKind.SOURCE_ERROR,
        lines=[t.text for t in traps],
        filename=f"generated traps (seed {seed})",
    )
