"""Scores of a metric run elsewhere (SOME, IMPARA, PT-M2, ...) uploaded for a corpus, to be
meta-evaluated beside ours (``ranking.analysis.sentence_meta``).

A file holds one metric, per system or per sentence, in any form
``geceval.metaeval.kobayashi2024.read_scores`` reads (CSV or TSV with ``system``, ``score`` and for
sentences an ``item`` column; JSON ``{"SYSTEM": score}``, ``{"SYSTEM": [score per line]}`` or
``{"SYSTEM": {"ITEM": score}}``; ``score --json [--sentence]`` output). Sentences are named as the
judgment files name them (:func:`sentence_items`): by their own id where the corpus keeps ids (a
corpus the judgment importer made, e.g. from the CoNLL-14 Appraise file), else by their 0-based
line, as ``python -m geceval meta-eval`` does; a JSON list is in that order from 0. Every system
must be a system of the corpus, else the upload is refused with a sentence and nothing is saved.
Items that are not sentences of the corpus are left out and counted (a corpus made by importing
judgments holds only the judged sentences, while a metric's file usually scores every line); a
file none of whose items is a sentence of the corpus is refused. A second upload under the same name
replaces the first (runs made before keep the copy they took).

The file is read as it streams (issue 36; ``geceval.metaeval.kobayashi2024.score_rows``): a CSV or TSV a line
at a time, within the limits every upload has (``UPLOAD_MAX_BYTES`` after decompression,
``MAX_SENTENCES`` lines of ``MAX_LINE_CHARS`` characters), each score checked and kept or counted as
it is read, at most ``IMPORTED_SCORES_MAX`` scores in a file and ``MemoryGuard`` watching; a JSON file
is parsed whole, so at most ``IMPORTED_SCORES_JSON_MAX_BYTES``. A refused file saves nothing (the
save comes after the whole file is read) and leaves a previous upload under the same name as it was.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from annotate.models import Corpus, Sentence, System
from annotate.records import MAX_LINE_CHARS, MAX_SENTENCES
from annotate.selectors import corpus_item_names
from annotate.streaming import MemoryGuard
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from geceval.formats.stream import source_name
from geceval.metaeval import kobayashi2024 as m24
from ranking.analysis.models import ImportedScores, ScoreLevel

NAME_MAX = ImportedScores._meta.get_field("name").max_length


def _listed(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _named_by_id(corpus_id: int) -> bool:
    return bool(corpus_item_names(corpus_id))


def sentence_items(corpus_id: int) -> dict[str, int]:
    """Item name -> sentence id, by the rule the judgment files follow
    (``annotate.selectors.corpus_item_names``): the sentence's own id where the corpus keeps them
    (every corpus the judgment importer made), else its 0-based line."""
    names = corpus_item_names(corpus_id)
    if names:
        return {name: pk for pk, name in names.items()}
    return {
        str(pos): pk for pk, pos in Sentence.objects.filter(corpus_id=corpus_id).values_list("pk", "position")
    }


UNKNOWN_SYSTEMS_SHOWN = 100
"""Distinct unknown system names gathered before the file is refused (a file of a million names
would otherwise be held to list them)."""


def _limits(guard: MemoryGuard) -> m24.ScoreLimits:
    return m24.ScoreLimits(
        bytes=settings.UPLOAD_MAX_BYTES,
        lines=MAX_SENTENCES,
        line_chars=MAX_LINE_CHARS,
        json_bytes=settings.IMPORTED_SCORES_JSON_MAX_BYTES,
        scores=settings.IMPORTED_SCORES_MAX,
        check=guard.check,
    )


def imported_scores_save(
    *, corpus: Corpus, name: str, source: Source, user=None, file_name: str | None = None
) -> ImportedScores:
    """Read ``source`` (a path, bytes or the upload itself: it is streamed, never opened whole) and
    save its scores under ``name``; ``file_name`` names it in messages (default: the source's name)."""
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX:
        raise GecInputError(f"give the metric a name of 1 to {NAME_MAX} characters")
    label = source_name(source, file_name)
    opened = m24.score_rows(source, name=label, limits=_limits(MemoryGuard(label)))
    level = opened.level
    systems = set(System.objects.filter(corpus=corpus).values_list("name", flat=True))
    items = sentence_items(corpus.pk) if level == ScoreLevel.SENTENCE else {}
    unknown: set[str] = set()
    left_out: set[str] = set()
    scores: dict[str, Any] = {}
    for system, item, value, where in opened.rows:
        if system not in systems:
            unknown.add(system)
            if len(unknown) >= UNKNOWN_SYSTEMS_SHOWN:
                break
            continue
        if item is None:
            if system in scores:
                raise GecInputError(f"{where}: system {system!r} listed twice", path=label)
            scores[system] = value
            continue
        per = scores.setdefault(system, {})
        if item not in items:
            left_out.add(item)
            continue
        if item in per:
            raise GecInputError(f"{where}: system {system!r} item {item} listed twice", path=label)
        per[item] = value
    if unknown:
        more = " and more" if len(unknown) >= UNKNOWN_SYSTEMS_SHOWN else ""
        raise GecInputError(
            f"not systems of corpus {corpus.name!r}: {_listed(sorted(unknown))}{more}", path=label
        )
    if not scores:
        raise GecInputError("the file has no scores", path=label)
    named = {k for per in scores.values() for k in per} if level == ScoreLevel.SENTENCE else set()
    if level == ScoreLevel.SENTENCE and not named:
        how = "sentence ids" if _named_by_id(corpus.pk) else f"lines (0 to {len(items) - 1})"
        raise GecInputError(
            f"no item of the file is a sentence of corpus {corpus.name!r} (items are its {how}; "
            f"the file has {_listed(sorted(left_out))})",
            path=label,
        )
    with transaction.atomic():
        saved, _made = ImportedScores.objects.update_or_create(
            corpus=corpus,
            name=name,
            defaults={
                "level": level,
                "scores": scores,
                "systems": len(scores),
                "sentences": len(named),
                "file_name": label[-255:],
                "left_out": len(left_out),
                "created_by": user,
            },
        )
    return saved
