"""The nav's project switcher chooses what a researcher's lists show (issue 20, part 2)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotate.jobs.models import ImportJob
from annotate.models import Project
from annotate.rewrites import services as rewrite_services
from annotate.roles import user_roles
from annotate.selectors import project_list_for
from annotate.services import InputFile, corpus_import_text, outputs_import_lines
from ranking.services import campaign_create
from tests import factories

pytestmark = pytest.mark.django_db


def test_project_list_for_reads_the_roles_cached_on_the_user(django_assert_num_queries):
    researcher = factories.user("res", "researcher")
    mine = factories.project(researcher, name="Mine")
    factories.project(factories.user("other", "researcher"), name="Theirs")
    user_roles(researcher)
    with django_assert_num_queries(0):
        projects = project_list_for(researcher)
    assert list(projects) == [mine]
    admin = factories.user("boss", "admin")
    annotator = factories.user("ann", "annotator")
    mine.members.add(annotator)
    superuser = factories.user("root", "annotator")
    superuser.is_superuser = True
    superuser.save(update_fields=["is_superuser"])
    assert set(project_list_for(admin)) == set(Project.objects.all())
    assert set(project_list_for(superuser)) == set(Project.objects.all())
    assert list(project_list_for(annotator)) == []


# --------------------------------------------------------------------------- a researcher in two projects


def _project_world(researcher, name: str, annotator):
    """A project with a corpus, a judgment campaign, a rewrite campaign, a qualification and a
    background import, each named after the project."""
    project = factories.project(researcher, name=name, members=[annotator])
    data = ("\n".join(factories.SOURCES[:2]) + "\n").encode()
    corpus = corpus_import_text(project=project, name=f"{name} corpus", source=InputFile("s.txt", data))
    systems = [
        outputs_import_lines(
            corpus=corpus, system_name=s, kind="model", lines=factories.SOURCES[:2], filename=s
        )
        for s in ("a", "b")
    ]
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name=f"{name} judging",
        systems=systems,
        created_by=researcher,
        judgments_per_item=1,
        trap_rate=0.0,
        repeat_rate=0.0,
    )
    rewrites = rewrite_services.rewrite_campaign_create(
        project=project,
        corpus=corpus,
        name=f"{name} rewriting",
        created_by=researcher,
        rewrites_per_sentence=1,
    )
    rewrite_services.qualification_create(
        project=project,
        name=f"{name} test",
        sentences=list(corpus.sentences.all()[:1]),
        created_by=researcher,
    )
    job = ImportJob.objects.create(
        kind="corpus", project=project, created_by=researcher, label=f"{name} upload"
    )
    return {"project": project, "corpus": corpus, "campaign": campaign, "rewrites": rewrites, "job": job}


@pytest.fixture
def two_projects():
    researcher = factories.user("res", "researcher")
    annotator = factories.user("ann", "annotator")
    alpha = _project_world(researcher, "Alpha", annotator)
    beta = _project_world(researcher, "Beta", annotator)
    return researcher, annotator, alpha, beta


def _text(response) -> str:
    assert response.status_code == 200
    return re.sub(r"\s+", " ", response.content.decode())


def _switch(client, project) -> None:
    value = "all" if project == "all" else project.pk
    assert client.post(reverse("project-switch"), {"project": value, "next": "/"}).status_code == 302


LISTS = {  # page -> what it lists of each project
    "home": ("corpus", "judging"),
    "rewrite-index": ("rewriting", "test"),
    "import-jobs": ("upload",),
}


def test_the_researchers_lists_show_the_current_project_and_all_on_request(client, two_projects):
    researcher, _, _, beta = two_projects
    client.force_login(researcher)
    for name, things in LISTS.items():
        html = _text(client.get(reverse(name)))  # no choice yet: the first project by name
        assert all(f"Alpha {t}" in html for t in things), name
        assert not any(f"Beta {t}" in html for t in things), name
        assert "Showing project <strong>Alpha</strong> only." in html
        assert '<a href="#nav-project">“Working in”</a> at the top of the page changes it' in html
    _switch(client, beta["project"])
    for name, things in LISTS.items():
        html = _text(client.get(reverse(name)))
        assert all(f"Beta {t}" in html for t in things), name
        assert not any(f"Alpha {t}" in html for t in things), name
        assert "Showing project <strong>Beta</strong> only." in html
    _switch(client, "all")
    assert client.session["current_project_id"] == "all"
    for name, things in LISTS.items():
        html = _text(client.get(reverse(name)))
        assert all(f"{p} {t}" in html for p in ("Alpha", "Beta") for t in things), name
        assert "Showing all your projects." in html
        assert '<option value="all" selected>All my projects</option>' in html


def test_the_scope_line_offers_all_projects_as_a_button_and_the_switcher_as_an_entry(client, two_projects):
    researcher, *_ = two_projects
    client.force_login(researcher)
    html = _text(client.get(reverse("home")))
    assert '<input type="hidden" name="project" value="all"><button type="submit" class="small">' in html
    assert '<option value="all">All my projects</option>' in html
    solo = factories.user("solo", "researcher")
    factories.project(solo, name="Only")
    client.force_login(solo)
    html = _text(client.get(reverse("home")))
    assert "Showing project <strong>Only</strong> only." in html
    assert "All my projects" not in html  # one project: nothing more to show


def test_detail_pages_of_another_project_open_whatever_the_current_one(client, two_projects):
    researcher, _, alpha, beta = two_projects
    client.force_login(researcher)
    _switch(client, alpha["project"])
    for url in (
        reverse("corpus-detail", args=[beta["corpus"].pk]),
        reverse("campaign-detail", args=[beta["campaign"].pk]),
        reverse("campaign-analysis", args=[beta["campaign"].pk]),
        reverse("rewrite-campaign", args=[beta["rewrites"].pk]),
        reverse("import-job", args=[beta["job"].pk]),
    ):
        assert client.get(url).status_code == 200, url


def test_annotators_see_the_work_of_every_project_whatever_the_current_one(client, two_projects):
    _, annotator, alpha, _ = two_projects
    client.force_login(annotator)
    _switch(client, alpha["project"])
    home = _text(client.get(reverse("home")))
    assert "Alpha judging" in home and "Beta judging" in home
    rewrites = _text(client.get(reverse("rewrite-index")))
    assert "Alpha rewriting" in rewrites and "Beta rewriting" in rewrites
    assert "Showing project" not in home + rewrites  # workers' lists are not scoped


def _options(html: str, name: str) -> list[tuple[str, bool]]:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html).group(1)
    return [
        (label, bool(sel)) for sel, label in re.findall(r"<option value=\"\d+\"( selected)?>([^<]*)<", select)
    ]


def test_forms_preselect_the_current_project_and_offer_its_corpora_first(client, two_projects):
    researcher, _, _, beta = two_projects
    client.force_login(researcher)
    _switch(client, beta["project"])
    upload = _text(client.get(reverse("corpus-upload")))
    assert _options(upload, "project") == [("Alpha", False), ("Beta", True)]
    for name in ("rewrite-campaign-new", "qualification-new"):
        html = _text(client.get(reverse(name)))
        assert _options(html, "project") == [("Alpha", False), ("Beta", True)], name
        assert [label for label, _ in _options(html, "corpus")] == [
            "Beta / Beta corpus",
            "Alpha / Alpha corpus",
        ]
    judged = _text(client.get(reverse("campaign-new")))
    assert [label for label, _ in _options(judged, "corpus")] == ["Beta corpus", "Alpha corpus"]
    imported = _text(client.get(reverse("crowd-import")))
    assert _options(imported, "project") == [("Alpha", False), ("Beta", True)]
    assert [label for label, _ in _options(imported, "corpus")] == ["Beta corpus", "Alpha corpus"]
    _switch(client, "all")
    upload = _text(client.get(reverse("corpus-upload")))
    assert _options(upload, "project") == [("Alpha", False), ("Beta", False)]


def test_a_project_left_since_falls_back_to_the_first(client, two_projects):
    researcher, _, _, beta = two_projects
    client.force_login(researcher)
    _switch(client, beta["project"])
    beta["project"].members.remove(researcher)
    beta["project"].owner = factories.user("new-owner", "researcher")
    beta["project"].save(update_fields=["owner"])
    html = _text(client.get(reverse("home")))
    assert "Showing project <strong>Alpha</strong> only." in html and "Beta judging" not in html


def test_the_view_and_the_nav_ask_for_the_projects_once(client, two_projects):
    researcher, *_ = two_projects
    client.force_login(researcher)
    with CaptureQueriesContext(connection) as queries:
        client.get(reverse("import-jobs"))
    switcher = 'SELECT DISTINCT "annotate_project"."id" AS "pk", "annotate_project"."name" AS "name"'
    asked = [q["sql"] for q in queries.captured_queries if q["sql"].startswith(switcher)]
    assert len(asked) == 1, asked


def test_an_empty_current_project_says_so_by_name(client, two_projects):
    researcher, *_ = two_projects
    empty = factories.project(researcher, name="Gamma")
    client.force_login(researcher)
    _switch(client, empty)
    html = _text(client.get(reverse("home")))
    assert "No campaigns in Gamma yet." in html and "No corpora in Gamma yet." in html
    assert "Alpha judging" not in html and "Beta corpus" not in html
