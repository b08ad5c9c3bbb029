"""Issue 40: researcher pages fit a phone. At 390 px wide the campaign page (with a worker, a held
HIT and its tables), and every other page a researcher opens, is no wider than the screen: wide tables
scroll inside their own box (``.scroll-x``, defined once in arena.css)."""

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

ANY_WIDE = """[...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > 391)
  .map(e => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
  .slice(0, 12)"""
"""Past the right edge at all: what the message names when no element outside a scrolling box is."""


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


@pytest.mark.parametrize(("role", "at_least"), [("researcher", 20), ("worker", 5)])
def test_every_page_of_a_role_fits_a_390_px_screen(live_server, browser, settings, role, at_least):
    """Every named route a researcher (or a worker: crowd workers judge on phones too) may open (200 on
    GET in the permission matrix) that answers with an HTML page, filled with the matrix's world of
    objects: none is wider than a 390 px screen."""
    from django.test import Client

    from tests.hardening.matrixworld import matrix_world, params_for, user_for
    from tests.hardening.test_permissions import expected
    from tests.hardening.urlmap import url_for, walk_routes

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = matrix_world()
    researcher = user_for(world, role)
    researcher.set_password("pw-for-tests-1")
    researcher.save()
    client = Client()
    client.force_login(researcher)
    values = params_for(world)
    table = expected()
    pages = []
    for route in walk_routes():
        if route.name == "logout" or table[route.name][role][0] != 200:
            continue
        path = url_for(route, values)
        response = client.get(path)
        if response.status_code == 200 and response.get("Content-Type", "").startswith("text/html"):
            pages.append(path)
    assert len(pages) >= at_least, pages  # the role's pages, not a handful
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        login(page, live_server.url, researcher.username)
        too_wide = {}
        for path in pages:
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("load")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                too_wide[path] = (width, page.evaluate(WIDE) or page.evaluate(ANY_WIDE))
        assert too_wide == {}, f"pages wider than a 390 px screen: {too_wide}"
    finally:
        context.close()
