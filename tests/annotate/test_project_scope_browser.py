"""Issue 20 in Debian's Chromium: a researcher in two projects chooses one in the nav's "Working in"
switcher, by keyboard, and the home page's corpus and campaign lists follow; "All my projects"
shows both. Labels and roles only."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.services import InputFile, corpus_import_text, outputs_import_lines
from ranking.services import campaign_create
from tests import factories
from tests.test_browser_judging import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCES = ["He go home yesterday .", "She like cat ."]


def _project(researcher, name: str) -> None:
    project = factories.project(researcher, name=name)
    data = ("\n".join(SOURCES) + "\n").encode()
    corpus = corpus_import_text(project=project, name=f"{name} corpus", source=InputFile("s.txt", data))
    systems = [
        outputs_import_lines(corpus=corpus, system_name=s, kind="model", lines=SOURCES, filename=s)
        for s in ("a", "b")
    ]
    campaign_create(
        project=project,
        corpus=corpus,
        name=f"{name} judging",
        systems=systems,
        created_by=researcher,
        judgments_per_item=1,
        trap_rate=0.0,
        repeat_rate=0.0,
    )


def _rows(page, table: str):
    return page.locator(f"#{table} tbody tr td:first-child")


def test_the_nav_switcher_chooses_the_corpora_and_campaigns_the_home_page_lists(live_server, new_page):
    factories.ensure_role_groups()
    researcher = factories.user("res", "researcher")
    _project(researcher, "Alpha")
    _project(researcher, "Beta")
    page = new_page()
    login(page, live_server.url, "res")

    expect(page.get_by_role("note")).to_contain_text("Showing project Alpha only.")
    expect(_rows(page, "corpus-list")).to_have_text(["Alpha corpus"])
    expect(_rows(page, "campaign-list")).to_have_text(["Alpha judging"])

    switcher = page.get_by_label("Working in")
    switcher.focus()
    switcher.select_option(label="Beta")
    page.keyboard.press("Tab")  # to the Switch button
    expect(page.get_by_role("button", name="Switch")).to_be_focused()
    page.keyboard.press("Enter")
    page.get_by_text("Current project: Beta.").wait_for()
    expect(page.get_by_role("note")).to_contain_text("Showing project Beta only.")
    expect(_rows(page, "corpus-list")).to_have_text(["Beta corpus"])
    expect(_rows(page, "campaign-list")).to_have_text(["Beta judging"])
    expect(page.get_by_label("Working in").locator("option:checked")).to_have_text("Beta")

    page.get_by_role("button", name="Show all my projects").click()
    page.get_by_text("Showing all your projects.", exact=True).wait_for()
    expect(page.get_by_role("note")).to_contain_text("Showing all your projects.")
    expect(_rows(page, "corpus-list")).to_have_text(["Alpha corpus", "Beta corpus"])
    expect(_rows(page, "campaign-list")).to_have_text(["Beta judging", "Alpha judging"])  # newest first
    expect(page.get_by_label("Working in").locator("option:checked")).to_have_text("All my projects")
