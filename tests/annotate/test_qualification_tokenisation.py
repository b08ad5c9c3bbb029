"""Qualification answers are typed as people write and graded tokenised the way the corpus is."""

from __future__ import annotations

import pytest

from annotate.rewrites import services as svc
from annotate.rewrites.tokens import tokenise_like
from annotate.services import SentenceRecord, corpus_create, outputs_import_lines
from tests.factories import team

pytestmark = pytest.mark.django_db

SOURCE = "He don't like to eat vegetable ."
REFERENCE = "He doesn't like to eat vegetables ."
TYPED = "He doesn't like to eat vegetables."


@pytest.mark.parametrize("flagged_tokenized", [True, False])
def test_typed_answer_equal_to_the_detokenised_reference_scores_one_on_errant_and_gleu(
    flagged_tokenized, django_capture_on_commit_callbacks
):
    researcher, annotators, _, project = team()
    corpus = corpus_create(
        project=project, name="c", tokenized=flagged_tokenized, sentences=[SentenceRecord(text=SOURCE)]
    )
    outputs_import_lines(corpus=corpus, system_name="ref0", kind="reference", lines=[REFERENCE], filename="r")
    qualification = svc.qualification_create(
        project=project, name="q", sentences=list(corpus.sentences.all()), created_by=researcher
    )
    attempt = svc.qualification_start(qualification=qualification, worker=annotators[0])
    [sample] = qualification.samples.all()
    with django_capture_on_commit_callbacks(execute=True):
        svc.qualification_submit(attempt=attempt, answers={sample.pk: TYPED})
    assert list(attempt.answers.values_list("errant_f05", "gleu")) == [(1.0, 1.0)]


def test_answers_take_the_corpus_words_from_source_and_references():
    assert tokenise_like(TYPED, source=SOURCE, references=[REFERENCE], tokenized=True) == REFERENCE
    # Stored PTB-split by an older submit: undone, then tokenised like the corpus.
    stored = "He does n't like to eat vegetables ."
    assert tokenise_like(stored, source=SOURCE, references=[REFERENCE], tokenized=True) == REFERENCE
    # A corpus of natural text is left as typed.
    assert (
        tokenise_like(TYPED, source="He don't like.", references=["He doesn't like."], tokenized=False)
        == TYPED
    )
