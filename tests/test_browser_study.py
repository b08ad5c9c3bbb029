"""Issue 39 in Debian's Chromium: a study applied from its file is launched on its page, and a crowd
worker, welcomed with the study's text, judges a screen."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from playwright.sync_api import expect

from ranking.models import Campaign, ScreenJudgment
from tests import factories
from tests.test_browser_walking_skeleton import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "studies" / "prws.yaml"


def test_a_researcher_launches_an_applied_study_and_a_crowd_worker_judges_a_screen(
    live_server, new_page, tmp_path
):
    factories.ensure_role_groups()  # a transactional test's flush removed them
    factories.user("res", "researcher", password="res-pass-long-1")  # the one researcher owns the project
    doc = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    doc["corpus"]["file"] = str(EXAMPLE.parent / doc["corpus"]["file"])
    # Playwright answers in milliseconds, under any reader's minimum time (the speed rule has its own tests)
    doc["speed"] = {"speed_rule": False}
    study = tmp_path / "study.yaml"
    study.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    call_command("study", "apply", str(study), stdout=io.StringIO())
    campaign = Campaign.objects.get(name="Example PRWS study")

    base = live_server.url
    page = new_page()
    login(page, base, "res", "res-pass-long-1")
    page.goto(f"{base}/campaigns/{campaign.pk}/")
    page.get_by_role("button", name="Launch").click()  # the study made a draft
    page.get_by_text("Campaign Example PRWS study launched").wait_for()
    page.get_by_role("link", name="Crowd: links, platforms, payments").click()
    page.get_by_label("Number of links").fill("1")
    page.get_by_label("Reusable (one link for many workers)").check()
    page.get_by_role("button", name="Create invite links").click()
    page.get_by_text("1 invite link created.").wait_for()
    link = page.get_by_label("Invite link 1").input_value()

    worker = new_page()
    worker.goto(link)
    expect(worker.get_by_text(doc["crowd"]["welcome_text"])).to_be_visible()
    expect(worker.get_by_text(doc["crowd"]["consent_text"])).to_be_visible()
    worker.get_by_label("I have read the above and agree to take part").check()
    worker.get_by_role("button", name="Start").click()
    counter = worker.get_by_text("Screen 1 of ", exact=False)
    counter.wait_for()
    candidates = worker.locator("li.candidate")
    shown = candidates.count()
    assert 2 <= shown <= 5
    for i in range(shown):
        slider = candidates.nth(i).get_by_role("slider")
        slider.fill(str(40 + 10 * i))
        expect(slider).to_have_attribute("aria-valuetext", str(40 + 10 * i))
    submit = worker.get_by_role("button", name="Submit", exact=True)
    expect(submit).to_be_enabled()
    submit.click()
    worker.get_by_text("Screen 2 of ", exact=False).wait_for()
    judged = ScreenJudgment.objects.filter(screen__campaign=campaign)
    assert judged.count() == 1
    assert sorted(judged.get().ratings.values_list("score", flat=True)) == [40 + 10 * i for i in range(shown)]
