"""Deleting a worker's personal data keeps their judgments, anonymous."""

from __future__ import annotations

import pytest
from django.urls import reverse

from crowd.models import CrowdWorker, PlatformCall
from ranking.models import ScreenJudgment, SystemScore
from ranking.services import campaign_create
from tests import factories
from tests.judging import do_hit, honest_prws

pytestmark = pytest.mark.django_db


def test_a_researcher_deletes_a_workers_personal_data_and_the_judgments_stay(
    client, django_capture_on_commit_callbacks
):
    researcher = factories.user("res", "researcher")
    worker = factories.user("A1B2C3WORKER", "annotator")
    worker.email = "person@example.org"
    worker.save()
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(
        project, sources=["He go ."], systems={"a": ["He goes ."], "b": ["He went ."]}
    )
    campaign = campaign_create(
        project=project, corpus=corpus, name="c", systems=systems, created_by=researcher, judgments_per_item=1
    )
    CrowdWorker.objects.create(platform="mturk", external_id="A1B2C3WORKER", user=worker)
    PlatformCall.objects.create(
        platform="mturk",
        operation="send_bonus",
        request_token="t1",
        params={"WorkerId": "A1B2C3WORKER", "BonusAmount": "0.50"},
        response={"ok": True},
    )
    with django_capture_on_commit_callbacks(execute=True):
        do_hit(campaign, worker, honest_prws)

    client.force_login(researcher)
    response = client.post(reverse("campaign-worker-forget", args=[campaign.pk, worker.pk]))
    assert response.status_code == 302
    worker.refresh_from_db()
    assert worker.username.startswith("forgotten-") and worker.email == "" and not worker.is_active
    assert not worker.has_usable_password()
    assert not CrowdWorker.objects.filter(external_id="A1B2C3WORKER").exists()
    assert "A1B2C3WORKER" not in str(PlatformCall.objects.get().params)
    assert ScreenJudgment.objects.filter(judge=worker).count() == 1  # kept, now anonymous
    assert SystemScore.objects.filter(campaign=campaign).count() == 2
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "A1B2C3WORKER" not in page and "person@example.org" not in page


def test_researchers_cannot_be_forgotten_from_a_campaign_page(client):
    researcher = factories.user("res", "researcher")
    other = factories.user("res2", "researcher")
    project = factories.project(researcher, members=[other])
    corpus, systems = factories.corpus_with_systems(
        project, sources=["He go ."], systems={"a": ["He goes ."]}
    )
    campaign = campaign_create(
        project=project, corpus=corpus, name="c", systems=systems, created_by=researcher, judgments_per_item=1
    )
    client.force_login(researcher)
    response = client.post(reverse("campaign-worker-forget", args=[campaign.pk, other.pk]))
    assert response.status_code == 404  # never judged here
    other.refresh_from_db()
    assert other.username == "res2"
