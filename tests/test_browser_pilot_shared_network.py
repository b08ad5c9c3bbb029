"""Issue 40's "Done when", in Debian's Chromium: from an empty database, a researcher pilots a PRWS
campaign for a classroom behind one address (the shared-network preset, three seats) and three
workers judge it from that address: two careful readers (sliders from sentence GLEU+, as in issue
20's walk) and a flat bot (every slider at 70). The campaign's defaults hold the bot after its first
HIT and count the other two; a fourth browser finds the seats taken.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ranking.models import Campaign
from ranking.selectors import valid_judgments
from tests import factories
from tests.shared_data import shared_path
from tests.test_browser_first_week import (
    LINES,
    PROJECT,
    Corpus,
    _judge_screen,
    _set_up_the_first_account,
    _upload_corpus,
    fill_prws_campaign_form,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CAMPAIGN = "FCE PRWS pilot"


def _make_project(page) -> None:
    page.get_by_role("link", name="Projects", exact=True).click()
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Project name").fill(PROJECT)
    page.get_by_role("button", name="Create project").click()
    page.get_by_text(f"Project {PROJECT} created.").wait_for()


def _create_and_pilot_campaign(page) -> None:
    fill_prws_campaign_form(page, CAMPAIGN, judgments_per_item=3)  # only the answers may tell a bot
    expect(page.get_by_label("Hold a worker whose first HIT looks scripted")).to_be_checked()  # the default
    page.get_by_role("button", name="Create campaign").click()
    page.get_by_text(re.compile(rf"Campaign {CAMPAIGN} created with \d+ screens in 1 HIT\.")).wait_for()
    page.get_by_role("button", name="Pilot", exact=True).click()
    page.get_by_text(f"Campaign {CAMPAIGN} in pilot: workers get only the first", exact=False).wait_for()


def _shared_network_link(page, seats: int) -> str:
    page.get_by_role("link", name="Crowd: links, platforms, payments").click()
    page.get_by_label("Shared network (a lab, a classroom)").check()
    page.get_by_label("Seats of a reusable link (shared network)").fill(str(seats))
    page.get_by_label("HITs per visit (0 = until no work is left)").fill("0")
    page.locator("#save-settings").click()
    page.get_by_text("Crowd settings saved.").wait_for()
    expect(page.locator("#address-limits")).to_contain_text(
        f"no limit per network address; a reusable link admits at most {seats} people in all, one per browser"
    )
    page.get_by_label("Number of links").fill("1")
    page.get_by_label("Reusable (one link for many workers)").check()
    page.get_by_role("button", name="Create invite links").click()
    page.get_by_text("1 invite link created.").wait_for()
    return page.get_by_label("Invite link 1").input_value()


def _flat_screen(page) -> None:
    for slider in page.locator("li.candidate").get_by_role("slider").all():
        slider.fill("70")
        expect(slider).to_have_attribute("aria-valuetext", "70")
    page.get_by_role("button", name="Submit", exact=True).click()


def _work(page, link: str, judge) -> int:
    page.goto(link)
    page.get_by_label("I have read the above and agree to take part").check()
    page.get_by_role("button", name="Start").click()
    counter = page.get_by_text(re.compile(r"^Screen \d+ of \d+$"))
    counter.wait_for()
    total = int(counter.inner_text().rsplit(" ", 1)[1])
    for n in range(1, total + 1):
        expect(counter).to_have_text(f"Screen {n} of {total}")
        judge(page)
    # unlimited HITs per visit: the worker may ask for the next one (there is none: one HIT holds all)
    page.get_by_text("HIT complete: thank you! You have finished 1 HIT.").wait_for()
    return total


@pytest.mark.slow
def test_a_classroom_pilots_from_one_address_and_the_flat_bot_is_held_the_readers_counted(
    live_server, new_page, tmp_path
):
    corpus = Corpus(shared_path("GMEG", "data", "dev", "fce", required_in_ci=True), tmp_path)
    factories.ensure_role_groups()
    page = new_page()
    _set_up_the_first_account(page, live_server.url)
    _make_project(page)
    _upload_corpus(page, corpus)
    _create_and_pilot_campaign(page)
    link = _shared_network_link(page, seats=3)

    # three browsers, one address (127.0.0.1): the server's defaults would stop the third (2 live HITs)
    careful = lambda p: _judge_screen(p, corpus)  # noqa: E731
    screens = [_work(new_page(), link, judge) for judge in (careful, _flat_screen, careful)]
    assert screens[0] == screens[1] == screens[2]
    fourth = new_page()
    fourth.goto(link)
    fourth.get_by_text("All 3 places of this study's link are taken.").wait_for()

    page.get_by_role("link", name="Back to the campaign").click()
    expect(page.locator("#pilot-check")).to_contain_text("Pilot check on")
    expect(page.locator("#pilot-held")).to_have_text("1")
    workers = page.locator("table#workers")
    rows = workers.get_by_role("row").filter(has=page.get_by_role("cell"))
    expect(rows).to_have_count(3)
    headers = workers.get_by_role("columnheader").all_inner_texts()
    status = headers.index("Status")  # by name: other issues add columns
    statuses = sorted(row.get_by_role("cell").nth(status).inner_text() for row in rows.all())
    assert statuses == ["held (pilot check: near-constant answers in the first HIT)", "included", "included"]
    held = page.locator("table#held")
    expect(held.get_by_role("row").filter(has=page.get_by_role("cell"))).to_have_count(1)
    expect(held).to_contain_text("the worker's first HIT had near-constant answers")

    campaign = Campaign.objects.get(name=CAMPAIGN)
    counted = valid_judgments(campaign)
    assert counted.values("judge").distinct().count() == 2
    assert counted.count() == 2 * LINES  # every sentence judged by both readers (traps and repeats aside)
