"""Issue 20 in Debian's Chromium: the d key shows each correction's changes and the choice follows
the worker to the next screen; a long list is searched and paged in the browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.services import InputFile, corpus_import_text
from ranking.services import campaign_create
from tests import factories
from tests.test_browser_judging import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCES = ["He go home yesterday .", "She like cat ."]
SYSTEMS = {"a": ["He went home yesterday .", "She likes cats ."], "b": ["He goes home .", "She likes cat ."]}


def _rate_and_submit(page):
    sliders = page.locator(".prws-slider")
    for i in range(sliders.count()):
        sliders.nth(i).focus()
        page.keyboard.press("End")
    page.locator("#submit").click()


def test_d_shows_changes_on_every_screen_until_pressed_again_and_a_list_pages_its_search(
    live_server, new_page
):
    researcher = factories.user("res", "researcher")
    worker = factories.user("worker", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(project, sources=SOURCES, systems=SYSTEMS)
    campaign_create(
        project=project,
        corpus=corpus,
        name="changes",
        systems=systems,
        created_by=researcher,
        judgments_per_item=1,
        show_changes=True,
        trap_rate=0.0,
        repeat_rate=0.0,
    )
    page = new_page()
    login(page, live_server.url, "worker")
    page.get_by_role("link", name="changes").click()
    expect(page.get_by_text("Screen 1 of 2")).to_be_visible()
    diffs = page.locator(".candidate-diff")
    expect(diffs.first).to_be_hidden()
    page.locator("h2", has_text="Corrections").click()  # the page, not a field, has the focus
    page.keyboard.press("d")
    expect(diffs.first).to_be_visible()
    expect(page.locator("#show-changes")).to_have_attribute("aria-pressed", "true")
    assert page.locator(".candidate-diff ins").count() >= 2  # each correction's added words
    _rate_and_submit(page)
    expect(page.get_by_text("Screen 2 of 2")).to_be_visible()
    expect(page.locator(".candidate-diff").first).to_be_visible()  # remembered across screens
    page.locator(".prws-slider").first.focus()
    page.keyboard.press("d")  # on a slider d still toggles: it types nothing there
    expect(page.locator(".candidate-diff").first).to_be_hidden()
    page.reload()
    expect(page.locator(".candidate-diff").first).to_be_hidden()

    lines = [f"Line {i} of the long corpus ." for i in range(130)]
    data = ("\n".join(lines) + "\n").encode()
    long_corpus = corpus_import_text(project=project, name="long", source=InputFile("long.txt", data))
    page = new_page()
    login(page, live_server.url, "res")
    page.goto(f"{live_server.url}/corpora/{long_corpus.pk}/")
    expect(page.locator("#sentences-count")).to_have_text("Showing 1–50 of 130")
    page.get_by_role("searchbox", name="Search the sentences").fill("Line 1")  # 1, 10-19, 100-129
    page.keyboard.press("Enter")
    expect(page.locator("#sentences-count")).to_have_text("Showing 1–41 of 41 matching “Line 1”")
    page.get_by_role("searchbox", name="Search the sentences").fill("of the long")
    page.keyboard.press("Enter")
    page.locator("#sentences-next").click()
    expect(page.locator("#sentences-count")).to_have_text("Showing 51–100 of 130 matching “of the long”")
    expect(page.get_by_role("searchbox", name="Search the sentences")).to_have_value("of the long")
    expect(page.locator("ol.sentences li").first).to_have_text("Line 50 of the long corpus .")
