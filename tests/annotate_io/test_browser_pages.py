"""The export and statistics pages in Chromium: keyboard download, phone width, screenshots."""

from __future__ import annotations

import os
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotate.formats.data import CorpusData, SystemData
from annotate.formats.services import corpus_import
from annotate.rewrites.services import rewrite_campaign_create
from annotate.services import SentenceRecord
from tests import factories
from tests.annotate_io.rewriting import rewrite_submit

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]
SHOTS = os.environ.get("ANNOTATE_IO_SHOTS", "")


def test_researcher_downloads_a_jfleg_zip_by_keyboard_and_reads_the_statistics(
    live_server, new_page, tmp_path
):
    res = get_user_model().objects.create_user(username="res", password="pw-for-tests-1")
    res.groups.add(Group.objects.get(name="researcher"))
    anns = []
    for i in range(2):
        u = get_user_model().objects.create_user(username=f"ann{i}", password=None)
        u.groups.add(Group.objects.get(name="annotator"))
        anns.append(u)
    project = factories.project(res, members=anns)
    sources = ["He go to school yesterday .", "I like cat .", "She have two dog ."]
    data = CorpusData(
        [SentenceRecord(s, "fce") for s in sources],
        [
            SystemData(
                "ref0", "reference", ["He went to school yesterday .", "I like cats .", "She has two dogs ."]
            )
        ],
    )
    corpus = corpus_import(project=project, name="pilot-corpus", data=data, tokenized=True)
    campaign = rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name="pilot",
        created_by=res,
        rewrites_per_sentence=2,
        ask_difficulty=True,
    )
    texts = [
        ["He went to school yesterday .", "I like cats .", "She has two dogs ."],
        ["He goes to school yesterday .", "I like cats .", "She had two dogs ."],
    ]
    for user, lines in zip(anns, texts):
        for k, (s, text) in enumerate(zip(corpus.sentences.order_by("position"), lines)):
            rewrite_submit(campaign=campaign, user=user, sentence=s, text=text, difficulty=k + 1)

    page = new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("Username").fill("res")
    page.get_by_label("Password").fill("pw-for-tests-1")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/rewrites/{campaign.pk}/export/")
    page.get_by_label("Format").select_option("jfleg")
    page.get_by_role("button", name="Download").focus()
    with page.expect_download() as info:
        page.keyboard.press("Enter")
    path = tmp_path / "pilot.zip"
    info.value.save_as(path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == [f"pilot/pilot.{x}" for x in ("ref0", "ref1", "ref2", "src")]
        assert zf.read("pilot/pilot.ref2").decode().splitlines()[0] == "He goes to school yesterday ."
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/export.png", full_page=True)

    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{live_server.url}/rewrites/{campaign.pk}/stats/")
    assert page.get_by_role("img", name="ERRANT error types (all annotators)").is_visible()
    assert page.locator("table thead th").nth(1).inner_text() == "all"
    # the page itself never scrolls sideways on a phone: only the table's own box does
    assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/stats-phone.png", full_page=True)
        page.set_viewport_size({"width": 1100, "height": 900})
        page.screenshot(path=f"{SHOTS}/stats.png", full_page=True)
        page.goto(f"{live_server.url}/corpora/{corpus.pk}/stats/")
        page.screenshot(path=f"{SHOTS}/corpus-stats.png", full_page=True)
