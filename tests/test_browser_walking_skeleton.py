"""The walking skeleton in Debian's Chromium: campaign -> judgments -> scores -> CSV."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from playwright.sync_api import expect

from ranking.demo import demo_load
from ranking.models import Rating, ScreenJudgment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def login(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")


def test_researcher_creates_prws_campaign_annotator_judges_researcher_downloads_scores(live_server, new_page):
    demo_load()
    base = live_server.url

    researcher = new_page()
    login(researcher, base, "researcher", "demo-researcher-pass")
    researcher.get_by_role("link", name="New campaign").click()
    researcher.get_by_label("Name").fill("Browser PRWS")
    researcher.get_by_label("Corpus").select_option(label="demo-learner-english")
    for name in ["copyedit-rules", "smt-2014", "nmt-base", "nmt-fluent", "source"]:
        researcher.get_by_label(f"demo-learner-english / {name} (", exact=False).check()
    researcher.get_by_label("Judgments per item").fill("1")
    researcher.get_by_label("Screens per HIT").fill("2")
    researcher.get_by_label("Trap rate").fill("0")  # hidden traps by default; this walk counts screens
    researcher.get_by_label("Repeat rate").fill("0")
    researcher.get_by_label("Speed is evidence").uncheck()  # Playwright is faster than any reader
    # its annotator moves each slider a step or two: near-constant, which the pilot check (on by default) holds
    researcher.get_by_label("Hold a worker whose first HIT looks scripted").uncheck()
    researcher.get_by_role("button", name="Create campaign").click()
    researcher.get_by_text("Campaign Browser PRWS created with 30 screens in 15 HITs").wait_for()
    researcher.get_by_role("button", name="Launch").click()  # a new campaign is a draft
    researcher.get_by_text("Campaign Browser PRWS launched").wait_for()
    campaign_url = researcher.url

    annotator = new_page()
    login(annotator, base, "annotator1", "demo-annotator-pass")
    annotator.get_by_role("link", name="Browser PRWS").click()
    for n in range(2):
        annotator.get_by_text(f"Screen {n + 1} of 2").wait_for()
        annotator.get_by_text("left to rate").wait_for()  # the page script is ready
        source = annotator.locator("#source-text").inner_text()
        assert source
        sliders = annotator.locator(".prws-slider")
        count = sliders.count()
        assert 1 <= count <= 5
        submit = annotator.locator("#submit")
        assert submit.is_disabled()  # nothing rated yet
        for i in range(count):  # keyboard only: focus each slider and move it
            sliders.nth(i).focus()
            for _ in range(i + 1):
                annotator.keyboard.press("ArrowRight")
            if i < count - 1:
                assert submit.is_disabled()
        annotator.get_by_label("Meaning changed").first.check()
        expect(submit).to_be_enabled()  # retries: key events land asynchronously under load
        submit.click()
        annotator.wait_for_load_state()
    annotator.get_by_text("HIT complete: thank you!").wait_for()

    judgments = ScreenJudgment.objects.filter(screen__campaign__name="Browser PRWS")
    assert judgments.count() == 2
    scores = sorted(Rating.objects.filter(judgment__in=judgments).values_list("score", flat=True))
    assert set(scores) <= {51, 52, 53, 54, 55} and 51 in scores
    assert Rating.objects.filter(judgment__in=judgments, meaning_changed=True).count() == 2

    researcher.goto(campaign_url)
    table = researcher.locator("#scores")
    table.wait_for()
    shown = table.locator("tbody tr").count()
    assert shown >= 1
    with researcher.expect_download() as download_info:
        researcher.locator("#download-csv").click()
    path = download_info.value.path()
    with zipfile.ZipFile(path) as bundle:  # the CSV and the study file it came from (issue 39)
        scores, study = bundle.namelist()
        assert study == f"{scores}.study.yaml" and b"protocol: prws" in bundle.read(study)
        rows = list(csv.DictReader(io.StringIO(bundle.read(scores).decode("utf-8"))))
    assert len(rows) == shown
    assert {r["system"] for r in rows} <= {"copyedit-rules", "smt-2014", "nmt-base", "nmt-fluent", "source"}
    assert all(51 <= float(r["score"]) <= 55 for r in rows)
    researcher.screenshot(path="/tmp/gec-campaign-results.png", full_page=True)
