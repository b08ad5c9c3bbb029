"""Scores of a metric run elsewhere (SOME, IMPARA, PT-M2, ...) uploaded for a corpus, to be
meta-evaluated beside ours (``ranking.analysis.sentence_meta``).

A file holds one metric, per system or per sentence, in any form
``geceval.metaeval_2024.read_scores`` reads (CSV or TSV with ``system``, ``score`` and for
sentences an ``item`` column; JSON ``{"SYSTEM": score}``, ``{"SYSTEM": [score per line]}`` or
``{"SYSTEM": {"LINE": score}}``; ``score --json [--sentence]`` output). Sentences are named by
their 0-based line in the corpus, as ``python -m geceval meta-eval`` and the judgment exports name
them. Every system must be a system of the corpus and every line one of its lines; otherwise the
upload is refused with a sentence and nothing is saved. A second upload under the same name
replaces the first (runs made before keep the copy they took).
"""

from __future__ import annotations

from django.db import transaction

from annotate.models import Corpus, System
from annotate.services import open_upload
from geceval import metaeval_2024 as m24
from geceval.errors import GecInputError
from geceval.formats.inputs import Source
from ranking.analysis.models import ImportedScores, ScoreLevel

NAME_MAX = ImportedScores._meta.get_field("name").max_length


def _listed(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


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
    lines = set()
    if level == ScoreLevel.SENTENCE:
        count = corpus.sentences.count()
        for system, per in scores.items():
            bad = [i for i in per if not (i.isascii() and i.isdigit() and int(i) < count)]
            if bad:
                raise GecInputError(
                    f"system {system!r}: {_listed(bad)} not a line of the corpus (0 to {count - 1})",
                    path=found.name,
                )
            lines.update(int(i) for i in per)
            if len({int(i) for i in per}) < len(per):
                raise GecInputError(f"system {system!r}: a line is listed twice", path=found.name)
        scores = {system: {str(int(i)): v for i, v in per.items()} for system, per in scores.items()}
    with transaction.atomic():
        saved, _made = ImportedScores.objects.update_or_create(
            corpus=corpus,
            name=name,
            defaults={
                "level": level,
                "scores": scores,
                "systems": len(scores),
                "sentences": len(lines),
                "file_name": found.name[-255:],
                "created_by": user,
            },
        )
    return saved
