"""Corpus import and export over the database (all-or-nothing import; export reads only)."""

from __future__ import annotations

from django.db import transaction

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.writers import write
from annotate.models import Corpus, Project
from annotate.services import SentenceRecord, corpus_create
from geceval.errors import GecInputError


@transaction.atomic
def corpus_import(
    *,
    project: Project,
    name: str,
    data: CorpusData,
    language: str = "en",
    description: str = "",
    tokenized: bool | None = None,
) -> Corpus:
    """Create a corpus with its sentences and systems in one transaction.

    ``data`` is checked whole first (every system covers every sentence, names
    unique); any error leaves the database unchanged. ``tokenized`` defaults to
    the reader's reading (True for M2).
    """
    from ranking.services import outputs_import_lines

    data.check(where=name)
    corpus = corpus_create(
        project=project,
        name=name,
        sentences=data.sentences,
        language=language,
        description=description,
        tokenized=data.tokenized if tokenized is None else tokenized,
    )
    for system in data.systems:
        outputs_import_lines(
            corpus=corpus, system_name=system.name, kind=system.kind, lines=system.lines, filename=system.name
        )
    return corpus


def corpus_data(corpus: Corpus) -> CorpusData:
    """Everything a layout can hold of a corpus: sentences in position order and every system."""
    from ranking.models import Output

    rows = list(
        corpus.sentences.order_by("position").values_list(
            "id", "text", "domain", "document_id", "paragraph_position", "metadata"
        )
    )
    index = {row[0]: i for i, row in enumerate(rows)}
    sentences = [
        SentenceRecord(text=t, domain=d, document_id=doc, paragraph_position=p, metadata=m or {})
        for _, t, d, doc, p, m in rows
    ]
    systems = {s.pk: SystemData(s.name, s.kind, [None] * len(rows)) for s in corpus.systems.all()}
    for system_id, sentence_id, text in Output.objects.filter(system__corpus=corpus).values_list(
        "system_id", "sentence_id", "text"
    ):
        systems[system_id].lines[index[sentence_id]] = text
    for s in systems.values():
        missing = [i for i, line in enumerate(s.lines) if line is None]
        if missing:
            raise GecInputError(
                f"system {s.name!r} has no output for sentence {missing[0]}", path=corpus.name
            )
    return CorpusData(sentences, list(systems.values()), corpus.tokenized)


def corpus_export(corpus: Corpus, *, fmt: str, untyped: bool = False) -> dict[str, bytes]:
    """The files of ``corpus`` in a layout (see :mod:`annotate.formats`), as ``{path: bytes}``."""
    return write(corpus_data(corpus), fmt, corpus.name, untyped=untyped)
