"""Issue 39: a study is a file. The examples in docs/examples/studies apply from an empty database,
apply again without a change, export, and apply into a second empty database to the same bytes; a
launched campaign takes only what may change after launch; ``validate`` needs no database; the
form, the API and the study schema read the one list of campaign settings (issue 38)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from crowd.models import CrowdSettings, InviteLink
from crowd.services.sessions import invite_links_create
from geceval.errors import GecInputError
from ranking.analysis import services as analysis
from ranking.api import CampaignCreateSerializer
from ranking.campaign_settings import CAMPAIGN_OPTIONS, SETTINGS
from ranking.forms import CampaignForm
from ranking.models import Assignment, Campaign, CampaignStatus, Screen
from ranking.services import campaign_create
from ranking.services.campaigns import campaign_options
from ranking.services.life_cycle import campaign_transition
from ranking.study.documents import study_export
from ranking.study.schema import study_schema
from tests import factories
from tests.factories import SOURCES, SYSTEMS

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples" / "studies"
NAMES = {
    "prws": "Example PRWS study",
    "ranking": "Example ranking study",
    "edits": "Example edit-level study",
}


def _study(*args: str) -> str:
    out = io.StringIO()
    call_command("study", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _empty_database() -> None:
    call_command("flush", interactive=False, verbosity=0)
    assert not Campaign.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("example", sorted(NAMES))
def test_example_study_applies_twice_without_change_and_its_export_round_trips_byte_identical(
    example, tmp_path
):
    _empty_database()
    path = EXAMPLES / f"{example}.yaml"
    assert _study("apply", str(path)).startswith(f"created campaign {NAMES[example]!r}: ")
    campaign = Campaign.objects.get(name=NAMES[example])
    assert campaign.status == CampaignStatus.DRAFT
    assert campaign.study == yaml.safe_load(path.read_text(encoding="utf-8"))
    screens = list(Screen.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
    before = study_export(campaign)

    assert (
        _study("apply", str(path)) == f"unchanged: campaign {NAMES[example]!r} already is as the study says\n"
    )
    assert (
        list(Screen.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True)) == screens
    )
    assert study_export(Campaign.objects.get(pk=campaign.pk)) == before

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _study("export", NAMES[example], "--out", str(tmp_path / "a" / "study.yaml"), "--with-files")
    _empty_database()
    assert _study("apply", str(tmp_path / "a" / "study.yaml")).startswith("created campaign")
    _study("export", NAMES[example], "--out", str(tmp_path / "b" / "study.yaml"), "--with-files")
    first, second = (sorted(p.name for p in (tmp_path / d).iterdir()) for d in "ab")
    assert first == second == ["learner-essays.jsonl", "study.yaml"]
    for name in first:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    exported = yaml.safe_load((tmp_path / "b" / "study.yaml").read_text(encoding="utf-8"))
    given = yaml.safe_load(path.read_text(encoding="utf-8"))
    for section in ("screens", "traps", "payment", "crowd"):  # what the example said, kept
        assert {k: v for k, v in exported[section].items() if k in given.get(section, {})} == given.get(
            section, {}
        )


@pytest.mark.django_db(transaction=True)
def test_a_campaign_made_without_a_study_file_exports_one_that_applies_into_an_empty_database(tmp_path):
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    campaign_create(  # as the API makes it
        project=project,
        corpus=corpus,
        name="made in the browser",
        systems=[s for s in systems if s.name in ("a", "b", "c")],
        created_by=researcher,
        status=CampaignStatus.DRAFT,
        **campaign_options({"judgments_per_item": 2, "budget": 12.5, "show_changes": True}),
    )
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _study("export", "made in the browser", "--out", str(tmp_path / "a" / "study.json"), "--with-files")
    _empty_database()
    assert _study("apply", str(tmp_path / "a" / "study.json")).startswith("created campaign")
    made = Campaign.objects.get(name="made in the browser")
    assert (made.judgments_per_item, float(made.budget), made.show_changes, made.trap_rate) == (
        2,
        12.5,
        True,
        0.2,
    )
    _study("export", "made in the browser", "--out", str(tmp_path / "b" / "study.json"), "--with-files")
    assert (tmp_path / "a" / "study.json").read_bytes() == (tmp_path / "b" / "study.json").read_bytes()


def _changed(tmp_path: Path, change) -> Path:
    doc = yaml.safe_load((EXAMPLES / "prws.yaml").read_text(encoding="utf-8"))
    doc["corpus"]["file"] = str(EXAMPLES / doc["corpus"]["file"])
    change(doc)
    path = tmp_path / "changed.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_a_launched_campaign_takes_only_what_may_change_after_launch_and_names_what_it_refused(tmp_path):
    _study("apply", str(EXAMPLES / "prws.yaml"))
    campaign = Campaign.objects.get(name=NAMES["prws"])
    campaign_transition(campaign=campaign, action="launch")

    def change(doc):
        doc["screens"]["judgments_per_item"] = 5  # fixed once launched
        doc["screens"]["assignment_minutes"] = 30
        doc["instructions"]["instructions"] = "Rate each correction."
        doc["exclusion"] = {**doc["exclusion"], "exclude_by_flat": True}
        doc["crowd"]["consent_text"] = "New consent."
        doc["systems"] = doc["systems"][:-1]  # fixed once launched

    with pytest.raises(CommandError, match=r"not applied: judgments_per_item, systems"):
        _study("apply", str(_changed(tmp_path, change)))
    campaign.refresh_from_db()
    assert campaign.judgments_per_item == 3 and campaign.systems.count() == 5
    assert (campaign.assignment_minutes, campaign.instructions) == (30, "Rate each correction.")
    assert campaign.exclude_by_flat is True
    assert CrowdSettings.objects.get(campaign=campaign).consent_text == "New consent."
    assert campaign.status == CampaignStatus.ACTIVE


@pytest.mark.django_db
def test_a_changed_study_rebuilds_a_draft_in_place_keeping_its_id_and_invite_links(tmp_path):
    _study("apply", str(EXAMPLES / "prws.yaml"))
    first = Campaign.objects.get(name=NAMES["prws"])
    assert (first.screens_per_hit, first.hits.count()) == (4, 2)
    (link,) = invite_links_create(campaign=first, count=1, label="pilot room")
    old_screens = set(Screen.objects.filter(campaign=first).values_list("pk", flat=True))

    def change(doc):
        doc["screens"]["screens_per_hit"] = 2
        doc["crowd"]["consent_text"] = "New consent."

    path = _changed(tmp_path, change)
    out = _study("apply", str(path))
    assert out.startswith(f"rebuilt (a draft) campaign {NAMES['prws']!r}")
    campaign = Campaign.objects.get(name=NAMES["prws"])
    assert campaign.pk == first.pk and campaign.screens_per_hit == 2
    assert (campaign.status, campaign.trap_secret, campaign.created_by_id) == (
        CampaignStatus.DRAFT,
        first.trap_secret,
        first.created_by_id,
    )
    assert campaign.hits.count() == 4  # 8 judged screens, two a HIT (traps ride along in them)
    screens = set(Screen.objects.filter(campaign=campaign).values_list("pk", flat=True))
    assert screens and not screens & old_screens  # built again: none of the old screens is left
    assert not Screen.objects.filter(pk__in=old_screens).exists()
    assert list(InviteLink.objects.filter(campaign=campaign).values_list("pk", "code")) == [
        (link.pk, link.code)
    ]
    assert CrowdSettings.objects.get(campaign=campaign).consent_text == "New consent."
    assert campaign.study == yaml.safe_load(path.read_text(encoding="utf-8"))

    assert (
        _study("apply", str(path)) == f"unchanged: campaign {NAMES['prws']!r} already is as the study says\n"
    )
    assert set(Screen.objects.filter(campaign=campaign).values_list("pk", flat=True)) == screens


@pytest.mark.django_db
def test_a_draft_that_has_handed_out_a_hit_is_not_built_again(tmp_path):
    _study("apply", str(EXAMPLES / "prws.yaml"))
    campaign = Campaign.objects.get(name=NAMES["prws"])
    worker = factories.user("w1", "annotator")
    Assignment.objects.create(
        hit=campaign.hits.first(), worker=worker, slot=0, expires=timezone.now() + timedelta(hours=1)
    )
    screens = Screen.objects.filter(campaign=campaign).count()

    def change(doc):
        doc["screens"]["screens_per_hit"] = 2

    with pytest.raises(CommandError, match=r"not applied: screens_per_hit"):
        _study("apply", str(_changed(tmp_path, change)))
    assert Screen.objects.filter(campaign=campaign).count() == screens
    with pytest.raises(GecInputError, match="only a draft that has handed out no HIT"):
        campaign_create(
            project=campaign.project,
            corpus=campaign.corpus,
            name=campaign.name,
            systems=list(campaign.systems.all()),
            created_by=None,
            status=CampaignStatus.DRAFT,
            into=campaign,
        )


def test_validate_needs_no_database_and_names_what_is_wrong(tmp_path):
    env = {**os.environ, "DATABASE_URL": "postgres://nobody@127.0.0.1:9/nowhere"}  # nothing listens there
    run = [sys.executable, str(ROOT / "manage.py"), "study", "validate"]
    ok = subprocess.run(
        [*run, str(EXAMPLES / "ranking.yaml")], env=env, capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip().endswith("ranking.yaml: a valid study")
    bad = tmp_path / "bad.yaml"
    doc = yaml.safe_load((EXAMPLES / "ranking.yaml").read_text(encoding="utf-8"))
    doc["screens"]["judgments_per_item"] = 0
    doc["traps"]["trap_colour"] = "red"
    bad.write_text(yaml.safe_dump(doc), encoding="utf-8")
    failed = subprocess.run([*run, str(bad)], env=env, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    assert "screens/judgments_per_item: 0 is less than the minimum of 1" in failed.stderr
    assert "traps: Additional properties are not allowed ('trap_colour' was unexpected)" in failed.stderr


def test_the_form_the_api_and_the_study_schema_read_the_one_list_of_settings():
    schema = study_schema()
    in_schema = {
        name
        for key, value in schema["properties"].items()
        for name in (value.get("properties", {}) if value.get("type") == "object" else {key: None})
    }
    names = {s.name for s in SETTINGS}
    assert names <= set(CampaignForm.base_fields)
    assert names <= set(CampaignCreateSerializer().fields)
    assert names <= in_schema
    assert set(CAMPAIGN_OPTIONS) == names - {n for n in names if n.startswith("exclude_by_")}
    after_launch = {s.name for s in SETTINGS if s.after_launch}
    assert after_launch == {
        "show_changes",
        "assignment_minutes",
        "exclude_by_pass_rate",
        "exclude_by_mann_whitney",
        "exclude_by_consistency",
        "exclude_by_flat",
        "exclude_by_agreement",
        "budget",
        "instructions",
    }


@pytest.mark.django_db
def test_the_study_schema_is_served_at_api_schema_study(client):
    response = client.get("/api/schema/study/")
    assert response.status_code == 200
    body = response.json()
    assert body == study_schema()
    assert body["properties"]["screens"]["properties"]["judgments_per_item"]["default"] == 8
    assert body["properties"]["protocol"]["enum"] == ["prws", "ranking", "edits"]


@pytest.mark.django_db
def test_analysis_runs_and_judgment_exports_carry_the_study_they_came_from(tmp_path):
    _study("apply", str(EXAMPLES / "prws.yaml"))
    campaign = Campaign.objects.get(name=NAMES["prws"])
    run = analysis.analysis_run_create(campaign=campaign, kind="prws_summary", parameters={}, seed=1)
    assert run.study == study_export(campaign)
    assert run.study["crowd"]["welcome_text"].startswith("This study is run by")
    out = tmp_path / "judgments.csv"
    call_command(
        "export_judgments", campaign.name, "--format", "wmt-csv", "--out", str(out), stderr=io.StringIO()
    )
    sidecar = yaml.safe_load((tmp_path / "judgments.csv.study.yaml").read_text(encoding="utf-8"))
    assert sidecar == study_export(campaign)


@pytest.mark.django_db
def test_the_api_takes_every_setting_of_the_list_and_checks_named_rows_belong_to_the_corpus():
    """The API's create serializer had drifted from the form (no reward, budget, reference or
    qualification); built from the one list, it takes them, by id, checked against the corpus."""
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    api = APIClient()
    api.force_authenticate(researcher)
    body = {"name": "paid", "corpus": corpus.pk, "systems": [s.pk for s in systems if s.name in ("a", "b")]}
    created = api.post(
        "/api/campaigns/",
        {**body, "reward_per_hit": "0.75", "budget": "30.00", "show_changes": True},
        format="json",
    )
    assert created.status_code == 201, created.content
    made = created.json()
    assert (made["reward_per_hit"], made["budget"], made["show_changes"]) == ("0.75", "30.00", True)
    refused = api.post("/api/campaigns/", {**body, "name": "q", "qualification": 999999}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"qualification": "no such qualification in the project"}
