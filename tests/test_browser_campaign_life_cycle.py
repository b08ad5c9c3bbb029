"""Issue 20 in Debian's Chromium: the campaign form follows the corpus, a draft is launched,
paused, resumed, closed (after a confirmation) and reopened, and an invite link is copied."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from ranking.models import Campaign
from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCES = ["He go home .", "She like cats .", "They was late ."]


def _world():
    researcher = factories.user("res", "researcher", password="res-pass-123")
    first = factories.project(researcher, name="Team A")
    second = factories.project(researcher, name="Team B")
    corpus_a, _ = factories.corpus_with_systems(
        first,
        sources=SOURCES,
        systems={"alpha": [f"{s} A" for s in SOURCES], "beta": [f"{s} B" for s in SOURCES]},
    )
    corpus_b, _ = factories.corpus_with_systems(
        second,
        sources=SOURCES,
        systems={"gamma": [f"{s} G" for s in SOURCES], "delta": [f"{s} D" for s in SOURCES]},
    )
    return corpus_a, corpus_b


def _step(page, button: str, shown: str) -> None:
    page.get_by_role("button", name=button, exact=True).click()
    page.get_by_text(shown).first.wait_for()


def test_researcher_walks_a_campaign_through_its_life_cycle_and_copies_an_invite(live_server, new_page):
    corpus_a, corpus_b = _world()
    base = live_server.url
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill("res")
    page.get_by_label("Password").fill("res-pass-123")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")

    page.goto(base + reverse("campaign-new"))
    alpha = page.get_by_label("c1 / alpha (", exact=False)
    gamma = page.get_by_label("c1 / gamma (", exact=False)
    page.get_by_label("Corpus").select_option(value=str(corpus_b.pk))
    expect(gamma).to_be_visible()
    expect(alpha).to_be_hidden()
    page.get_by_label("Corpus").select_option(value=str(corpus_a.pk))  # no reload: the list follows
    expect(alpha).to_be_visible()
    expect(gamma).to_be_hidden()
    page.get_by_label("Name").fill("Life <cycle>")
    alpha.check()
    page.get_by_label("c1 / beta (", exact=False).check()
    page.get_by_label("Trap rate").fill("0")
    page.get_by_label("Repeat rate").fill("0")
    page.get_by_role("button", name="Create campaign").click()
    page.get_by_text("It is a draft").wait_for()
    campaign = Campaign.objects.get(name="Life <cycle>")
    assert campaign.status == "draft" and set(campaign.systems.values_list("name", flat=True)) == {
        "alpha",
        "beta",
    }
    expect(page.locator("#status")).to_have_text("Draft")

    _step(page, "Launch", "launched: workers get HITs")
    expect(page.locator("#status")).to_have_text("Active")
    _step(page, "Pause", "paused: no new HITs")
    expect(page.locator("#status")).to_have_text("Paused")
    _step(page, "Resume", "resumed: workers get HITs again")
    page.get_by_role("button", name="Close", exact=True).click()
    page.get_by_text("no new HITs are given out").wait_for()  # the confirmation says what it does
    campaign.refresh_from_db()
    assert campaign.status == "active"
    _step(page, "Yes, close the campaign", "closed: no new HITs; HITs in progress may be finished")
    expect(page.locator("#status")).to_have_text("Closed")
    _step(page, "Reopen", "reopened as paused")
    expect(page.locator("#status")).to_have_text("Paused")
    campaign.refresh_from_db()
    assert campaign.status == "paused"
    page.screenshot(path="/tmp/gec-campaign-life-cycle.png", full_page=True)

    page.goto(base + reverse("crowd-campaign", args=[campaign.pk]))
    page.get_by_label("Number of links").fill("1")
    page.locator("#make-invites").click()
    page.get_by_text("1 invite link created.").wait_for()
    link = page.locator("input.invite-link").first
    url = link.input_value()
    assert url.startswith(base + "/crowd/i/")  # absolute, ready to send
    copy = page.get_by_role("button", name="Copy").first
    copy.focus()
    page.keyboard.press("Enter")  # the keyboard reaches it
    expect(page.locator("#copy-status")).to_have_text("Link copied.")
    assert page.evaluate("navigator.clipboard.readText()") == url
