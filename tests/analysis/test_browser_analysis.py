"""Analysis pages in Chromium: start a run by keyboard, read the ranking, plots load, the progress bar moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from ranking.analysis.models import AnalysisRun, SystemRankResult
from tests.factories import ranking_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp")


def _login(page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("pw-for-tests-1")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")


def _image_loaded(page, selector: str) -> bool:
    return page.eval_on_selector(selector, "img => img.complete && img.naturalWidth > 0")


def test_researcher_runs_trueskill_and_reads_ranking_and_plot(live_server, new_page, tmp_path):
    user, campaign, _r = ranking_campaign()
    page = new_page()
    _login(page, live_server.url, user.username)
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/analysis/")
    page.screenshot(path=str(SHOTS / "analysis-campaign-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 380
    page.set_viewport_size({"width": 1100, "height": 900})
    page.get_by_label("Kind").select_option("trueskill")
    page.get_by_label("Runs").fill("40")
    page.get_by_label("Chunks").fill("2")
    page.get_by_label("Estimate judgments still needed").check()
    page.get_by_role("button", name="Start run").press("Enter")
    page.locator("#ranking").wait_for()
    assert page.locator("#run-status").inner_text() == "done"
    assert page.locator("#data-used").inner_text().startswith("300 valid judgments (900 pairwise)")
    names = page.locator("#ranking tbody tr td:nth-child(4)").all_inner_texts()
    assert names[0] == "best" and sorted(names) == ["best", "good", "mid", "src"]
    page.locator("#plot-ranks").scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('#plot-ranks').complete")
    assert _image_loaded(page, "#plot-ranks")
    assert page.locator("#needed tbody tr").count() == 4
    page.set_viewport_size({"width": 375, "height": 800})
    page.screenshot(path=str(SHOTS / "analysis-run-phone.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 380, f"page scrolls sideways on a phone ({width}px)"


def test_progress_bar_moves_while_a_run_is_running_and_results_appear_when_done(live_server, new_page):
    user, campaign, _r = ranking_campaign(n=30)
    run = AnalysisRun.objects.create(
        campaign=campaign, kind="trueskill", status="running", progress_done=10, progress_total=100, seed=0
    )
    page = new_page()
    _login(page, live_server.url, user.username)
    page.goto(f"{live_server.url}/analysis/runs/{run.pk}/")
    assert page.locator("#run-progress").get_attribute("value") == "10.0"
    AnalysisRun.objects.filter(pk=run.pk).update(progress_done=60)
    page.wait_for_function("document.querySelector('#run-progress').value === 60")
    assert "60 of 100" in page.locator("#run-progress-text").inner_text()
    for i, name in enumerate(["best", "src"]):
        SystemRankResult.objects.create(
            run=run, name=name, position=i + 1, mu=1 - i, rank_lo=i + 1, rank_hi=i + 1, cluster=i + 1
        )
    AnalysisRun.objects.filter(pk=run.pk).update(status="done", progress_done=100)
    page.locator("#ranking").wait_for()
    assert page.locator("#run-status").inner_text() == "done"
    page.wait_for_function("document.querySelector('#plot-ranks').complete")
    assert _image_loaded(page, "#plot-ranks")
    page.screenshot(path=str(SHOTS / "analysis-run.png"), full_page=True)
