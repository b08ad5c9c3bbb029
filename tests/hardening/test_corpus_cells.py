"""Sentences x systems bounded while a corpus is checked (issue 36 review, finding 2).

A corpus is saved as one Output per system per sentence in one transaction. An M2 file whose first
block names 200 annotators, then a million blocks of ``S x`` (a few KB of gzip), made 200M Output rows;
plain text with 100 reference files of empty lines likewise. ``CorpusStream.scan`` now refuses past
``CORPUS_MAX_CELLS`` as the rows are read, and a save batch holds ``BATCH_CELLS`` objects, not 2,000 rows
whatever the systems. The limit is set small here so that the files stay small; the rule is the same.
"""

from __future__ import annotations

import gzip
import io

import pytest
from django.conf import settings as django_settings

from annotate import streaming
from annotate.formats.readers import m2_stream
from annotate.models import Corpus, Output, Sentence, System
from annotate.services import corpus_import_text
from annotate.streaming import BATCH, BATCH_CELLS, batch_rows, corpus_save
from geceval.errors import GecInputError
from tests import factories

pytestmark = pytest.mark.django_db


def _m2(annotators: int, blocks: int) -> bytes:
    first = "S He go home .\n" + "".join(
        f"A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||{a}\n" for a in range(annotators)
    )
    return gzip.compress((first + "\n" + "S x\n\n" * blocks).encode())


def test_the_default_admits_a_full_size_corpus_with_many_systems_and_the_public_ones():
    assert django_settings.CORPUS_MAX_CELLS >= 1_000_000 * 13  # the sentence limit x CoNLL-14's systems
    assert django_settings.CORPUS_MAX_CELLS >= 1312 * 13 and django_settings.CORPUS_MAX_CELLS >= 747 * 4


def test_an_m2_file_naming_many_annotators_then_many_blocks_is_refused_before_anything_is_saved(settings):
    settings.CORPUS_MAX_CELLS = 10_000
    project = factories.project(factories.user("cells-m2", "researcher"))
    data = _m2(200, 100)  # 101 sentences x 200 annotators = 20,200 outputs
    assert len(data) < 2000
    with pytest.raises(GecInputError, match=r"more than 10000 outputs.*CORPUS_MAX_CELLS") as caught:
        corpus_save(project=project, name="bomb", stream=m2_stream(io.BytesIO(data)))
    assert caught.value.line <= 10_000 // 200 + 1  # refused as soon as the count passed, not at the end
    assert not Corpus.objects.exists() and not Output.objects.exists()


def test_plain_text_with_many_reference_files_is_refused_past_the_cell_limit(settings):
    settings.CORPUS_MAX_CELLS = 100
    project = factories.project(factories.user("cells-txt", "researcher"))
    source = b"He go home .\n" * 30
    with pytest.raises(GecInputError, match="26 sentences x 4 systems"):
        corpus_import_text(project=project, name="refs", source=source, references=[b"\n" * 30] * 4)
    assert not Corpus.objects.exists() and not Sentence.objects.exists()
    corpus_import_text(project=project, name="refs", source=source, references=[b"\n" * 30] * 3)
    assert Output.objects.count() == 90  # 30 x 3 cells: at the limit, saved


def test_adding_a_system_past_the_cell_limit_is_refused(settings):
    from annotate.streaming import outputs_import_streamed

    settings.CORPUS_MAX_CELLS = 100
    project = factories.project(factories.user("cells-add", "researcher"))
    corpus = corpus_import_text(project=project, name="c", source=b"a\n" * 40, references=[b"b\n" * 40] * 2)
    with pytest.raises(GecInputError, match="40 sentences x 3 systems"):
        outputs_import_streamed(corpus=corpus, system_name="sys", kind="model", file=b"c\n" * 40)
    assert System.objects.filter(corpus=corpus).count() == 2


def test_save_batches_are_sized_by_cells_not_rows(monkeypatch):
    assert batch_rows(0) == batch_rows(9) == BATCH and batch_rows(199) == BATCH_CELLS // 200
    monkeypatch.setattr(streaming, "BATCH_CELLS", 50)
    project = factories.project(factories.user("cells-batch", "researcher"))
    sizes: list[int] = []
    real = Sentence.objects.bulk_create

    def spy(objs, *args, **kwargs):
        sizes.append(len(objs))
        return real(objs, *args, **kwargs)

    monkeypatch.setattr(Sentence.objects, "bulk_create", spy)
    corpus_import_text(project=project, name="b", source=b"a\n" * 30, references=[b"b\n" * 30] * 9)
    assert sizes == [5] * 6  # 50 objects a batch: 5 sentences and their 45 outputs
    assert Output.objects.count() == 270
