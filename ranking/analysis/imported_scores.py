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
"""

from __future__ import annotations

from django.db import transaction

from annotate.models import Corpus, Sentence, System
from annotate.selectors import corpus_item_names
from annotate.services import open_upload
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
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


def imported_scores_save(*, corpus: Corpus, name: str, source: Source, user=None) -> ImportedScores:
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX:
        raise GecInputError(f"give the metric a name of 1 to {NAME_MAX} characters")
    found = open_upload(source)
    level, scores = m24.read_scores(found)
    if not scores:
        raise GecInputError("the file has no scores", path=found.name)
    systems = set(System.objects.filter(corpus=corpus).values_list("name", flat=True))
    unknown = sorted(s for s in scores if s not in systems)
    if unknown:
        raise GecInputError(f"not systems of corpus {corpus.name!r}: {_listed(unknown)}", path=found.name)
    named: set[str] = set()
    left_out: set[str] = set()
    if level == ScoreLevel.SENTENCE:
        items = sentence_items(corpus.pk)
        for per in scores.values():
            named.update(k for k in per if k in items)
            left_out.update(k for k in per if k not in items)
        if not named:
            how = "sentence ids" if _named_by_id(corpus.pk) else f"lines (0 to {len(items) - 1})"
            raise GecInputError(
                f"no item of the file is a sentence of corpus {corpus.name!r} (items are its {how}; "
                f"the file has {_listed(sorted(left_out))})",
                path=found.name,
            )
        scores = {system: {k: v for k, v in per.items() if k in items} for system, per in scores.items()}
    with transaction.atomic():
        saved, _made = ImportedScores.objects.update_or_create(
            corpus=corpus,
            name=name,
            defaults={
                "level": level,
                "scores": scores,
                "systems": len(scores),
                "sentences": len(named),
                "file_name": found.name[-255:],
                "left_out": len(left_out),
                "created_by": user,
            },
        )
    return saved
