"""The edit-level protocol end to end in Debian's Chromium (issue 24): a campaign with a trap beside
the source on every screen; a worker labels every edit and ranks with the keyboard only; the server
checks the trap; the researcher downloads the edit labels (JSONL) and the rankings (Appraise XML,
WMT CSV) and sees the edit-level score on an analysis run's page."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotate.services import outputs_import_lines
from ranking.models import ScreenJudgment, WorkerRecord
from ranking.protocols.edits.models import EditLabel
from ranking.protocols.files import pseudonym
from ranking.services import campaign_create
from tests import factories
from tests.test_browser_judging import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCES = ["He go home yesterday .", "She like cat ."]
SYSTEMS = {
    "src": SOURCES,
    "a": ["He went home yesterday .", "She likes cats ."],
    "c": ["He goes home yesterday .", "She likes cat ."],
}
TRAPS = ["He go to home yesterday . .", "She like the cat ."]


def _work_screen(page) -> tuple[int, int]:
    """Label and rank one screen by keyboard: the trap's edits bad and the trap last, the rest good
    and tied first. Returns (edits labelled, corrections ranked)."""
    page.get_by_text("left)").wait_for()  # the page script is ready
    groups = page.locator(".edit-choice, .rank-choices")
    kinds = groups.evaluate_all(
        # the corrected sentence as it reads: without the struck-out words and the edit numbers
        "gs => gs.map(g => { const p = g.closest('.rank-item').querySelector('.candidate-text')"
        ".cloneNode(true); p.querySelectorAll('del, sup').forEach(e => e.remove());"
        " return [g.classList.contains('edit-choice'), p.textContent]; })"
    )
    ranked = sum(1 for is_edit, _ in kinds if not is_edit)
    groups.first.locator("input").first.focus()
    for is_edit, text in kinds:
        trap = _is_trap(text)
        if is_edit:
            page.keyboard.press("b" if trap else "g")  # focus moves on to the next group by itself
        else:
            page.keyboard.press(str(ranked) if trap else "1")
            page.keyboard.press("Tab")  # on to the next correction's first change (or Submit)
    submit = page.locator("#submit")
    expect(submit).to_be_enabled()
    expect(submit).to_be_focused()
    page.keyboard.press("Enter")
    return sum(1 for is_edit, _ in kinds if is_edit), ranked


def _is_trap(shown: str) -> bool:
    """The worker's own reading: the trap is the correction whose changes are the added errors (the
    test knows the trap texts; the page does not say)."""
    return shown.split() in [t.split() for t in TRAPS]


def test_edit_level_campaign_with_a_trap_end_to_end_by_keyboard(live_server, new_page, tmp_path: Path):
    researcher = factories.user("res", "researcher")
    worker = factories.user("worker", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    trap = outputs_import_lines(
        corpus=corpus, system_name="source+error", kind="source+error", lines=TRAPS, filename="traps"
    )
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="edit-level",
        systems=systems,
        created_by=researcher,
        protocol="edits",
        max_candidates=4,
        judgments_per_item=1,
        trap_system=trap,
        trap_design="paper",
        trap_rate=1.0,
    )

    page = new_page()
    login(page, live_server.url, "worker")
    page.get_by_role("link", name="edit-level").click()
    page.locator("mark.edit").first.wait_for()
    assert "trap" not in page.content().lower()
    labelled = 0
    for screen in (1, 2):
        page.get_by_text(f"Screen {screen} of 2").wait_for()
        edits, ranked = _work_screen(page)
        assert ranked == 4  # the source, its trap, a and c
        labelled += edits
    page.get_by_text("HIT complete: thank you!").wait_for()
    judgments = ScreenJudgment.objects.filter(judge=worker)
    assert judgments.count() == 2
    assert list(judgments.values_list("trap_passed", flat=True)) == [True, True]  # checked on the server
    record = WorkerRecord.objects.get(campaign=campaign, worker=worker)
    assert (record.traps_seen, record.traps_passed, record.excluded) == (2, 2, False)
    assert EditLabel.objects.filter(judgment__judge=worker).count() == labelled
    assert set(EditLabel.objects.filter(candidate__outputs__system=trap).values_list("label", flat=True)) == {
        "bad"
    }

    page = new_page()
    login(page, live_server.url, "res")
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/analysis/")

    def download(label: str) -> str:
        with page.expect_download() as info:
            page.get_by_role("link", name=label).click()
        path = tmp_path / info.value.suggested_filename
        info.value.save_as(path)
        if not zipfile.is_zipfile(path):
            return path.read_text(encoding="utf-8")
        with zipfile.ZipFile(path) as bundle:  # the file and the study it came from (issue 39)
            names = bundle.namelist()
            assert len(names) == 2 and names[1] == f"{names[0]}.study.yaml", names
            return bundle.read(names[0]).decode("utf-8")

    rows = [json.loads(line) for line in download("Edit labels JSONL").splitlines()]
    judge = pseudonym(worker.pk)
    assert {
        "sentence": 0, "system": "a", "span": [1, 2], "original": "go", "correction": "went",
        "type": "R:VERB:TENSE", "label": "good", "judge": judge,
    } in rows  # fmt: skip
    assert {r["system"] for r in rows} == {"a", "c"} and {r["label"] for r in rows} == {"good"}
    xml = download("Appraise XML")
    assert xml.count("<ranking-item") == 2 and 'system="source+error"' not in xml
    wmt = list(csv.reader(io.StringIO(download("WMT CSV (rankings; PRWS screens ranked by score)"))))
    assert len(wmt) == 3 and {row[2] for row in wmt[1:]} == {judge}
    ranks = {row[i]: row[i + 1] for row in wmt[1:] for i in range(3, len(row), 2) if row[i]}
    assert ranks == {"src": "1", "a": "1", "c": "1"}  # the trap ranked last is no system's rank

    page.get_by_label("Kind").select_option(label="Human ranking: TrueSkill")
    page.get_by_label("Runs").fill("20")
    page.get_by_role("button", name="Start run").click()
    panel = page.locator("#edit-scores")
    expect(panel.get_by_role("heading", name="Edit-level score per system")).to_be_visible()
    expect(panel.get_by_role("row", name="a 1.000 1.000–1.000")).to_have_count(1)
