"""Assignment, validation, review and qualification services of rewrite collection."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotate.models import (
    QualificationStatus,
    Rewrite,
    RewriteDraft,
    RewriteSlot,
    RewriteStatus,
)
from annotate.rewrites import selectors as sel
from annotate.rewrites import services as svc
from annotate.rewrites.services import RewriteError
from annotate.rewrites.validation import max_rewrite_chars
from annotate.services import outputs_import_lines
from tests.factories import REWRITE_SOURCES as SOURCES
from tests.factories import team, tokenized_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    researcher, annotators, experts, project = team()
    corpus = tokenized_corpus(project)
    return researcher, annotators, experts, project, corpus


def make_campaign(setup, **kwargs):
    researcher, _, _, project, corpus = setup
    kwargs.setdefault("rewrites_per_sentence", 2)
    return svc.rewrite_campaign_create(
        project=project, corpus=corpus, name="c", created_by=researcher, **kwargs
    )


def submit(campaign, user, text=None, **kwargs):
    slot = svc.slot_claim(campaign=campaign, user=user)
    assert slot is not None
    text = slot.sentence.text if text is None else text
    return svc.rewrite_submit(campaign=campaign, user=user, sentence=slot.sentence, text=text, **kwargs)


# --------------------------------------------------------------------------- assignment


def test_each_sentence_gets_n_distinct_annotators_and_then_no_more(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, rewrites_per_sentence=2)
    assert campaign.slots.count() == 2 * len(SOURCES)
    for user in annotators:
        while svc.slot_claim(campaign=campaign, user=user) is not None:
            submit(campaign, user)
    per_sentence = {}
    for sentence_id, annotator_id in Rewrite.objects.values_list("sentence_id", "annotator_id"):
        per_sentence.setdefault(sentence_id, []).append(annotator_id)
    assert len(per_sentence) == len(SOURCES)
    assert all(len(a) == 2 and len(set(a)) == 2 for a in per_sentence.values())
    # the first two annotators took everything, in corpus order
    assert Rewrite.objects.filter(annotator=annotators[2]).count() == 0
    assert sel.rewrite_campaign_progress(campaign).done == len(SOURCES)


def test_a_worker_keeps_the_same_slot_until_they_submit(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup)
    first = svc.slot_claim(campaign=campaign, user=annotators[0])
    again = svc.slot_claim(campaign=campaign, user=annotators[0])
    assert first.pk == again.pk
    other = svc.slot_claim(campaign=campaign, user=annotators[1])
    assert other.sentence_id == first.sentence_id and other.pk != first.pk


def test_abandoned_claim_returns_to_the_pool_after_the_timeout(setup, settings):
    settings.ASSIGNMENT_TIMEOUT_MINUTES = 30
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, rewrites_per_sentence=1)
    now = timezone.now()
    held = svc.slot_claim(campaign=campaign, user=annotators[0], now=now)
    soon = svc.slot_claim(campaign=campaign, user=annotators[1], now=now + timedelta(minutes=29))
    assert soon.sentence_id != held.sentence_id
    late = svc.slot_claim(campaign=campaign, user=annotators[2], now=now + timedelta(minutes=31))
    assert late.pk == held.pk and late.claimed_by == annotators[2]
    # the first worker comes back with a draft: their claim was taken and no slot of the sentence is free
    svc.draft_save(campaign=campaign, user=annotators[0], sentence=held.sentence, text="x")
    with pytest.raises(RewriteError, match="no longer needs your rewrite"):
        svc.rewrite_submit(
            campaign=campaign,
            user=annotators[0],
            sentence=held.sentence,
            text="x",
            now=now + timedelta(minutes=32),
        )
    assert Rewrite.objects.count() == 0


def test_expired_claim_with_a_draft_may_still_fill_a_free_slot_of_its_sentence(setup, settings):
    settings.ASSIGNMENT_TIMEOUT_MINUTES = 30
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, rewrites_per_sentence=2)
    now = timezone.now()
    held = svc.slot_claim(campaign=campaign, user=annotators[0], now=now)
    svc.draft_save(campaign=campaign, user=annotators[0], sentence=held.sentence, text="He does n't .")
    taken = svc.slot_claim(campaign=campaign, user=annotators[1], now=now + timedelta(minutes=31))
    assert taken.pk == held.pk
    rewrite, created = svc.rewrite_submit(
        campaign=campaign,
        user=annotators[0],
        sentence=held.sentence,
        text="He doesn't.",
        now=now + timedelta(minutes=32),
    )
    assert created and rewrite.slot.index == 1 and rewrite.text == "He does n't ."


def test_workers_cannot_pick_a_sentence_they_were_not_given(setup):
    _, annotators, _, _, corpus = setup
    campaign = make_campaign(setup)
    last = corpus.sentences.order_by("-position").first()
    with pytest.raises(RewriteError, match="not assigned to you"):
        svc.rewrite_submit(campaign=campaign, user=annotators[0], sentence=last, text="This is a sentence .")


def test_skipped_sentence_is_not_offered_again_to_that_worker(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup)
    slot = svc.slot_claim(campaign=campaign, user=annotators[0])
    svc.rewrite_skip(campaign=campaign, user=annotators[0], sentence=slot.sentence)
    nxt = svc.slot_claim(campaign=campaign, user=annotators[0])
    assert nxt.sentence.position == slot.sentence.position + 1
    assert svc.slot_claim(campaign=campaign, user=annotators[1]).sentence_id == slot.sentence_id


def test_resubmission_returns_the_first_rewrite_and_the_database_refuses_a_second(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup)
    rewrite, created = submit(campaign, annotators[0], "He does n't like cats , she said .")
    assert created
    again, created_again = svc.rewrite_submit(
        campaign=campaign, user=annotators[0], sentence=rewrite.sentence, text="Something else ."
    )
    assert (again.pk, created_again, again.text) == (rewrite.pk, False, "He does n't like cats , she said .")
    with pytest.raises(IntegrityError), transaction.atomic():
        Rewrite.objects.create(
            campaign=campaign, sentence=rewrite.sentence, annotator=annotators[0], text="y"
        )


def test_database_refuses_bad_difficulty_and_text_with_a_flag(setup):
    _, annotators, _, _, corpus = setup
    campaign = make_campaign(setup)
    sentence = corpus.sentences.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Rewrite.objects.create(
            campaign=campaign, sentence=sentence, annotator=annotators[0], text="a", difficulty=6
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Rewrite.objects.create(
            campaign=campaign, sentence=sentence, annotator=annotators[0], text="a", flag="merge"
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Rewrite.objects.create(campaign=campaign, sentence=sentence, annotator=annotators[0], text="")


def test_per_group_slots_split_experts_and_crowd(setup):
    _, annotators, experts, _, _ = setup
    groups = {Group.objects.get(name="annotator"): 2, Group.objects.get(name="expert"): 1}
    campaign = make_campaign(setup, groups=groups)
    assert campaign.rewrites_per_sentence == 3
    rewrite, _ = submit(campaign, experts[0])
    assert rewrite.group == "expert"
    # the only expert slot of sentence 0 is taken: the second expert starts on sentence 1
    assert svc.slot_claim(campaign=campaign, user=experts[1]).sentence.position == 1
    rewrite, _ = submit(campaign, annotators[0])
    assert (rewrite.group, rewrite.sentence.position) == ("annotator", 0)
    progress = {
        g.group: (g.done, g.in_progress, g.remaining) for g in sel.rewrite_campaign_progress(campaign).groups
    }
    assert progress == {"annotator": (0, 1, 3), "expert": (1, 1, 2)}


def test_workers_outside_the_allowed_groups_or_project_get_nothing(setup):
    _, annotators, experts, _, _ = setup
    from tests import factories

    outsider = factories.user("outsider", "annotator")
    campaign = make_campaign(setup, groups=[Group.objects.get(name="expert")])
    assert svc.slot_claim(campaign=campaign, user=annotators[0]) is None
    assert svc.slot_claim(campaign=campaign, user=outsider) is None
    assert svc.slot_claim(campaign=campaign, user=experts[0]) is not None


def test_annotators_see_only_their_own_rewrites(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup)
    submit(campaign, annotators[0])
    submit(campaign, annotators[1])
    assert [r.annotator for r in sel.my_rewrites(campaign, annotators[0])] == [annotators[0]]


def test_progress_counts_cost_and_median_time(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, pay_per_sentence=Decimal("0.15"))
    submit(campaign, annotators[0], seconds=10)
    submit(campaign, annotators[1], seconds=30)
    submit(campaign, annotators[0], seconds=20)
    svc.slot_claim(campaign=campaign, user=annotators[2])
    p = sel.rewrite_campaign_progress(campaign)
    assert (p.done, p.rewrites, p.target, p.median_seconds, p.cost) == (1, 3, 8, 20.0, Decimal("0.45"))
    g = p.groups[0]
    assert (g.group, g.done, g.in_progress, g.remaining) == ("any", 1, 1, 2)


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \u00a0 ", "empty"),
        ("He\x07 goes", "control or invisible character \\(U\\+0007\\)"),
        ("He\u200b goes", "U\\+200B"),
        ("line one\nline two", "one line"),
        ("x" * 2001, "too long"),
    ],
)
def test_bad_rewrites_are_refused_with_a_clear_message(text, message):
    with pytest.raises(RewriteError, match=message):
        svc.rewrite_clean(text, source="He go home .", tokenized=True)


def test_long_limit_is_three_times_the_source_plus_200():
    assert max_rewrite_chars("abc") == 209
    svc.rewrite_clean("a" * 209, source="abc", tokenized=False)
    with pytest.raises(RewriteError, match="at most 209"):
        svc.rewrite_clean("a" * 210, source="abc", tokenized=False)


def test_rewrite_is_nfc_normalised_and_tokenised_like_the_source():
    decomposed = "Cafe\u0301s don't close,  really."
    assert svc.rewrite_clean(decomposed, source="Cafés do n't open .", tokenized=True) == (
        "Caf\u00e9s do n't close , really ."
    )
    assert svc.rewrite_clean("  Two   spaces ", source="x", tokenized=False) == "Two spaces"


def test_submit_saves_the_retokenised_text_and_clears_the_draft(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, ask_difficulty=True)
    slot = svc.slot_claim(campaign=campaign, user=annotators[0])
    svc.draft_save(
        campaign=campaign, user=annotators[0], sentence=slot.sentence, text="He doesn't", difficulty=2
    )
    with pytest.raises(RewriteError, match="difficult"):
        svc.rewrite_submit(campaign=campaign, user=annotators[0], sentence=slot.sentence, text="He doesn't.")
    rewrite, _ = svc.rewrite_submit(
        campaign=campaign,
        user=annotators[0],
        sentence=slot.sentence,
        text="He doesn't like cats, she said.",
        difficulty="2",
    )
    assert (rewrite.text, rewrite.difficulty) == ("He does n't like cats , she said .", 2)
    assert not RewriteDraft.objects.exists()


def test_a_flag_replaces_the_rewrite(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, ask_difficulty=True)
    rewrite, _ = submit(campaign, annotators[0], text="ignored", flag="merge")
    assert (rewrite.text, rewrite.flag, rewrite.difficulty) == ("", "merge", None)


# --------------------------------------------------------------------------- review


def test_review_accept_edit_reject_and_rejection_reopens_the_slot(setup):
    _, annotators, experts, _, _ = setup
    campaign = make_campaign(setup, require_review=True, rewrites_per_sentence=1)
    r0, _ = submit(campaign, annotators[0], "He does n't like cats , she said .")
    r1, _ = submit(campaign, annotators[0], "Every person needs to know a bit about math .")
    r2, _ = submit(campaign, annotators[0], "I go to school every day .")
    assert r0.status == RewriteStatus.SUBMITTED
    claimed = svc.review_claim(campaign=campaign, expert=experts[0])
    assert claimed.pk == r0.pk
    assert svc.review_claim(campaign=campaign, expert=experts[1]).pk == r1.pk  # held by the first expert
    assert (
        svc.rewrite_review(rewrite=r0, reviewer=experts[0], decision="accept").status
        == RewriteStatus.ACCEPTED
    )
    edited = svc.rewrite_review(
        rewrite=r1, reviewer=experts[1], decision="edit", text="Everyone needs to know some math."
    )
    assert (edited.status, edited.text, edited.reviewed_text) == (
        RewriteStatus.EDITED,
        "Every person needs to know a bit about math .",
        "Everyone needs to know some math .",
    )
    svc.rewrite_review(rewrite=r2, reviewer=experts[0], decision="reject")
    slot = RewriteSlot.objects.get(sentence=r2.sentence)
    assert (slot.rewrite, slot.claimed_by) == (None, None)
    again = svc.slot_claim(campaign=campaign, user=annotators[1])
    assert again.sentence_id == r2.sentence_id
    # the rejected annotator is not offered it again
    assert svc.slot_claim(campaign=campaign, user=annotators[0]).sentence.position == 3
    with pytest.raises(RewriteError, match="already been reviewed"):
        svc.rewrite_review(rewrite=r0, reviewer=experts[1], decision="reject")


def test_experts_never_review_their_own_rewrites(setup):
    _, _, experts, _, _ = setup
    campaign = make_campaign(setup, require_review=True)
    own, _ = submit(campaign, experts[0])
    assert svc.review_claim(campaign=campaign, expert=experts[0]) is None
    with pytest.raises(RewriteError, match="own"):
        svc.rewrite_review(rewrite=own, reviewer=experts[0], decision="accept")
    with pytest.raises(IntegrityError), transaction.atomic():
        Rewrite.objects.filter(pk=own.pk).update(reviewer=experts[0])
    assert svc.review_claim(campaign=campaign, expert=experts[1]).pk == own.pk


def test_annotators_cannot_review(setup):
    _, annotators, _, _, _ = setup
    campaign = make_campaign(setup, require_review=True)
    r, _ = submit(campaign, annotators[0])
    with pytest.raises(RewriteError, match="Only experts"):
        svc.rewrite_review(rewrite=r, reviewer=annotators[1], decision="accept")


# --------------------------------------------------------------------------- qualification


@pytest.fixture
def qualification(setup):
    researcher, _, _, project, corpus = setup
    outputs_import_lines(
        corpus=corpus,
        system_name="ref0",
        kind="reference",
        lines=[
            "He does n't like cats , she said .",
            "Every person needs to know a bit about math .",
            "I go to school every day .",
            "This is a sentence .",
        ],
        filename="ref0",
    )
    return svc.qualification_create(
        project=project,
        name="screen",
        sentences=list(corpus.sentences.order_by("position")),
        created_by=researcher,
    )


def answers_for(attempt, texts):
    samples = list(attempt.qualification.samples.order_by("position"))
    return {s.pk: t for s, t in zip(samples, texts, strict=True)}


def test_qualification_is_graded_and_acceptance_grants_it(
    setup, qualification, django_capture_on_commit_callbacks
):
    _, annotators, experts, _, _ = setup
    worker = annotators[0]
    campaign = make_campaign(setup, qualification=qualification)
    assert svc.slot_claim(campaign=campaign, user=worker) is None
    assert not sel.qualification_granted(worker, qualification)
    attempt = svc.qualification_start(qualification=qualification, worker=worker)
    perfect = [
        "He doesn't like cats, she said.",
        "Every person needs to know a bit about math.",
        "I go to school every day.",
        "This is a sentence.",
    ]
    with pytest.raises(RewriteError, match="Sentence 2: The rewrite is empty"):
        svc.qualification_submit(
            attempt=attempt, answers=answers_for(attempt, [perfect[0], " ", *perfect[2:]])
        )
    with django_capture_on_commit_callbacks(execute=True):
        svc.qualification_submit(attempt=attempt, answers=answers_for(attempt, perfect))
    grades = list(attempt.answers.order_by("sample__position").values_list("gleu", "errant_f05"))
    assert grades == [(1.0, 1.0)] * 4
    with pytest.raises(RewriteError, match="Only experts"):
        svc.qualification_review(attempt=attempt, reviewer=annotators[1], accept=True)
    svc.qualification_review(attempt=attempt, reviewer=experts[0], accept=True)
    assert sel.qualification_granted(worker, qualification)
    assert svc.slot_claim(campaign=campaign, user=worker) is not None


def test_unchanged_answers_grade_low(setup, qualification, django_capture_on_commit_callbacks):
    _, annotators, _, _, _ = setup
    attempt = svc.qualification_start(qualification=qualification, worker=annotators[0])
    sources = [s.sentence.text for s in qualification.samples.order_by("position")]
    with django_capture_on_commit_callbacks(execute=True):
        svc.qualification_submit(attempt=attempt, answers=answers_for(attempt, sources))
    errant = list(attempt.answers.order_by("sample__position").values_list("errant_f05", flat=True))
    assert errant == [0.0, 0.0, 0.0, 0.0]
    gleu = list(attempt.answers.order_by("sample__position").values_list("gleu", flat=True))
    assert all(g < 1.0 for g in gleu)


def test_rejected_worker_cannot_retry_unless_allowed(setup, qualification):
    _, annotators, experts, _, _ = setup
    worker = annotators[0]
    attempt = svc.qualification_start(qualification=qualification, worker=worker)
    sources = [s.sentence.text for s in qualification.samples.order_by("position")]
    svc.qualification_submit(attempt=attempt, answers=answers_for(attempt, sources))
    svc.qualification_review(attempt=attempt, reviewer=experts[0], accept=False)
    with pytest.raises(RewriteError, match="retry only if the researcher allows"):
        svc.qualification_start(qualification=qualification, worker=worker)
    svc.qualification_allow_retry(attempt=attempt)
    again = svc.qualification_start(qualification=qualification, worker=worker)
    assert (again.pk, again.status, again.tries, again.answers.count()) == (
        attempt.pk,
        QualificationStatus.IN_PROGRESS,
        2,
        0,
    )


# --------------------------------------------------------------------------- concurrency (PostgreSQL)


@pytest.mark.django_db(transaction=True)
def test_two_workers_asking_at_once_never_get_the_same_slot(real_postgres):
    from django.db import connections

    researcher, annotators, _, project = team(n_annotators=8, n_experts=0)
    corpus = tokenized_corpus(project)
    campaign = svc.rewrite_campaign_create(
        project=project, corpus=corpus, name="race", created_by=researcher, rewrites_per_sentence=1
    )
    barrier = threading.Barrier(len(annotators))
    got: dict[int, int | None] = {}
    errors: list[BaseException] = []

    def ask(user):
        try:
            barrier.wait(timeout=10)
            slot = svc.slot_claim(campaign=campaign, user=user)
            got[user.pk] = slot.pk if slot else None
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask, args=(u,)) for u in annotators]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    slots = [s for s in got.values() if s is not None]
    assert len(slots) == len(SOURCES)  # 4 slots for 8 workers: each slot exactly once
    assert len(set(slots)) == len(slots)
    assert sum(s is None for s in got.values()) == 8 - len(SOURCES)
    assert connection.vendor == "postgresql"


def run_at_once(fns):
    from django.db import connections

    barrier = threading.Barrier(len(fns))
    results: list = [None] * len(fns)
    errors: list[BaseException] = []

    def run(i, fn):
        try:
            barrier.wait(timeout=10)
            results[i] = fn()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    return results


@pytest.mark.django_db(transaction=True)
def test_a_double_submit_at_once_makes_one_rewrite(real_postgres):
    researcher, annotators, _, project = team(n_annotators=1, n_experts=0)
    corpus = tokenized_corpus(project)
    campaign = svc.rewrite_campaign_create(
        project=project, corpus=corpus, name="double", created_by=researcher, rewrites_per_sentence=2
    )
    user = annotators[0]
    sentence = svc.slot_claim(campaign=campaign, user=user).sentence

    def go():
        rewrite, created = svc.rewrite_submit(
            campaign=campaign, user=user, sentence=sentence, text="He does n't ."
        )
        return rewrite.pk, created

    results = run_at_once([go, go, go])
    assert len({pk for pk, _ in results}) == 1
    assert sorted(created for _, created in results) == [False, False, True]
    assert Rewrite.objects.count() == 1
    assert RewriteSlot.objects.filter(rewrite__isnull=False).count() == 1


@pytest.mark.django_db(transaction=True)
def test_experts_asking_at_once_never_review_the_same_rewrite(real_postgres):
    researcher, annotators, experts, project = team(n_annotators=1, n_experts=4)
    corpus = tokenized_corpus(project)
    campaign = svc.rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="review race",
        created_by=researcher,
        rewrites_per_sentence=1,
        require_review=True,
    )
    for _ in range(2):
        slot = svc.slot_claim(campaign=campaign, user=annotators[0])
        svc.rewrite_submit(
            campaign=campaign, user=annotators[0], sentence=slot.sentence, text=slot.sentence.text
        )
    got = run_at_once(
        [lambda e=e: getattr(svc.review_claim(campaign=campaign, expert=e), "pk", None) for e in experts]
    )
    taken = [pk for pk in got if pk is not None]
    assert len(taken) == 2 and len(set(taken)) == 2
