"""Judgment screens in Debian's Chromium: a PRWS HIT by keyboard, a ranking screen with ties."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from ranking.models import Rating, ScreenJudgment
from ranking.services import campaign_create
from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCES = ["He go home yesterday .", "She like cat ."]
SYSTEMS = {
    "src": SOURCES,
    "a": ["He went home yesterday .", "She likes cats ."],
    "b": ["He went home yesterday .", "She like cats ."],  # a and b agree on line 1: one item
    "c": ["He goes home yesterday .", "She likes cat ."],
    "d": ["Yesterday he went home .", "She is fond of cats ."],
}


@pytest.fixture
def world():
    researcher = factories.user("res", "researcher")
    worker = factories.user("worker", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    return researcher, worker, project, corpus, systems


def login(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("pw-for-tests-1")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")


def test_ranking_screen_with_ties_by_keyboard(live_server, new_page, world):
    researcher, worker, project, corpus, systems = world
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="rank",
        systems=systems,
        created_by=researcher,
        protocol="ranking",
        max_candidates=5,
        judgments_per_item=1,
    )
    page = new_page()
    login(page, live_server.url, "worker")
    page.get_by_role("link", name="rank").click()
    page.get_by_text("left to rank").wait_for()  # the page script is ready
    items = page.locator(".rank-item")
    count = items.count()
    source = page.locator("#source-text").inner_text()
    assert count == (4 if source == SOURCES[0] else 5)  # on the first sentence a and b collapse
    submit = page.locator("#submit")
    for i in range(count):
        assert submit.is_disabled()
        items.nth(i).locator("input[type=radio]").first.focus()
        page.keyboard.press("2" if i < 2 else "1")  # the first two tie at rank 2
    expect(submit).to_be_enabled()
    page.keyboard.press("Tab")  # from the last radio group to the submit button
    page.keyboard.press("Enter")
    page.get_by_text("Screen 2 of 2").wait_for()
    judgment = ScreenJudgment.objects.get(judge=worker, screen__sentence__text=source)
    ranks = sorted(Rating.objects.filter(judgment=judgment).values_list("rank", flat=True))
    assert ranks == [1] * (count - 2) + [2, 2]
    assert campaign.screens.count() == 2


def test_prws_submit_stays_blocked_until_every_slider_moved_and_works_on_a_phone(
    live_server, new_page, world
):
    researcher, worker, project, corpus, systems = world
    campaign_create(
        project=project,
        corpus=corpus,
        name="sliders",
        systems=systems,
        created_by=researcher,
        judgments_per_item=1,
    )
    page = new_page()
    page.set_viewport_size({"width": 375, "height": 740})
    login(page, live_server.url, "worker")
    page.get_by_role("link", name="sliders").click()
    sliders = page.locator(".prws-slider")
    page.get_by_text("left to rate").wait_for()  # the page script is ready
    count = sliders.count()
    submit = page.locator("#submit")
    for i in range(count - 1):
        sliders.nth(i).focus()
        page.keyboard.press("End")  # 100
    expect(submit).to_contain_text("1 left to rate")
    assert submit.is_disabled()
    box = sliders.nth(count - 1).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375  # fits the phone screen
    sliders.nth(count - 1).focus()
    page.keyboard.press("Home")  # 0
    expect(submit).to_be_enabled()
    page.screenshot(path="/tmp/gec-prws-phone.png", full_page=True)
    submit.click()
    page.wait_for_load_state()
    scores = sorted(Rating.objects.filter(judgment__judge=worker).values_list("score", flat=True))
    assert scores == sorted([100] * (count - 1) + [0])


def test_gmeg_style_prws_hit_with_traps_excludes_a_careless_worker(live_server, new_page, world):
    """Traps sit beside the source; rating everything alike ties them with it (a failure), so the
    worker is excluded at the third trap and their HIT closes; an attentive worker finishes."""
    from ranking.models import Assignment, WorkerRecord

    researcher, worker, project, corpus, systems = world
    by_name = {s.name: s for s in systems}
    from annotate.services import outputs_import_lines

    traps = ["He go hom yesterday .", "She like cat cat ."]
    trap = outputs_import_lines(
        corpus=corpus, system_name="source+error", kind="source+error", lines=traps, filename="traps"
    )
    careful = factories.user("careful", "annotator")
    project.members.add(careful)
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="gmeg",
        systems=[by_name[n] for n in ("src", "a", "c", "d")],
        created_by=researcher,
        trap_system=trap,
        trap_rate=1.0,
        trap_min_seen=2,
        judgments_per_item=1,
    )

    def judge(username, careless):
        page = new_page()
        login(page, live_server.url, username)
        page.get_by_role("link", name="gmeg").click()
        for _ in range(2):
            page.get_by_text("left to rate").wait_for()
            sliders = page.locator(".prws-slider")
            texts = page.locator(".candidate-text").all_inner_texts()
            for i in range(sliders.count()):
                sliders.nth(i).focus()
                # A careful judge puts the garbled text at the bottom; a careless one rates all alike.
                page.keyboard.press("Home" if texts[i] in traps and not careless else "End")
            expect(page.locator("#submit")).to_be_enabled()
            page.locator("#submit").click()
            page.wait_for_load_state()
        return page

    careless_page = judge("worker", careless=True)
    careless_page.get_by_text("This HIT is closed").wait_for()
    record = WorkerRecord.objects.get(campaign=campaign, worker=worker)
    assert (record.traps_seen, record.traps_passed, record.excluded) == (2, 0, True)
    assert Assignment.objects.get(worker=worker).status == "excluded"

    careful_page = judge("careful", careless=False)
    careful_page.get_by_text("HIT complete").wait_for()
    record = WorkerRecord.objects.get(campaign=campaign, worker=careful)
    assert (record.traps_seen, record.traps_passed, record.excluded) == (2, 2, False)
    assert Assignment.objects.get(worker=careful).hit_id == Assignment.objects.get(worker=worker).hit_id


def test_prws_sliders_keep_their_positions_across_a_reload(live_server, new_page, world):
    """Issue 40: reloading a PRWS screen lost the slider positions. They are kept in the tab's
    sessionStorage under the screen's opaque handle, and gone once the screen is submitted."""
    researcher, worker, project, corpus, systems = world
    campaign_create(
        project=project,
        corpus=corpus,
        name="sliders",
        systems=systems,
        created_by=researcher,
        judgments_per_item=1,
    )
    page = new_page()
    login(page, live_server.url, "worker")
    page.get_by_role("link", name="sliders").click()
    page.get_by_text("left to rate").wait_for()
    sliders = page.locator(".prws-slider")
    count = sliders.count()
    source = page.locator("#source-text").inner_text()
    sliders.nth(0).fill("83")
    sliders.nth(1).fill("12")
    page.get_by_label("Meaning changed").nth(1).check()
    page.reload()
    page.get_by_text("left to rate").wait_for()
    assert page.locator("#source-text").inner_text() == source  # the same screen
    expect(sliders.nth(0)).to_have_attribute("aria-valuetext", "83")
    expect(sliders.nth(1)).to_have_attribute("aria-valuetext", "12")
    expect(sliders.nth(2)).to_have_attribute("aria-valuetext", "not rated yet")
    expect(page.get_by_label("Meaning changed").nth(1)).to_be_checked()
    expect(page.locator("#submit")).to_contain_text(f"{count - 2} left to rate")
    keys = page.evaluate("Object.keys(window.sessionStorage)")
    handle = page.locator("input[name=screen]").input_value()
    assert keys == [f"prws-draft:{handle}"]
    for i in range(2, count):
        sliders.nth(i).fill("50")
    page.locator("#submit").click()
    page.wait_for_load_state()
    assert page.evaluate("Object.keys(window.sessionStorage)") == []
    scores = [r.score for r in Rating.objects.filter(judgment__judge=worker).order_by("candidate__position")]
    assert scores[:2] == [83, 12]
