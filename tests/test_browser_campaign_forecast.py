"""Issue 40 in Debian's Chromium: the campaign form shows what its screens would cover as it is filled,
and a ranking campaign's few-outputs warning with its "Create it anyway" box comes before the first
submit, so one submit creates the campaign."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ranking.models import Campaign
from tests import factories
from tests.test_browser_judging import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCES = ["a b c .", "d e f .", "g h i .", "j k l ."]
# s3 and s4 write the same text: four systems give three distinct outputs per ranking screen
SYSTEMS = {
    name: [f"{s} {tag}" for s in SOURCES]
    for name, tag in (("s1", "x"), ("s2", "y"), ("s3", "z"), ("s4", "z"))
}


def test_the_few_outputs_warning_shows_before_the_first_submit_and_one_submit_creates(live_server, new_page):
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    factories.corpus_with_systems(project, sources=SOURCES, systems=SYSTEMS)
    page = new_page()
    login(page, live_server.url, "res")
    page.goto(f"{live_server.url}/campaigns/new/")
    page.get_by_label(re.compile(r"^Name:?$")).fill("thin ranking")
    page.get_by_label("Protocol").select_option(value="ranking")
    page.get_by_label("Corpus").select_option(label="c1")
    for name in SYSTEMS:
        page.get_by_label(f"c1 / {name} (", exact=False).check()
    forecast = page.locator("#screen-forecast")
    expect(forecast.locator("#coverage")).to_have_text(
        "The screens would cover 4 of the corpus's 4 sentences.", timeout=20_000
    )
    warning = forecast.get_by_role("alert")
    expect(warning).to_contain_text("Only 0% of screens would show at least 4 distinct outputs")
    page.get_by_label("Sample size").fill("2")  # the coverage follows the sample
    expect(forecast.locator("#coverage")).to_contain_text(
        "cover 2 of the corpus's 4 sentences (the sample: the first 2"
    )
    forecast.get_by_label("Create it anyway").check()
    assert not Campaign.objects.exists()
    page.get_by_role("button", name="Create campaign").click()
    page.get_by_text(re.compile(r"Campaign thin ranking created with \d+ screens")).wait_for()
    campaign = Campaign.objects.get()
    assert (campaign.protocol, campaign.sample_size) == ("ranking", 2)
