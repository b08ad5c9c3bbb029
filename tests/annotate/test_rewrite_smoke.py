from __future__ import annotations

import pytest
from django.urls import reverse

from annotate.rewrites.services import rewrite_campaign_create
from tests.factories import team, tokenized_corpus

pytestmark = pytest.mark.django_db


def test_pages_render_for_each_role(client):
    researcher, annotators, experts, project = team()
    corpus = tokenized_corpus(project)
    campaign = rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="c",
        created_by=researcher,
        rewrites_per_sentence=2,
        ask_difficulty=True,
        require_review=True,
    )
    client.force_login(researcher)
    for url in [
        reverse("rewrite-index"),
        reverse("rewrite-campaign-new"),
        reverse("rewrite-campaign", args=[campaign.pk]),
        reverse("qualification-new"),
        reverse("home"),
    ]:
        assert client.get(url).status_code == 200, url
    client.force_login(annotators[0])
    r = client.get(reverse("rewrite-work", args=[campaign.pk]))
    assert r.status_code == 200
    assert "He don&#x27;t like cats, she said." in r.content.decode()
    client.force_login(experts[0])
    assert client.get(reverse("rewrite-review", args=[campaign.pk])).status_code == 200
