"""Views of rewrite collection: permissions, draft endpoint, error messages, escaping."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotate.models import RewriteDraft
from annotate.rewrites import selectors as rewrite_selectors
from annotate.rewrites import services as svc
from annotate.rewrites.selectors import Refusal, RefusalCode, rewrite_campaign_refusal
from tests import factories
from tests.factories import team, tokenized_corpus

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    researcher, annotators, experts, project = team(n_annotators=2, n_experts=1)
    corpus = tokenized_corpus(project)
    campaign = svc.rewrite_campaign_create(
        project=project, corpus=corpus, name="c", created_by=researcher, rewrites_per_sentence=2
    )
    return researcher, annotators, experts, campaign


def test_draft_endpoint_saves_and_the_work_page_restores_it(client, setup):
    _, annotators, _, campaign = setup
    client.force_login(annotators[0])
    page = client.get(reverse("rewrite-work", args=[campaign.pk]))
    sentence = page.context["sentence"]
    r = client.post(
        reverse("rewrite-draft", args=[campaign.pk]),
        json.dumps({"sentence": sentence.pk, "text": "He <b>doesn't</b>", "flag": "", "seconds": 4}),
        content_type="application/json",
    )
    assert r.status_code == 200 and r.json()["saved"]
    assert RewriteDraft.objects.get().text == "He <b>doesn't</b>"
    page = client.get(reverse("rewrite-work", args=[campaign.pk]))
    html = page.content.decode()
    assert "He &lt;b&gt;doesn&#x27;t&lt;/b&gt;</textarea>" in html  # restored and escaped


def test_draft_endpoint_refuses_garbage(client, setup):
    _, annotators, _, campaign = setup
    client.force_login(annotators[0])
    r = client.post(reverse("rewrite-draft", args=[campaign.pk]), "not json", content_type="application/json")
    assert r.status_code == 400 and not r.json()["saved"]


def test_invalid_submission_keeps_the_text_and_shows_the_message(client, setup):
    _, annotators, _, campaign = setup
    client.force_login(annotators[0])
    sentence = client.get(reverse("rewrite-work", args=[campaign.pk])).context["sentence"]
    r = client.post(
        reverse("rewrite-work", args=[campaign.pk]), {"sentence": sentence.pk, "text": "bad\x07text"}
    )
    assert r.status_code == 400
    assert "control or invisible character (U+0007)" in r.content.decode()


def test_outsiders_cannot_open_work_or_progress(client, setup):
    _, annotators, _, campaign = setup
    outsider = factories.user("outsider", "annotator")
    client.force_login(outsider)
    assert client.get(reverse("rewrite-work", args=[campaign.pk])).status_code == 403
    client.force_login(annotators[0])
    assert client.get(reverse("rewrite-campaign", args=[campaign.pk])).status_code == 403
    assert client.get(reverse("rewrite-review", args=[campaign.pk])).status_code == 403


def test_qualification_gated_campaign_sends_the_worker_to_the_test(client, setup):
    researcher, annotators, _, campaign = setup
    q = svc.qualification_create(
        project=campaign.project,
        name="screen",
        sentences=list(campaign.corpus.sentences.all()[:2]),
        created_by=researcher,
    )
    campaign.qualification = q
    campaign.save(update_fields=["qualification"])
    client.force_login(annotators[0])
    r = client.get(reverse("rewrite-work", args=[campaign.pk]))
    assert r.status_code == 302 and r.url == reverse("qualification-take", args=[q.pk])


def test_the_work_page_branches_on_the_refusal_code_not_on_its_wording(client, setup, monkeypatch):
    researcher, annotators, _, campaign = setup
    q = svc.qualification_create(
        project=campaign.project,
        name="screen",
        sentences=list(campaign.corpus.sentences.all()[:2]),
        created_by=researcher,
    )
    campaign.qualification = q
    campaign.save(update_fields=["qualification"])
    assert rewrite_campaign_refusal(campaign, annotators[0]) == Refusal(
        RefusalCode.QUALIFICATION, "This campaign needs the qualification “screen” first."
    )
    assert rewrite_campaign_refusal(campaign, annotators[0]).code == "qualification"
    reworded = Refusal(RefusalCode.QUALIFICATION, "Pass “screen” before you start.")
    monkeypatch.setattr(rewrite_selectors, "rewrite_campaign_refusal", lambda c, u: reworded)
    client.force_login(annotators[0])
    r = client.get(reverse("rewrite-work", args=[campaign.pk]))
    assert r.status_code == 302 and r.url == reverse("qualification-take", args=[q.pk])


def test_demo_load_adds_a_rewrite_campaign_once():
    from annotate.models import RewriteCampaign
    from ranking.demo import DEMO_REWRITE_CAMPAIGN, demo_load

    demo_load()
    demo_load()
    campaign = RewriteCampaign.objects.get(name=DEMO_REWRITE_CAMPAIGN)
    assert campaign.slots.count() == 20


def test_researcher_creates_a_two_groups_of_two_campaign_from_the_form(client, setup):
    from django.contrib.auth.models import Group

    from annotate.models import RewriteCampaign

    researcher, _, _, campaign = setup
    client.force_login(researcher)
    groups = Group.objects.filter(name__in=["annotator", "expert"])
    r = client.post(
        reverse("rewrite-campaign-new"),
        {
            "project": campaign.project_id,
            "corpus": campaign.corpus_id,
            "name": "2x2 minimal",
            "preset": "minimal",
            "instructions": "",
            "rewrites_per_sentence": 4,
            "groups": [g.pk for g in groups],
            "per_group": 2,
            "pay_per_sentence": "0.05",
        },
    )
    assert r.status_code == 302
    made = RewriteCampaign.objects.get(name="2x2 minimal")
    assert made.instructions.startswith(
        "Correct the grammatical errors in the sentence while changing as little"
    )
    by_group = sorted(set(made.slots.values_list("group__name", flat=True)))
    assert (made.rewrites_per_sentence, made.slots.count(), by_group) == (4, 16, ["annotator", "expert"])
    page = client.get(reverse("rewrite-campaign", args=[made.pk])).content.decode()
    assert "<td>annotator</td><td>4</td><td>0</td><td>0</td><td>4</td><td>0 / 8</td>" in page


def test_form_refuses_a_per_group_count_without_groups(client, setup):
    researcher, _, _, campaign = setup
    client.force_login(researcher)
    r = client.post(
        reverse("rewrite-campaign-new"),
        {
            "project": campaign.project_id,
            "corpus": campaign.corpus_id,
            "name": "x",
            "preset": "fluency",
            "rewrites_per_sentence": 2,
            "per_group": 2,
            "pay_per_sentence": "0",
        },
    )
    assert r.status_code == 400
    assert "Tick the groups that get their own rewrites." in r.content.decode()


def test_forms_take_line_numbers_as_the_corpus_page_shows_them_from_one(client, setup):
    """Issue 20: no form asks for a 0-based line number. The corpus page numbers its lines from 1,
    and the rewrite and qualification forms read the same numbers."""
    from annotate.models import Qualification, RewriteCampaign

    researcher, _, _, campaign = setup
    client.force_login(researcher)
    corpus = campaign.corpus
    first = corpus.sentences.order_by("position").first()
    page = client.get(reverse("corpus-detail", args=[corpus.pk])).content.decode()
    assert f'<li value="{first.position + 1}">' in page and first.position == 0
    r = client.post(
        reverse("rewrite-campaign-new"),
        {
            "project": campaign.project_id,
            "corpus": corpus.pk,
            "name": "lines 2-3",
            "preset": "fluency",
            "rewrites_per_sentence": 1,
            "pay_per_sentence": "0",
            "first_position": 2,
            "last_position": 3,
        },
    )
    assert r.status_code == 302
    made = RewriteCampaign.objects.get(name="lines 2-3")
    assert sorted(made.slots.values_list("sentence__position", flat=True)) == [1, 2]
    r = client.post(
        reverse("qualification-new"),
        {"project": campaign.project_id, "corpus": corpus.pk, "name": "screen", "positions": "1, 3"},
    )
    assert r.status_code == 302
    samples = Qualification.objects.get(name="screen").samples.order_by("position")
    assert [s.sentence.position for s in samples] == [0, 2]
    refused = client.post(
        reverse("qualification-new"),
        {"project": campaign.project_id, "corpus": corpus.pk, "name": "zero", "positions": "0"},
    )
    assert (
        refused.status_code == 400 and "Give at least one line number (from 1)." in refused.content.decode()
    )
