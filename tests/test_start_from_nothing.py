"""A new team on an empty, freshly migrated database: projects are made by the commands that need them."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotate.models import Corpus, Project, Role
from annotate.selectors import project_list_for
from ranking.models import Campaign
from tests import factories
from tests.shared_data import REPO, SHARED

MTURK_EXAMPLE = REPO / "docs" / "examples" / "mturk-batch-results.csv"


def run(*args, stdin: str = "") -> str:
    out = io.StringIO()
    if stdin:
        old, sys.stdin = sys.stdin, io.StringIO(stdin)
        try:
            call_command(*args, stdout=out)
        finally:
            sys.stdin = old
    else:
        call_command(*args, stdout=out)
    return out.getvalue()


def jfleg_dir(tmp_path: Path) -> Path:
    (tmp_path / "t.src").write_bytes(b"a b\nc d\n")
    (tmp_path / "t.ref0").write_bytes(b"A b\nC d\n")
    return tmp_path / "t"


@pytest.mark.django_db
def test_import_corpus_on_empty_database_creates_default_project_without_owner(tmp_path):
    out = run("import_corpus", str(jfleg_dir(tmp_path)), "--format", "jfleg", "--name", "jf")
    assert out.splitlines()[0] == (
        "created project 'default' with no owner yet "
        "(set one: python manage.py create_project default --owner USERNAME)"
    )
    project = Project.objects.get()
    assert (project.name, project.owner) == ("default", None)
    assert Corpus.objects.get().project == project


@pytest.mark.django_db
def test_import_judgments_on_empty_database_succeeds():
    out = run("import_judgments", str(MTURK_EXAMPLE), "--format", "mturk-csv", "--name", "pilot")
    assert out.splitlines()[0] == (
        "created project 'default' with no owner yet "
        "(set one: python manage.py create_project default --owner USERNAME)"
    )
    campaign = Campaign.objects.get(name="pilot")
    assert (campaign.project.name, campaign.created_by, campaign.origin) == ("default", None, "imported")


@pytest.mark.django_db
def test_created_project_is_owned_by_the_only_researcher_or_superuser(tmp_path):
    alice = factories.user("alice", Role.RESEARCHER)
    factories.user("ann", Role.ANNOTATOR)
    out = run(
        "import_corpus", str(jfleg_dir(tmp_path)), "--format", "jfleg", "--name", "jf", "--project", "p1"
    )
    assert out.splitlines()[0] == "created project 'p1' owned by 'alice'"
    project = Project.objects.get(name="p1")
    assert project.owner == alice
    assert list(project.members.all()) == [alice]


@pytest.mark.django_db
def test_a_researcher_and_a_superuser_together_leave_the_project_without_owner(tmp_path):
    factories.user("alice", Role.RESEARCHER)
    get_user_model().objects.create_superuser("root", password="pw-for-tests-1")
    run("import_corpus", str(jfleg_dir(tmp_path)), "--format", "jfleg", "--name", "jf")
    assert Project.objects.get().owner is None


@pytest.mark.django_db
def test_existing_project_is_used_and_several_projects_need_a_name(tmp_path):
    alice = factories.user("alice", Role.RESEARCHER)
    factories.project(alice, "one")
    out = run("import_corpus", str(jfleg_dir(tmp_path)), "--format", "jfleg", "--name", "jf")
    assert out.splitlines()[0] == "imported corpus 'jf': 2 sentences, 1 references"
    factories.project(alice, "two")
    with pytest.raises(
        CommandError, match=re.escape("several projects exist (one, two): name one with --project")
    ):
        run("import_corpus", str(jfleg_dir(tmp_path)), "--format", "jfleg", "--name", "jf2")
    assert Project.objects.count() == 2


@pytest.mark.django_db
def test_create_project_creates_a_missing_owner_as_researcher_with_a_printed_password():
    out = run("create_project", "team", "--owner", "bob", "--description", "JFLEG work").splitlines()
    assert out[0] == "created researcher 'bob'"
    assert out[1] == "created project 'team' owned by 'bob'"
    password = out[2].removeprefix("password of 'bob' (shown once): ")
    bob = get_user_model().objects.get(username="bob")
    assert bob.check_password(password)
    assert list(bob.groups.values_list("name", flat=True)) == [Role.RESEARCHER]
    project = Project.objects.get(name="team")
    assert (project.owner, project.description) == (bob, "JFLEG work")


@pytest.mark.django_db
def test_create_project_reads_the_new_owners_password_from_stdin():
    out = run("create_project", "team", "--owner", "bob", "--password-stdin", stdin="s3cret-Pass\n")
    assert out.splitlines() == ["created researcher 'bob'", "created project 'team' owned by 'bob'"]
    assert get_user_model().objects.get(username="bob").check_password("s3cret-Pass")


@pytest.mark.django_db
def test_create_project_sets_the_owner_of_an_ownerless_project_and_refuses_a_duplicate():
    run("create_project", "team")
    assert Project.objects.get().owner is None
    alice = factories.user("alice", Role.RESEARCHER)
    assert run("create_project", "team", "--owner", "alice").splitlines() == [
        "project 'team' is now owned by 'alice'"
    ]
    assert Project.objects.get().owner == alice
    with pytest.raises(CommandError, match="a project named 'team' already exists"):
        run("create_project", "team", "--owner", "alice")


@pytest.mark.django_db
def test_superuser_sees_every_project_and_an_ownerless_project_shows_how_to_set_one(client):
    alice = factories.user("alice", Role.RESEARCHER)
    factories.project(alice, "mine")
    root = get_user_model().objects.create_superuser("root", password="pw-for-tests-1")
    run("create_project", "orphan")  # two candidates (alice, root): no owner
    assert sorted(project_list_for(root).values_list("name", flat=True)) == ["mine", "orphan"]
    assert list(project_list_for(alice).values_list("name", flat=True)) == ["mine"]
    client.force_login(root)
    page = client.get("/").content.decode()
    assert "Project <strong>orphan</strong> has no owner yet." in page
    assert "python manage.py create_project orphan --owner USERNAME" in page
    assert "Project <strong>mine</strong> has no owner" not in page


# --------------------------------------------------------------------------- the README, verbatim


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines() if line.startswith("    python ")]


def test_readme_command_line_section_names_migrate_and_the_imports():
    commands = readme_commands()
    assert "python manage.py migrate" in commands
    assert commands.index("python manage.py migrate") < min(
        i for i, c in enumerate(commands) if c.startswith("python manage.py import_")
    )


@pytest.mark.slow
@pytest.mark.shared
def test_readme_command_line_section_runs_verbatim_on_a_fresh_database(tmp_path):
    if not SHARED.is_dir():
        pytest.skip(f"public GEC data not found at {SHARED} (../shared is absent)")
    (tmp_path / "data").symlink_to(SHARED)
    (tmp_path / "docs").symlink_to(REPO / "docs")
    (tmp_path / "manage.py").symlink_to(REPO / "manage.py")
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env.update(PYTHONPATH=str(REPO), SQLITE_PATH=str(tmp_path / "fresh.sqlite3"))
    outputs = {}
    for command in readme_commands():
        argv = shlex.split(command)
        argv[0] = sys.executable
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        outputs[command] = done.stdout
    by_start = {c.split(" --")[0]: out for c, out in outputs.items()}
    assert by_start["python manage.py import_corpus data/jfleg/test/test"].splitlines() == [
        "created project 'default' with no owner yet "
        "(set one: python manage.py create_project default --owner USERNAME)",
        "imported corpus 'jfleg-test': 747 sentences, 4 references",
    ]
    assert "campaign: " in by_start["python manage.py import_judgments docs/examples/mturk-batch-results.csv"]
    assert by_start["python manage.py create_project default"].splitlines()[:2] == [
        "created researcher 'alice'",
        "project 'default' is now owned by 'alice'",
    ]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "jfleg-test.ref0",
        "jfleg-test.ref1",
        "jfleg-test.ref2",
        "jfleg-test.ref3",
        "jfleg-test.src",
        "prws-study.yaml",
    ]
    applied = by_start["python manage.py study apply docs/examples/studies/prws.yaml"]
    assert applied.startswith("created campaign 'Example PRWS study': ")


@pytest.mark.django_db
def test_the_export_commands_look_up_their_project_as_every_command_does(tmp_path):
    """Issue 19: every command that takes --project creates a missing one and, with no project at
    all, makes ``default``; before, the exports only narrowed their search by the name."""
    with pytest.raises(CommandError, match="no corpus named 'jf' in project 'fresh'"):
        run("export_corpus", "jf", "--format", "jfleg", "--out", str(tmp_path / "o"), "--project", "fresh")
    assert list(Project.objects.values_list("name", flat=True)) == ["fresh"]
    with pytest.raises(CommandError, match="no campaign 'pilot'"):
        run("export_judgments", "pilot", "--format", "wmt-csv", "--out", "-", "--project", "other")
    assert sorted(Project.objects.values_list("name", flat=True)) == ["fresh", "other"]
    Project.objects.all().delete()
    with pytest.raises(CommandError, match="no corpus named 'jf' in project 'default'"):
        run("export_corpus", "jf", "--format", "jfleg", "--out", str(tmp_path / "o"))
    assert list(Project.objects.values_list("name", flat=True)) == ["default"]
    # a name found in any project still needs no --project
    run("import_corpus", str(jfleg_dir(tmp_path)), "--format", "jfleg", "--name", "jf", "--project", "team")
    out = run("export_corpus", "jf", "--format", "jfleg", "--out", str(tmp_path / "o"))
    assert out.strip().endswith("jf.ref0") and Project.objects.count() == 2
