"""Issue 20's "Done when", in Debian's Chromium: one research team's first week, from an empty database
to exported results, in the browser only.

Nothing is made directly: the role groups are what ``migrate`` leaves in an empty database (a
transactional test's flush removes them, so they are put back), and the first account is made on
the set-up page the login page points to. Everything happens in pages: that researcher (the
installation's administrator) makes a project and invites an expert and two annotators by e-mail (they open the
mailed links and create their accounts), uploads 15 sentences of GMEG's dev FCE with its four
references and three systems' outputs (real files, written to tmp_path from ../shared), previews
traps on the campaign form, creates and launches a PRWS campaign with hidden traps at the default
rate, makes one reusable invite link, and two crowd workers (fresh browsers, same address) each do
the one HIT holding every screen. The workers are careful readers: each slider is set from the
sentence GLEU+ of the shown text against the references, so they pass the hidden traps without
knowing which screens are traps. Then the researcher runs TrueSkill from the analysis page, downloads
the ranking, and exports the corpus in GMEG layout.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from pathlib import Path

import pytest
from django.core import mail
from playwright.sync_api import expect

from annotate.rewrites.tokens import detokenise, retokenise
from geceval.traps.hidden import sentence_gleu
from tests import factories
from tests.shared_data import shared_path

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINES = 15
REFERENCES = ["ref0", "ref1", "ref2", "ref3"]
SYSTEMS = ["amu", "nus", "transformer"]
FILES = ["source", *REFERENCES, *SYSTEMS]
PROJECT = "FCE first week"
CORPUS = "gmeg-fce-dev"
CAMPAIGN = "FCE PRWS week one"


class Corpus:
    """The uploaded files as the test wrote them: what a careful worker checks a correction against."""

    def __init__(self, folder: Path, tmp_path: Path):
        every = {name: (folder / name).read_text(encoding="utf-8").splitlines() for name in FILES}
        # Sentences where the systems disagree: a screen of one text (every system left the learner's
        # sentence as it was) can hold no trap, and the walk wants traps to pass.
        chosen = [i for i in range(len(every["source"])) if len({every[s][i] for s in SYSTEMS}) > 1][:LINES]
        self.files: dict[str, Path] = {}
        self.lines: dict[str, list[str]] = {}
        (tmp_path / "upload").mkdir()
        for name in FILES:
            lines = [every[name][i] for i in chosen]
            path = tmp_path / "upload" / name
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            self.files[name], self.lines[name] = path, lines
        self.by_shown = {detokenise(s): i for i, s in enumerate(self.lines["source"])}

    def score(self, shown_source: str, shown_text: str) -> int:
        """0-100 from the sentence GLEU+ of a text as the page shows it (detokenised)."""
        i = self.by_shown[shown_source]
        source = self.lines["source"][i]
        refs = [self.lines[r][i] for r in REFERENCES]
        return round(100 * sentence_gleu(source, refs, retokenise(shown_text, source=source, like=refs)))


def _set_up_the_first_account(page, base: str) -> None:
    page.goto(f"{base}/")  # an empty installation: the login page points to set-up
    page.get_by_role("link", name="create the first one").click()
    page.get_by_role("heading", name="Set up GEC Arena").wait_for()
    page.get_by_label("Username").fill("res")
    page.get_by_label("E-mail address").fill("res@example.org")
    page.get_by_label("Password", exact=True).fill("res-pass-long-1")
    page.get_by_label("Password again").fill("res-pass-long-1")
    page.get_by_role("button", name="Create the administrator account").click()
    page.get_by_text("Welcome, res: you are this installation's administrator.").wait_for()
    assert page.url == f"{base}/"


def _make_project_and_invite_team(page, new_page) -> None:
    page.get_by_role("link", name="Projects", exact=True).click()
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Project name").fill(PROJECT)
    page.get_by_role("button", name="Create project").click()
    page.get_by_text(f"Project {PROJECT} created.").wait_for()
    team = [
        ("expert@example.org", "Expert"),
        ("ann1@example.org", "Annotator"),
        ("ann2@example.org", "Annotator"),
    ]
    invite = page.get_by_role("region", name="Invite by e-mail")
    for email, role in team:
        invite.get_by_label("Role").select_option(label=role)
        invite.get_by_label("E-mail address").fill(email)
        invite.get_by_role("button", name="Send invitation").click()
        page.get_by_text(f"Invitation sent to {email}.").wait_for()
    assert [m.to for m in mail.outbox] == [[email] for email, _ in team]
    for n, (message, (email, role)) in enumerate(zip(mail.outbox, team)):
        link = re.search(r"https?://\S+/invitations/[\w-]+/", message.body).group(0)
        member = new_page()
        member.goto(link)
        member.get_by_role("heading", name=f"Join {PROJECT}").wait_for()
        username = email.split("@")[0]
        member.get_by_label("Choose a username").fill(username)
        member.get_by_label("Password", exact=True).fill(f"{username}-pass-long-{n}")
        member.get_by_label("Password again").fill(f"{username}-pass-long-{n}")
        member.get_by_role("button", name="Create account and join").click()
        member.get_by_text(f"Welcome to {PROJECT}: you joined as {role.lower()}.").wait_for()
        member.context.close()
    page.reload()
    members = page.get_by_role("table")
    for email, role in team:
        expect(members.get_by_role("row", name=f"{email.split('@')[0]} {role.lower()}")).to_have_count(1)


def _upload_corpus(page, corpus: Corpus) -> None:
    page.get_by_role("link", name="Upload corpus").click()
    page.get_by_label("Project").select_option(label=PROJECT)
    page.get_by_label("Name").fill(CORPUS)
    page.get_by_label("Source").set_input_files(corpus.files["source"])
    page.get_by_label("References").set_input_files([corpus.files[r] for r in REFERENCES])
    page.get_by_label("Domain").fill("fce")
    page.get_by_label("Tokenized").check()
    page.get_by_role("button", name="Import").click()
    page.get_by_text(f"Imported {LINES} sentences into {CORPUS}.").wait_for()
    for system in SYSTEMS:
        page.get_by_label("System name").fill(system)
        page.get_by_label("Kind").select_option(label="Model output")
        page.get_by_label("File").set_input_files(corpus.files[system])
        page.get_by_role("button", name="Import outputs").click()
        page.get_by_text(f"Imported outputs of {system}.").wait_for()
    systems = page.get_by_role("table")
    for name in [*REFERENCES, *SYSTEMS]:
        expect(systems.get_by_role("row", name=re.compile(rf"^{name} "))).to_have_count(1)


def fill_prws_campaign_form(page, name: str, judgments_per_item: int) -> None:
    """The new-campaign form's walk both browser pilots share: a PRWS campaign of every system of the
    uploaded corpus, one HIT holding every screen (traps and repeats too), the speed rule off."""
    page.get_by_role("link", name="New campaign").click()
    page.get_by_label(re.compile(r"^Name:?$")).fill(name)
    page.get_by_label("Protocol").select_option(label="PRWS sliders (GMEG)")
    page.get_by_label("Corpus").select_option(label=CORPUS)
    for system in SYSTEMS:
        page.get_by_label(f"{CORPUS} / {system} (", exact=False).check()
    page.get_by_label("Judgments per item").fill(str(judgments_per_item))
    page.get_by_label("Screens per HIT").fill("40")
    # Playwright answers a screen in milliseconds, far under a person's minimum plausible time (issue
    # 35's speed rule, tested on its own in tests/test_held_work.py): these walks are about the rest.
    page.get_by_label("Speed is evidence").uncheck()


def _create_campaign_with_trap_preview(page) -> None:
    fill_prws_campaign_form(page, CAMPAIGN, judgments_per_item=2)
    page.get_by_label("Traps seen before exclusion").fill("2")  # so the pass rate counts
    errors = page.get_by_role("group", name="Errors a trap adds")
    errors.get_by_label("SPELL", exact=False).uncheck()
    errors.get_by_label(re.compile(r"\bWO:")).uncheck()
    page.get_by_label("Errors per trap").select_option(label="2")
    page.get_by_role("button", name="Preview 10 traps").click()
    table = page.locator("#trap-examples")  # under the button, without a reload
    table.wait_for()
    rows = table.get_by_role("row").filter(has=page.get_by_role("cell"))
    shown = rows.count()
    expect(page.get_by_role("heading", name=re.compile(rf"^{shown} example traps?$"))).to_be_visible()
    assert shown == 10  # the 15 sentences are drafted again with other bases until ten pass the checks
    for row in rows.all():
        line, base, _, how, gleu = row.get_by_role("cell").all_inner_texts()
        assert 1 <= int(line) <= LINES and base.strip()
        assert how in {"errors added: should be judged worse", "a correction undone: should be judged worse"}
        changed = row.get_by_role("cell").nth(2).locator("ins, del")  # the trap's words against its base
        assert changed.count() >= 1
        before, after = (float(x) for x in gleu.split(" → "))
        # the default GLEU+ drop (0.25), as far as the page's two decimals can show it: 0.70 -> 0.45
        # may be a drop of 0.2451 or 0.2549 (CI saw the float 0.7 - 0.45 = 0.2499999...)
        assert round(before - after, 2) >= 0.24
    # the form kept what was typed: the preview came without a reload
    expect(page.get_by_label(re.compile(r"^Name:?$"))).to_have_value(CAMPAIGN)
    expect(page.get_by_label("Judgments per item")).to_have_value("2")
    expect(errors.get_by_label("VERB:SVA", exact=False)).to_be_checked()
    expect(errors.get_by_label("SPELL", exact=False)).not_to_be_checked()
    expect(page.get_by_label("Errors per trap")).to_have_value("2")
    page.get_by_role("button", name="Create campaign").click()
    page.get_by_text(re.compile(rf"Campaign {CAMPAIGN} created with \d+ screens in 1 HIT\.")).wait_for()
    page.get_by_text("1 HIT of up to 40 screens").wait_for()
    page.get_by_text("hidden traps: 0.20 per judged screen").wait_for()  # the default rate
    page.get_by_role("button", name="Launch").click()
    page.get_by_text(f"Campaign {CAMPAIGN} launched").wait_for()


def _make_one_reusable_invite(page) -> str:
    page.get_by_role("link", name="Crowd: links, platforms, payments").click()
    page.get_by_label("Number of links").fill("1")
    page.get_by_label("Reusable (one link for many workers)").check()
    page.get_by_role("button", name="Create invite links").click()
    page.get_by_text("1 invite link created.").wait_for()
    expect(page.get_by_role("cell", name="reusable", exact=True)).to_have_count(1)
    return page.get_by_label("Invite link 1").input_value()


def _judge_screen(page, corpus: Corpus) -> list[int]:
    """Read the original and every correction, set each slider to the GLEU+ score, submit."""
    source = page.locator("#source-text").inner_text()
    candidates = page.locator("li.candidate")
    scores = []
    for i in range(candidates.count()):
        candidate = candidates.nth(i)
        score = corpus.score(source, candidate.locator(".candidate-text").inner_text())
        slider = candidate.get_by_role("slider")
        slider.fill(str(score))
        expect(slider).to_have_attribute("aria-valuetext", str(score))  # the page took the value
        scores.append(score)
    submit = page.get_by_role("button", name="Submit", exact=True)
    expect(submit).to_be_enabled()
    submit.click()
    return scores


def _work_the_hit(page, link: str, corpus: Corpus) -> int:
    page.goto(link)
    page.get_by_label("I have read the above and agree to take part").check()
    page.get_by_role("button", name="Start").click()
    counter = page.get_by_text(re.compile(r"^Screen \d+ of \d+$"))
    counter.wait_for()
    total = int(counter.inner_text().rsplit(" ", 1)[1])
    for n in range(1, total + 1):
        expect(counter).to_have_text(f"Screen {n} of {total}")
        _judge_screen(page, corpus)
    # issue 40: an invite visit goes on until no work is left (one HIT holds every screen here)
    page.get_by_text("HIT complete: thank you! You have finished 1 HIT.").wait_for()
    return total


def _both_workers_passed_their_traps(page) -> None:
    workers = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="Traps passed"))
    rows = workers.get_by_role("row").filter(has=page.get_by_role("cell"))
    expect(rows).to_have_count(2)
    for row in rows.all():
        traps = row.get_by_role("cell").nth(5).inner_text()
        passed, seen = (int(n) for n in re.match(r"(\d+)/(\d+) ", traps).groups())
        assert seen >= 2 and passed == seen, f"a careful reader failed a trap: {traps}"
        expect(row.get_by_role("cell", name="included", exact=True)).to_have_count(1)


def _run_trueskill_and_download_ranking(page, tmp_path: Path) -> list[dict]:
    page.get_by_role("link", name="Analysis (rankings, clusters, metrics, exports)").click()
    page.get_by_label("Kind").select_option(label="Human ranking: TrueSkill")
    page.get_by_label("Runs").fill("100")
    page.get_by_label("Chunks").fill("2")
    page.get_by_role("button", name="Start run").click()
    ranking = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="Score (μ)"))
    ranking.wait_for()
    expect(page.locator("#run-status")).to_have_text("done")
    for system in SYSTEMS:
        expect(ranking.get_by_role("cell", name=system, exact=True)).to_have_count(1)
    with page.expect_download() as info:
        page.get_by_role("link", name="CSV with the run's study file (zip)").click()
    path = tmp_path / "ranking.zip"
    info.value.save_as(path)
    with zipfile.ZipFile(path) as bundle:  # the ranking and the study the run came from (issue 39)
        ranking_csv, study = bundle.namelist()
        assert study == f"{ranking_csv}.study.yaml" and f"name: {CAMPAIGN}" in bundle.read(study).decode()
        return list(csv.DictReader(io.StringIO(bundle.read(ranking_csv).decode("utf-8"))))


def _export_corpus_gmeg(page, tmp_path: Path) -> dict[str, list[str]]:
    page.get_by_role("link", name="Export").click()
    page.get_by_label("Format").select_option(value="gmeg")
    with page.expect_download() as info:
        page.get_by_role("button", name="Download").click()
    path = tmp_path / "corpus.zip"
    info.value.save_as(path)
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name).decode("utf-8").splitlines() for name in zf.namelist()}


@pytest.mark.slow
def test_a_team_goes_from_an_empty_database_to_exported_results_in_the_browser(
    live_server, new_page, tmp_path, settings
):
    corpus = Corpus(shared_path("GMEG", "data", "dev", "fce", required_in_ci=True), tmp_path)
    assert settings.INVITE_IDENTITIES_PER_ADDRESS_PER_DAY >= 2  # both workers come from 127.0.0.1
    factories.ensure_role_groups()  # as migrate leaves them; the flush of an earlier test removed them
    base = live_server.url
    page = new_page()
    _set_up_the_first_account(page, base)

    _make_project_and_invite_team(page, new_page)
    _upload_corpus(page, corpus)
    _create_campaign_with_trap_preview(page)
    link = _make_one_reusable_invite(page)

    screens = [_work_the_hit(new_page(), link, corpus) for _ in range(2)]
    assert screens[0] == screens[1] > LINES  # every screen of the corpus, plus traps (and repeats)

    page.reload()  # the researcher is still on the crowd page: the one link served both
    expect(page.get_by_role("row", name=re.compile(r"reusable\s+2$"))).to_have_count(1)
    page.get_by_role("link", name="Back to the campaign").click()
    _both_workers_passed_their_traps(page)
    rows = _run_trueskill_and_download_ranking(page, tmp_path)
    assert sorted(r["system"] for r in rows) == SYSTEMS

    page.get_by_role("link", name=CAMPAIGN).click()  # the run's page names its campaign's analysis
    page.get_by_role("link", name="campaign page").click()
    page.get_by_role("link", name=CORPUS).click()
    files = _export_corpus_gmeg(page, tmp_path)
    assert files == {f"{CORPUS}/fce/{name}": corpus.lines[name] for name in FILES}
