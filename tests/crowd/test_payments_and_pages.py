"""Costs per campaign and per worker, hourly pay against the minimum wage, CSV, and the import page."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse

from crowd.models import Bonus, CrowdSettings, Review
from crowd.selectors import campaign_costs
from crowd.services.workers import crowd_worker_get_or_create
from ranking.models import Campaign, ScreenJudgment
from ranking.work.judging import CandidateScore
from tests.crowd.test_import import mturk_csv
from tests.factories import crowd_campaign
from tests.judging import do_hit

pytestmark = pytest.mark.django_db


@pytest.fixture
def worked():
    """Two MTurk workers did one HIT each (screens of 7 s: 14 s a HIT); one was rejected; one bonus."""
    researcher, _project, campaign = crowd_campaign(fee_percent=Decimal("20"))
    a = crowd_worker_get_or_create(platform="mturk", external_id="AW1")
    b = crowd_worker_get_or_create(platform="prolific", external_id="pid2")
    do_hit(campaign, a.user, lambda s, c: CandidateScore(rank=1))
    second = do_hit(campaign, b.user, lambda s, c: CandidateScore(rank=1))
    ScreenJudgment.objects.filter(assignment=second).update(seconds=40.0)  # 80 s for b's HIT
    Review.objects.create(assignment=second, approved=False, feedback="same rank everywhere")
    Bonus.objects.create(campaign=campaign, worker=a, amount=Decimal("0.25"), request_token="t1")
    return researcher, campaign


def test_costs_count_paid_hits_bonuses_fees_spend_and_projection(worked):
    _, campaign = worked
    costs = campaign_costs(campaign)
    assert (costs.hits_submitted, costs.hits_rejected, costs.hits_total) == (2, 1, 4)
    assert costs.rewards == Decimal("0.50")
    assert costs.bonuses == Decimal("0.25")
    assert costs.fees == Decimal("0.15")  # 20% of 0.75
    assert costs.spent == Decimal("0.90")
    assert costs.projected == Decimal("2.70")  # (4 x 0.50 + 0.25) x 1.2
    assert costs.median_seconds == 47.0  # median of 14 s and 80 s
    assert costs.hourly == Decimal("38.30")  # 0.50 per 47 s
    assert not costs.below_min_wage
    by = {w.identity: w for w in costs.workers}
    assert (by["AW1"].hits, by["AW1"].earnings, by["AW1"].seconds) == (1, Decimal("0.75"), 14.0)
    assert (by["pid2"].hits, by["pid2"].rejected, by["pid2"].earnings) == (0, 1, Decimal("0.00"))


def test_hourly_pay_below_the_minimum_wage_warns_the_researcher(worked, client):
    _researcher, campaign = worked
    CrowdSettings.objects.filter(campaign=campaign).update(min_hourly_wage=Decimal("40"))
    assert campaign_costs(campaign).below_min_wage
    client.login(username="res", password="res-pass-123")
    page = client.get(reverse("crowd-campaign", args=[campaign.pk]))
    assert b"below the minimum wage of 40.00/hour" in page.content


def test_minimum_wage_falls_back_to_the_setting(worked, settings):
    _, campaign = worked
    settings.CROWD_MIN_HOURLY_WAGE = "50"
    assert campaign_costs(campaign).min_wage == Decimal("50") and campaign_costs(campaign).below_min_wage


def test_payments_csv_has_one_row_per_worker_and_the_totals(worked, client):
    _, campaign = worked
    client.login(username="res", password="res-pass-123")
    response = client.get(reverse("crowd-payments-csv", args=[campaign.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["platform", "worker", "hits", "rejected", "work_seconds", "bonuses", "earnings"]
    assert rows[1] == ["mturk", "AW1", "1", "0", "14.0", "0.25", "0.75"]
    assert rows[2] == ["prolific", "pid2", "0", "1", "80.0", "0.00", "0.00"]
    totals = {r[1]: r[2] for r in rows if r and r[0] == "total"}
    assert totals["spent"] == "0.90" and totals["projected"] == "2.70" and totals["hourly_pay"] == "38.30"


def test_crowd_pages_are_for_the_campaigns_researchers_only(worked, client):
    from tests import factories

    _, campaign = worked
    factories.user("other", "researcher", password="other-pass-123")
    client.login(username="other", password="other-pass-123")
    assert client.get(reverse("crowd-campaign", args=[campaign.pk])).status_code == 404
    client.logout()
    assert client.get(reverse("crowd-campaign", args=[campaign.pk])).status_code == 302


def test_settings_and_invite_batches_from_the_crowd_page(worked, client):
    _, campaign = worked
    client.login(username="res", password="res-pass-123")
    response = client.post(
        reverse("crowd-settings", args=[campaign.pk]),
        {"consent_text": "New text", "completion_code": "X1", "hits_per_visit": "3", "fee_percent": "33.3"},
    )
    assert response.status_code == 302
    crowd = CrowdSettings.objects.get(campaign=campaign)
    assert (crowd.consent_text, crowd.hits_per_visit, crowd.fee_percent) == ("New text", 3, Decimal("33.30"))
    client.post(
        reverse("crowd-invites", args=[campaign.pk]), {"count": "3", "reusable": "on", "label": "class A"}
    )
    rows = list(
        csv.reader(io.StringIO(client.get(reverse("crowd-invites-csv", args=[campaign.pk])).content.decode()))
    )
    assert len(rows) == 4 and rows[1][1:] == ["True", "class A", "0"]
    assert rows[1][0].startswith("http://testserver/crowd/i/")


def test_import_page_previews_the_detected_mapping_then_imports(client):
    from tests import factories

    researcher = factories.user("imp", "researcher", password="imp-pass-123")
    project = factories.project(researcher, name="Imports")
    client.login(username="imp", password="imp-pass-123")
    upload = io.BytesIO(mturk_csv())
    upload.name = "batch.csv"
    preview = client.post(
        reverse("crowd-import"), {"file": upload, "format": "mturk-csv", "name": "old", "project": project.pk}
    )
    assert preview.status_code == 200
    assert b"3 judgments of 2 items by 2 workers" in preview.content
    assert b"1 rejected assignment" in preview.content
    assert b"Input.system1" in preview.content  # the detected mapping, to confirm or edit
    mapping = preview.context["confirm"].initial["mapping"]
    done = client.post(reverse("crowd-import"), {"action": "import", "mapping": mapping})
    campaign = Campaign.objects.get(name="old")
    assert done.status_code == 302 and done["Location"] == reverse("campaign-detail", args=[campaign.pk])
    assert (campaign.origin, campaign.project) == ("imported", project)


def test_import_page_reports_a_bad_mapping_without_importing(client):
    from tests import factories

    researcher = factories.user("imp", "researcher", password="imp-pass-123")
    project = factories.project(researcher, name="Imports")
    client.login(username="imp", password="imp-pass-123")
    upload = io.BytesIO(mturk_csv())
    upload.name = "batch.csv"
    client.post(
        reverse("crowd-import"), {"file": upload, "format": "mturk-csv", "name": "old", "project": project.pk}
    )
    response = client.post(
        reverse("crowd-import"),
        {"action": "import", "mapping": '{"item": "Input.x", "systems": [], "answers": []}'},
    )
    assert response.status_code == 400
    assert b"Input.x" in response.content
    assert not Campaign.objects.filter(name="old").exists()
