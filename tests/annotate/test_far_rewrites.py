"""A rewrite far from its sentence goes to expert review, is never counted unreviewed, and the worker is told."""

from __future__ import annotations

import pytest
from django.db import IntegrityError
from django.urls import reverse

from annotate.formats.services import campaign_export
from annotate.models import Rewrite, RewriteStatus
from annotate.rewrites import selectors as sel
from annotate.rewrites import services as svc
from annotate.rewrites.validation import far_from_sentence
from geceval.errors import GecInputError
from tests.factories import team, tokenized_corpus

pytestmark = pytest.mark.django_db

SOURCE = "He do n't like cats , she said ."  # the corpus's first sentence, 9 tokens
LONG = " ".join(["very"] * 40) + " ."
CHANGED = "Totally different words here now and then more text ."


@pytest.fixture
def world():
    researcher, annotators, experts, project = team(n_annotators=2, n_experts=1)
    corpus = tokenized_corpus(project)
    campaign = svc.rewrite_campaign_create(
        project=project, corpus=corpus, name="c", created_by=researcher, rewrites_per_sentence=1
    )
    return campaign, annotators, experts[0]


def submit_first(campaign, user, text):
    slot = svc.slot_claim(campaign=campaign, user=user)
    assert slot.sentence.text == SOURCE
    return svc.rewrite_submit(campaign=campaign, user=user, sentence=slot.sentence, text=text)[0]


def test_far_from_sentence_measures_length_ratio_and_changed_words():
    assert far_from_sentence(LONG, source=SOURCE, length_ratio=3, edit_rate=0.8) == (
        "it has 41 words for a sentence of 9 (more than 3 times longer)"
    )
    assert far_from_sentence("Hi .", source=SOURCE, length_ratio=3, edit_rate=0.8) == (
        "it has 2 words for a sentence of 9 (more than 3 times shorter)"
    )
    assert far_from_sentence(CHANGED, source=SOURCE, length_ratio=3, edit_rate=0.8) == (
        "it changes 89% of the sentence's words (more than 80%)"
    )
    assert (
        far_from_sentence("He does n't like cats , she said .", source=SOURCE, length_ratio=3, edit_rate=0.8)
        == ""
    )
    assert far_from_sentence(LONG, source=SOURCE, length_ratio=4, edit_rate=1.0) == (
        "it has 41 words for a sentence of 9 (more than 4 times longer)"
    )
    assert far_from_sentence(LONG, source=SOURCE, length_ratio=5, edit_rate=1.0) == ""


@pytest.mark.parametrize("text", [LONG, CHANGED])
def test_a_far_rewrite_waits_for_review_even_without_a_review_step_and_is_not_exported(world, text):
    campaign, (annotator, _), expert = world
    rewrite = submit_first(campaign, annotator, text)
    assert (rewrite.status, rewrite.far_from_sentence) == (RewriteStatus.SUBMITTED, True)
    with pytest.raises(GecInputError, match="no sentence has 1 accepted rewrites yet"):
        campaign_export(campaign, fmt="jfleg")
    assert list(sel.review_campaign_list_for(expert)) == [campaign]
    claimed = svc.review_claim(campaign=campaign, expert=expert)
    assert claimed.pk == rewrite.pk
    svc.rewrite_review(rewrite=claimed, reviewer=expert, decision="accept")
    files = campaign_export(campaign, fmt="jfleg", include_corpus_systems=False)
    assert files["c.ref0"] == (" ".join(text.split()) + "\n").encode()


def test_a_close_rewrite_is_accepted_at_once_and_thresholds_are_campaign_settings(world):
    campaign, (annotator, other), _ = world
    rewrite = submit_first(campaign, annotator, "He does n't like cats , she said .")
    assert (rewrite.status, rewrite.far_from_sentence) == (RewriteStatus.ACCEPTED, False)
    campaign.far_length_ratio = 50
    campaign.far_edit_rate = 1.0
    campaign.save()
    slot = svc.slot_claim(campaign=campaign, user=other)
    rewrite, _ = svc.rewrite_submit(campaign=campaign, user=other, sentence=slot.sentence, text=LONG[:150])
    assert (rewrite.status, rewrite.far_from_sentence) == (RewriteStatus.ACCEPTED, False)


def test_the_database_refuses_a_far_rewrite_counted_without_a_reviewer(world):
    campaign, (annotator, _), _ = world
    rewrite = submit_first(campaign, annotator, LONG)
    with pytest.raises(IntegrityError):
        Rewrite.objects.filter(pk=rewrite.pk).update(status=RewriteStatus.ACCEPTED)


def test_the_worker_is_told_and_the_expert_sees_the_flag(world, client):
    campaign, (annotator, _), expert = world
    client.force_login(annotator)
    sentence = client.get(reverse("rewrite-work", args=[campaign.pk])).context["sentence"]
    response = client.post(
        reverse("rewrite-work", args=[campaign.pk]), {"sentence": sentence.pk, "text": LONG}, follow=True
    )
    assert (
        "Your rewrite is far from its sentence (it has 41 words for a sentence of 9 (more than 3 times "
        "longer)): an expert will review it before it counts."
    ) in response.content.decode()
    client.force_login(expert)
    page = client.get(reverse("rewrite-review", args=[campaign.pk])).content.decode()
    assert "Flagged: far from its sentence" in page
