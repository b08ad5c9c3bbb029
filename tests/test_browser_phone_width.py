"""Issue 40: researcher pages fit a phone. At 390 px wide the campaign page (with a worker, a held
HIT and its tables) is no wider than the screen: wide tables scroll inside their own box."""

from __future__ import annotations

import random

import pytest

from bench.bot_strategies import careful_seconds
from tests.test_browser_judging import login
from tests.test_pilot_hold import _pilot_campaign, _user, constant_score, work

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


WIDE = """[...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > 391 && !(e.parentElement && e.parentElement.closest('.scroll-x, .table-scroll')))
  .map(e => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
  .slice(0, 12)"""
"""The elements past the screen's right edge (outside a box that scrolls): what the message names."""


def test_the_campaign_page_fits_a_390_px_screen(live_server, browser, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    researcher, _, campaign = _pilot_campaign()
    researcher.set_password("pw-for-tests-1")
    researcher.save()
    # a worker with a long platform name, held by the pilot check: the workers and held tables fill
    work(
        campaign,
        _user("flat-bot-with-a-rather-long-name"),
        scores=constant_score,
        seconds=careful_seconds,
        rng=random.Random(1),
    )
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        login(page, live_server.url, researcher.username)
        for path in (f"/campaigns/{campaign.pk}/", f"/crowd/campaigns/{campaign.pk}/"):
            page.goto(f"{live_server.url}{path}")
            page.locator("h1").wait_for()
            width = page.evaluate("document.documentElement.scrollWidth")
            wide = page.evaluate(WIDE)
            assert width <= 390, f"{path} is {width} px wide on a 390 px screen: {wide}"
    finally:
        context.close()
