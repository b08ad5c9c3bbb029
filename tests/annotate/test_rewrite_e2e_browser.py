"""A JFLEG-style collection end to end in Chromium: qualification -> campaign -> 2 annotators -> review."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotate.models import QualificationStatus, Rewrite, RewriteStatus
from annotate.services import outputs_import_lines
from tests.annotate.test_rewrite_browser import login
from tests.factories import team, tokenized_corpus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REFS = [
    "He does n't like cats , she said .",
    "Every person needs to know a bit about math .",
    "I go to school every day .",
    "This is a sentence .",
]


def test_jfleg_style_collection_from_qualification_to_expert_review(live_server, new_page):
    researcher, annotators, experts, project = team(n_annotators=2, n_experts=1)
    corpus = tokenized_corpus(project)
    outputs_import_lines(corpus=corpus, system_name="ref0", kind="reference", lines=REFS, filename="ref0")
    base = live_server.url

    res = new_page()
    login(res, base, researcher.username)
    res.goto(f"{base}/qualifications/new/")
    res.get_by_label("Project").select_option(label=project.name)
    res.get_by_label("Corpus").select_option(label=f"{project.name} / {corpus.name}")
    res.get_by_label("Name").fill("JFLEG screen")
    res.get_by_label("Sample lines").fill("1, 3")  # lines as the corpus page numbers them
    res.get_by_role("button", name="Create qualification").click()
    res.get_by_text("Qualification JFLEG screen created.").wait_for()
    qualification_url = res.url

    res.get_by_role("link", name="New rewrite campaign").first.click()
    res.get_by_label("Project").select_option(label=project.name)
    res.get_by_label("Corpus").select_option(label=f"{project.name} / {corpus.name}")
    res.get_by_label("Name").fill("JFLEG extension")
    res.get_by_label("Instruction preset").select_option("jfleg")
    expect(res.get_by_label("Instructions")).to_have_value(re.compile("learner of English"))  # set by script
    res.get_by_label("Rewrites per sentence").fill("2")
    res.get_by_label("Ask a 1-5 difficulty rating").check()
    res.get_by_label("Expert review of every rewrite").check()
    res.get_by_label("Pay per sentence").fill("0.10")
    res.get_by_label("To line (inclusive)").fill("2")
    res.get_by_label("Qualification").select_option(label="JFLEG screen")
    res.get_by_role("button", name="Create rewrite campaign").click()
    res.get_by_text("4 rewrites to collect").wait_for()
    campaign_url = res.url

    corrections = {
        "He don't like cats, she said.": "He doesn't like cats, she said.",
        "I goes to school every days.": "I go to school every day.",
        "Every person need to know a bit about math.": "Every person needs to know a bit about math.",
    }
    for annotator in annotators:
        page = new_page()
        login(page, base, annotator.username)
        page.get_by_role("link", name="Rewrites", exact=True).click()
        page.get_by_role("link", name="Take “JFLEG screen”").click()
        for i in (1, 2):
            source = page.locator(f"#q-source-{i}").inner_text()
            page.get_by_label(f"Your correction of sentence {i}").fill(corrections[source])
        page.get_by_role("button", name="Submit my answers").click()
        page.get_by_text("waiting for an expert's review").wait_for()

    exp = new_page()
    login(exp, base, experts[0].username)
    exp.goto(qualification_url)
    exp.screenshot(path="/tmp/rewrite-qualification-queue.png", full_page=True)
    assert (
        exp.locator(".q-attempt td").filter(has_text="1.000").count() >= 2
    )  # GLEU+ and ERRANT of a perfect answer
    for annotator in annotators:
        exp.get_by_role("button", name=f"Accept {annotator.username}").click()
        exp.wait_for_load_state()
    assert all(a.qualification_attempts.get().status == QualificationStatus.ACCEPTED for a in annotators)

    for annotator in annotators:
        page = new_page()
        login(page, base, annotator.username)
        page.get_by_role("link", name="Rewrites", exact=True).click()
        page.get_by_role("link", name="JFLEG extension").click()
        for _ in range(2):
            source = page.locator("#source-text").inner_text()
            box = page.get_by_label("Your correction")
            box.fill(corrections[source])
            page.get_by_label("2", exact=True).check()
            page.keyboard.press("Control+Enter")
            page.wait_for_load_state()
        page.locator("#no-more-work").wait_for()
    assert Rewrite.objects.filter(status=RewriteStatus.SUBMITTED).count() == 4

    exp.goto(f"{campaign_url}review/")
    exp.screenshot(path="/tmp/rewrite-review.png", full_page=True)
    exp.get_by_role("button", name="Accept").click()
    exp.wait_for_load_state()
    exp.get_by_label("Edited version").fill("He does not like cats, she said.")
    exp.get_by_role("button", name="Save my edit").click()
    exp.wait_for_load_state()
    exp.get_by_role("button", name="Accept").click()
    exp.wait_for_load_state()
    exp.keyboard.press("Alt+r")  # a rejection needs a reason: the key moves to the box first
    expect(exp.get_by_label("Reason for a rejection")).to_be_focused()
    exp.keyboard.type("does not correct the sentence")
    exp.get_by_role("button", name="Reject").click()
    exp.locator("#review-empty").wait_for()
    statuses = sorted(Rewrite.objects.values_list("status", flat=True))
    assert statuses == ["accepted", "accepted", "edited", "rejected"]
    assert Rewrite.objects.get(status="edited").reviewed_text == "He does not like cats , she said ."

    res.goto(campaign_url)
    assert res.locator("#sentences-done").inner_text() == "1 of 2"
    assert res.locator("#cost").inner_text().startswith("0.30")
    res.screenshot(path="/tmp/rewrite-campaign-progress.png", full_page=True)
