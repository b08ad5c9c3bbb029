"""Corpus import and export over the database (all-or-nothing import; export reads only)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from annotate.formats.campaign import RewriteRecord, build_campaign_corpus, pseudonym
from annotate.formats.data import CorpusData, SystemData
from annotate.formats.readers import data_stream, upload_stream
from annotate.formats.writers import EXPORT_FORMATS, write, write_jsonl
from annotate.models import Corpus, Output, Project, Rewrite
from annotate.rewrites.selectors import rewrite_campaign_sentences
from annotate.services import SentenceRecord, outputs_import_lines
from annotate.streaming import Progress, corpus_save
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.progress import ProgressFn, no_progress


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
    the reader's reading (True for M2). Saved as every import is (``annotate.streaming``).
    """
    return corpus_save(
        project=project,
        name=name,
        stream=data_stream(data, where=name),
        language=language,
        description=description,
        tokenized=tokenized,
    )


def corpus_data(corpus: Corpus) -> CorpusData:
    """Everything a layout can hold of a corpus: sentences in position order and every system."""

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


def corpus_export(
    corpus: Corpus, *, fmt: str, untyped: bool = False, progress: ProgressFn = no_progress
) -> dict[str, bytes]:
    """The files of ``corpus`` in a layout (see :mod:`annotate.formats`), as ``{path: bytes}``;
    ``progress(done, total)``: the M2 edits, per (sentence, reference)."""
    return write(corpus_data(corpus), fmt, corpus.name, untyped=untyped, progress=progress)


# -- rewrite campaigns --------------------------------------------------------------------------


def campaign_rewrite_records(campaign) -> list[RewriteRecord]:
    """Every rewrite of a campaign as plain records, annotators and reviewers pseudonymised."""
    from django.conf import settings

    secret = settings.SECRET_KEY
    rows = Rewrite.objects.filter(campaign=campaign).values_list(
        "pk",
        "sentence__position",
        "annotator_id",
        "text",
        "flag",
        "status",
        "reviewed_text",
        "group",
        "difficulty",
        "reviewer_id",
        "seconds",
    )
    return [
        RewriteRecord(
            position=pos,
            annotator=pseudonym(ann, secret),
            text=text,
            flag=flag,
            status=status,
            reviewed_text=reviewed,
            group=group,
            difficulty=difficulty,
            reviewer=pseudonym(reviewer, secret) if reviewer is not None else None,
            seconds=seconds,
            order=pk,
        )
        for pk, pos, ann, text, flag, status, reviewed, group, difficulty, reviewer, seconds in rows
    ]


def campaign_corpus(
    campaign,
    *,
    n: int | None = None,
    prefix: str = "ref",
    include_corpus_systems: bool = True,
    every_sentence: bool = False,
) -> tuple[CorpusData, list[dict]]:
    """The corpus a campaign's accepted rewrites make (see :mod:`annotate.formats.campaign`)."""

    positions = list(rewrite_campaign_sentences(campaign).values_list("position", flat=True))
    return build_campaign_corpus(
        corpus_data(campaign.corpus),
        campaign_rewrite_records(campaign),
        n=n or campaign.rewrites_per_sentence,
        prefix=prefix,
        positions=positions,
        include_corpus_systems=include_corpus_systems,
        every_sentence=every_sentence,
    )


def campaign_export(
    campaign, *, fmt: str, untyped: bool = False, n: int | None = None, include_corpus_systems: bool = True
) -> dict[str, bytes]:
    """Files named after the campaign: JFLEG/GMEG/M2 of the sentences with N accepted rewrites, JSONL of
    every sentence with every rewrite (references only where N are accepted)."""
    data, extra = campaign_corpus(
        campaign, n=n, include_corpus_systems=include_corpus_systems, every_sentence=fmt == "jsonl"
    )
    if fmt == "jsonl":
        return write_jsonl(data, campaign.name, extra)
    return write(data, fmt, campaign.name, untyped=untyped)


def corpus_export_problems(corpus: Corpus) -> dict[str, str]:
    """Why a format cannot be written now, by format (absent: it can), shown on the form before a click."""
    try:
        data = corpus_data(corpus)
    except GecInputError as exc:
        return dict.fromkeys(EXPORT_FORMATS, exc.problem)
    if not data.references():
        return {"m2": "the corpus has no references to write as M2 edits"}
    return {}


def campaign_export_problems(campaign, *, n: int | None = None) -> dict[str, str]:
    """As :func:`corpus_export_problems`, for a rewrite campaign's export."""
    problems: dict[str, str] = {}
    try:
        campaign_corpus(campaign, n=n)
    except GecInputError as exc:
        problems = dict.fromkeys(("jfleg", "gmeg", "m2"), exc.problem)
    try:
        campaign_corpus(campaign, n=n, every_sentence=True)
    except GecInputError as exc:
        problems["jsonl"] = exc.problem
    return problems


@transaction.atomic
def campaign_references_add(campaign, *, prefix: str = "ref", n: int | None = None) -> list:
    """Add a campaign's accepted rewrites to its own corpus as reference systems.

    Needs every sentence of the corpus to have N accepted rewrites and no
    MERGE (a joined line cannot live in the original corpus: export the
    campaign instead and import the files as a new corpus).
    """

    corpus = campaign.corpus
    base = corpus_data(corpus)
    data, _ = build_campaign_corpus(
        base, campaign_rewrite_records(campaign), n=n or campaign.rewrites_per_sentence, prefix=prefix
    )
    if len(data.sentences) != len(base.sentences) or any(
        s.metadata.get("merged_positions") for s in data.sentences
    ):
        raise GecInputError(
            f"only {len(data.sentences)} of {len(base.sentences)} sentences have their rewrites (or some are "
            "merged): export the campaign and import the files as a new corpus instead"
        )
    existing = {s.name for s in base.systems}
    return [
        outputs_import_lines(
            corpus=corpus, system_name=s.name, kind=s.kind, lines=s.lines, filename=campaign.name
        )
        for s in data.systems
        if s.name not in existing
    ]


def corpus_import_upload(
    *,
    project: Project,
    name: str,
    fmt: str,
    source: Source,
    others: Sequence[Source] = (),
    names: Sequence[str] = (),
    domain: str = "",
    tokenized: bool = False,
    language: str = "en",
    description: str = "",
    progress: Progress | None = None,
) -> Corpus:
    """A corpus uploaded in one of the formats ``import_corpus --format`` reads besides plain text and
    JFLEG (``corpus_import_text``): ``m2`` or ``jsonl`` (one file), ``gmeg`` (a domain folder's
    ``source`` and its other files, named by ``names``). M2 is always tokenised, as on the command line."""
    stream = upload_stream(fmt, source, list(others), names=list(names), domain=domain, tokenized=tokenized)
    return corpus_save(
        project=project,
        name=name,
        stream=stream,
        language=language,
        description=description,
        tokenized=True if fmt == "m2" else tokenized,
        progress=progress,
    )
