"""Writes for qualification screening: samples, attempts, automatic grading, expert decisions."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotate.models import (
    Project,
    Qualification,
    QualificationAnswer,
    QualificationAttempt,
    QualificationSample,
    QualificationStatus,
    Sentence,
)
from annotate.rewrites.selectors import may_review_in, sentence_references
from annotate.rewrites.tokens import tokenise_like
from annotate.rewrites.validation import RewriteError, rewrite_clean
from annotate.tasking import task_send_on_commit
from geceval.metrics.errant.scorer import errant_score_texts
from geceval.metrics.gleu.plus import gleu_plus

QUALIFICATION_MAX_SAMPLES = 10


@transaction.atomic
def qualification_create(
    *,
    project: Project,
    name: str,
    sentences: list[Sentence],
    created_by: AbstractBaseUser,
    instructions: str = "",
) -> Qualification:
    """A screening test over sample sentences of the project's corpora (5 is the usual number)."""
    name = name.strip()
    if not name:
        raise RewriteError("The qualification needs a name.")
    if not 1 <= len(sentences) <= QUALIFICATION_MAX_SAMPLES:
        raise RewriteError(f"Choose 1 to {QUALIFICATION_MAX_SAMPLES} sample sentences (5 is usual).")
    if len({s.pk for s in sentences}) != len(sentences):
        raise RewriteError("A sample sentence is listed twice.")
    if any(s.corpus.project_id != project.pk for s in sentences):
        raise RewriteError("Sample sentences must come from the project's corpora.")
    if Qualification.objects.filter(project=project, name=name).exists():
        raise RewriteError(f"A qualification named {name!r} already exists in this project.")
    qualification = Qualification.objects.create(
        project=project, name=name, instructions=instructions.replace("\r\n", "\n"), created_by=created_by
    )
    QualificationSample.objects.bulk_create(
        [
            QualificationSample(qualification=qualification, sentence=s, position=i)
            for i, s in enumerate(sentences)
        ]
    )
    return qualification


@transaction.atomic
def qualification_start(*, qualification: Qualification, worker: AbstractBaseUser) -> QualificationAttempt:
    """The worker's attempt; a rejected worker starts again only when the researcher allowed a retry."""
    attempt, created = QualificationAttempt.objects.select_for_update().get_or_create(
        qualification=qualification, worker=worker
    )
    if created or attempt.status != QualificationStatus.REJECTED:
        return attempt
    if not attempt.retry_allowed:
        raise RewriteError(
            "You did not pass this qualification; you may retry only if the researcher allows it."
        )
    attempt.answers.all().delete()
    attempt.status = QualificationStatus.IN_PROGRESS
    attempt.retry_allowed = False
    attempt.tries += 1
    attempt.reviewer = None
    attempt.reviewed = None
    attempt.submitted = None
    attempt.save()
    return attempt


@transaction.atomic
def qualification_submit(
    *, attempt: QualificationAttempt, answers: Mapping[int, str]
) -> QualificationAttempt:
    """Save every sample's rewrite (keyed by sample id) and queue the automatic grading."""
    locked = QualificationAttempt.objects.select_for_update().get(pk=attempt.pk)
    if locked.status != QualificationStatus.IN_PROGRESS:
        raise RewriteError("These answers have already been submitted.")
    samples = list(locked.qualification.samples.select_related("sentence__corpus"))
    if set(answers) != {s.pk for s in samples}:
        raise RewriteError("Rewrite every sample sentence.")
    errors = []
    cleaned = {}
    for i, sample in enumerate(samples, start=1):
        try:
            cleaned[sample.pk] = rewrite_clean(
                answers[sample.pk], source=sample.sentence.text, tokenized=sample.sentence.corpus.tokenized
            )
        except RewriteError as exc:
            errors.append(f"Sentence {i}: {exc}")
    if errors:
        raise RewriteError(" ".join(errors))
    QualificationAnswer.objects.bulk_create(
        [QualificationAnswer(attempt=locked, sample_id=pk, text=text) for pk, text in cleaned.items()]
    )
    locked.status = QualificationStatus.SUBMITTED
    locked.submitted = timezone.now()
    locked.save(update_fields=["status", "submitted"])

    # a broker outage must not lose the answers; task_grade_pending_qualifications catches up.
    task_send_on_commit("annotate.rewrites.tasks.task_qualification_grade", attempt_id=locked.pk)
    return locked


def qualification_grade(*, attempt_id: int) -> int:
    """Sentence GLEU+ and ERRANT F0.5 of each ungraded answer against its sample's references.

    GLEU+ is the per-sentence score of geceval.metrics.gleu.plus.gleu_plus (every zero
    n-gram count replaced by 1, averaged over references); ERRANT F0.5 is the
    single-sentence score of geceval.metrics.errant.scorer.errant_score_texts against
    all references. Samples without references stay ungraded (None).
    Returns how many answers were graded; re-running is harmless.
    """

    graded = 0
    for answer in QualificationAnswer.objects.filter(attempt_id=attempt_id, gleu__isnull=True).select_related(
        "sample__sentence__corpus"
    ):
        sentence = answer.sample.sentence
        source = sentence.text
        refs = sentence_references(sentence)
        if not refs:
            continue
        # The answer was typed as people write; the references are as the corpus is tokenised.
        text = tokenise_like(answer.text, source=source, references=refs, tokenized=sentence.corpus.tokenized)
        gleu = gleu_plus([source], [[r] for r in refs], [text], sentence=True, iterations=1)
        errant = errant_score_texts([source], [[r] for r in refs], [text])
        QualificationAnswer.objects.filter(pk=answer.pk).update(
            gleu=round(gleu.sentence_scores[0], 4), errant_f05=round(errant.f, 4)
        )
        graded += 1
    return graded


@transaction.atomic
def qualification_review(
    *, attempt: QualificationAttempt, reviewer: AbstractBaseUser, accept: bool
) -> QualificationAttempt:
    """An expert's decision on a submitted attempt; acceptance grants the qualification."""
    if not may_review_in(reviewer, attempt.qualification.project_id):
        raise RewriteError("Only experts review qualification answers.")
    if attempt.worker_id == reviewer.pk:
        raise RewriteError("Experts never review their own answers.")
    status = QualificationStatus.ACCEPTED if accept else QualificationStatus.REJECTED
    updated = QualificationAttempt.objects.filter(pk=attempt.pk, status=QualificationStatus.SUBMITTED).update(
        status=status, reviewer=reviewer, reviewed=timezone.now()
    )
    if updated != 1:
        raise RewriteError("This attempt is not awaiting review.")
    attempt.refresh_from_db()
    return attempt


def qualification_allow_retry(*, attempt: QualificationAttempt) -> QualificationAttempt:
    """The researcher lets a rejected worker take the test again."""
    if attempt.status != QualificationStatus.REJECTED:
        raise RewriteError("Only a rejected worker needs permission to retry.")
    attempt.retry_allowed = True
    attempt.save(update_fields=["retry_allowed"])
    return attempt
