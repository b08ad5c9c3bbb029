"""Issue 20 in Debian's Chromium: a researcher with nothing but their account makes a project, invites
an annotator by username (who accepts) and invites an expert by e-mail; the expert opens the mailed link, creates
an account and finds the project in the nav's switcher. Labels and roles only, no CSS selectors."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from playwright.sync_api import expect

from annotate.models import Project
from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_researcher_builds_a_team_and_the_invited_expert_joins_from_the_mail(live_server, new_page):
    factories.ensure_role_groups()
    factories.user("res", "researcher", password="res-pass-long-1")
    get_user_model().objects.create_user("ann", password="ann-pass-long-1")  # an account, no role yet
    base = live_server.url

    page = new_page()
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill("res")
    page.get_by_label("Password").fill("res-pass-long-1")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base}/")
    expect(page.get_by_label("Working in")).to_have_count(0)  # no project yet: no switcher

    page.get_by_role("link", name="Projects", exact=True).click()
    page.get_by_text("You are not a member of any project yet.").wait_for()
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Project name").fill("Learner <English>")
    page.get_by_label("Description").fill("Rewrites & rankings")
    page.get_by_role("button", name="Create project").click()
    page.get_by_role("heading", name="Project: Learner <English>").wait_for()
    page.get_by_text("Project Learner <English> created.").wait_for()

    add = page.get_by_role("region", name="Add member: invite an account by username")
    add.get_by_label("Username").fill("ann")
    add.get_by_label("Role").select_option(label="Annotator")
    add.get_by_role("button", name="Invite the account").click()
    page.get_by_text("If an account is called “ann”, it is invited as annotator").wait_for()
    members = page.get_by_role("table")
    expect(members.get_by_role("row", name=re.compile(r"^ann annotator"))).to_have_count(0)  # not yet

    annotator = new_page()  # issue 36: ann joins by accepting, from their Projects page
    annotator.goto(f"{base}/accounts/login/")
    annotator.get_by_label("Username").fill("ann")
    annotator.get_by_label("Password").fill("ann-pass-long-1")
    annotator.keyboard.press("Enter")
    annotator.wait_for_url(f"{base}/")
    annotator.goto(f"{base}/projects/")
    annotator.get_by_role("button", name="Accept").click()
    annotator.get_by_text("Welcome to Learner <English>: you joined as annotator.").wait_for()
    page.reload()
    expect(members.get_by_role("row", name=re.compile(r"^ann annotator"))).to_have_count(1)

    invite = page.get_by_role("region", name="Invite by e-mail")
    invite.get_by_label("Role").select_option(label="Expert")
    invite.get_by_label("E-mail address").fill("expert@example.org")
    # a text area (several addresses since issue 40): Tab to the button, Enter sends
    invite.get_by_role("button", name="Send invitation").focus()
    page.keyboard.press("Enter")
    page.get_by_text("Invitation sent to expert@example.org.").wait_for()
    # the pending invitation is listed with its role (issue 40's table of invitations not used yet)
    expect(
        page.locator("#invitations").get_by_role("row", name=re.compile(r"^expert@example\.org Expert"))
    ).to_have_count(1)

    assert [m.to for m in mail.outbox] == [["expert@example.org"]]
    link = re.search(r"https?://\S+/invitations/[\w-]+/", mail.outbox[0].body).group(0)

    expert = new_page()
    expert.goto(link)
    expert.get_by_role("heading", name="Join Learner <English>").wait_for()
    expert.get_by_label("Choose a username").fill("eve")
    expert.get_by_label("Password", exact=True).fill("123")
    expert.get_by_label("Password again").fill("123")
    expert.get_by_role("button", name="Create account and join").click()
    expert.get_by_text("This password is too short.", exact=False).wait_for()
    expert.get_by_label("Password", exact=True).fill("expert-pass-long-1")
    expert.get_by_label("Password again").fill("expert-pass-long-1")
    expert.get_by_role("button", name="Create account and join").click()
    expert.get_by_text("Welcome to Learner <English>: you joined as expert.").wait_for()

    project = Project.objects.get(name="Learner <English>")
    switcher = expert.get_by_label("Working in")
    expect(switcher).to_have_value(str(project.pk))
    expect(switcher.get_by_role("option", name="Learner <English>")).to_have_count(1)
    expect(expert.get_by_role("link", name="Qualifications (0 waiting)")).to_be_visible()
    expect(expert.get_by_role("link", name="Admin")).to_have_count(0)

    eve = get_user_model().objects.get(username="eve")
    assert set(eve.groups.values_list("name", flat=True)) == {"expert"}
    assert set(project.members.values_list("username", flat=True)) == {"res", "ann", "eve"}

    expert.goto(link)  # the link worked once
    expert.get_by_text("This invitation was already used.").wait_for()
