"""The annotator page in Debian's Chromium: live diff, autosave across a reload, keyboard submit."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import Rewrite, RewriteDraft
from annotate.rewrites.services import rewrite_campaign_create
from tests.factories import team, tokenized_corpus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-for-tests-1"


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")


def test_annotator_types_sees_diff_draft_survives_reload_and_submits_with_keyboard(live_server, new_page):
    researcher, annotators, _, project = team(n_annotators=1, n_experts=0)
    corpus = tokenized_corpus(project)
    campaign = rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="jfleg-style",
        created_by=researcher,
        preset="jfleg",
        ask_difficulty=True,
    )
    page = new_page()
    login(page, live_server.url, annotators[0].username)
    page.goto(f"{live_server.url}/rewrites/{campaign.pk}/work/")
    assert page.locator("#source-text").inner_text() == "He don't like cats, she said."
    box = page.get_by_label("Your correction")
    assert box.input_value() == "He don't like cats, she said."
    expect(page.locator("#rw-diff")).to_contain_text("(no change)")  # drawn by the page script
    assert page.locator(".ctx").first.inner_text() == "Every person need to know a bit about math."

    box.fill("")  # keyboard typing, as a person would
    box.type("He doesn't like cats, she said.")
    page.locator("#rw-diff del").first.wait_for()
    assert page.locator("#rw-diff del").all_inner_texts() == ["don't"]
    assert page.locator("#rw-diff ins").all_inner_texts() == ["doesn't"]
    page.get_by_text("Draft saved").wait_for()
    assert RewriteDraft.objects.get().text == "He doesn't like cats, she said."

    page.reload()
    box = page.get_by_label("Your correction")
    expect(box).to_have_value("He doesn't like cats, she said.")
    expect(page.locator("#rw-diff ins")).to_have_text(["doesn't"])

    box.focus()
    page.keyboard.press("Control+Enter")  # difficulty missing: refused with a message, nothing lost
    page.locator("#rw-error").wait_for()
    expect(page.locator("#rw-error")).to_contain_text("difficult")
    assert page.get_by_label("Your correction").input_value() == "He doesn't like cats, she said."
    page.keyboard.press("Alt+3")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("document.querySelector('#source-text').textContent.startsWith('Every')")
    rewrite = Rewrite.objects.get()
    assert (rewrite.text, rewrite.difficulty) == ("He does n't like cats , she said .", 3)
    assert rewrite.seconds is not None and rewrite.seconds >= 0
    assert not RewriteDraft.objects.filter(sentence=rewrite.sentence).exists()

    page.keyboard.press("Alt+K")  # skip
    page.wait_for_function("document.querySelector('#source-text').textContent.startsWith('I goes')")

    # The session expires while typing: the draft is kept in the browser and restored after logging in.
    page.context.clear_cookies()
    box = page.get_by_label("Your correction")
    box.fill("I go to school every day.")
    box.press("End")
    page.get_by_text("Draft kept in this browser").wait_for()
    login(page, live_server.url, annotators[0].username)
    page.goto(f"{live_server.url}/rewrites/{campaign.pk}/work/")
    page.get_by_text("Restored your unsaved draft · saved").wait_for()
    assert page.get_by_label("Your correction").input_value() == "I go to school every day."
    assert RewriteDraft.objects.get(sentence__position=2).text == "I go to school every day."
    page.screenshot(path="/tmp/rewrite-work-1100.png", full_page=True)
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path="/tmp/rewrite-work-375.png", full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375
