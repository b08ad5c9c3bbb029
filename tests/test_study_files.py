"""Issue 39: a study is a file. The examples in docs/examples/studies apply from an empty database,
apply again without a change, export, and apply into a second empty database to the same bytes; a
launched campaign takes only what may change after launch; ``validate`` needs no database; the
form, the API and the study schema read the one list of campaign settings (issue 38); the gold
answers (gold screens, the qualification test's) travel in the file, checked as a gold file is."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from annotate.models import Corpus
from crowd.models import CrowdSettings, InviteLink
from crowd.services.sessions import invite_links_create
from geceval.errors import GecInputError
from ranking.analysis import services as analysis
from ranking.api import CampaignCreateSerializer
from ranking.campaign_settings import CAMPAIGN_OPTIONS, SETTINGS
from ranking.forms import CampaignForm
from ranking.models import Assignment, Campaign, CampaignStatus, GoldScreen, Rating, Screen
from ranking.quality.gold import (
    gold_assignment,
    gold_assignment_start,
    gold_rate_set,
    gold_screens_import,
    qualification_hit_create,
)
from ranking.services import CandidateScore, campaign_create, screen_submit
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


def _researcher_api() -> tuple[APIClient, Corpus, list]:
    """A researcher's API client and a corpus of theirs with the factories' systems."""
    researcher = factories.user("res", "researcher")
    corpus, systems = factories.corpus_with_systems(
        factories.project(researcher), sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    api = APIClient()
    api.force_authenticate(researcher)
    return api, corpus, systems


@pytest.mark.django_db
def test_the_api_takes_every_setting_of_the_list_and_checks_named_rows_belong_to_the_corpus():
    """The API's create serializer had drifted from the form (no reward, budget, reference or
    qualification); built from the one list, it takes them, by id, checked against the corpus."""
    api, corpus, systems = _researcher_api()
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


# --------------------------------------------------------------------------- gold answers (issue 39 with 41)


def _judged(campaign: Campaign) -> list[Screen]:
    return list(
        Screen.objects.filter(campaign=campaign, control__isnull=True, hit__qualification=False)
        .select_related("sentence")
        .prefetch_related("candidates__outputs__system")
        .order_by("sentence__position", "index")
    )


def _answer(campaign: Campaign, position: int) -> int:
    """An expected answer by display position: PRWS 90, 70, ...; ranking 1, 2, ..."""
    return 90 - 20 * position if campaign.protocol == "prws" else position + 1


def _owner():
    """The one superuser of an empty database: a project the study creates is theirs."""
    return get_user_model().objects.create_superuser("owner", password="pw-for-tests-1")


def _gold_file_rows(campaign: Campaign, screens: list[Screen]) -> list[dict]:
    return [
        {
            "sentence": s.sentence.position,
            "screen": s.index,
            # one system per candidate, as a researcher writes it (the export names every one)
            "expected": {
                c.outputs.all()[0].system.name: _answer(campaign, c.position) for c in s.candidates.all()
            },
        }
        for s in screens
    ]


def _add_gold(campaign: Campaign) -> None:
    """What a researcher does on the Gold screens page and the campaign's qualification test."""
    screens = _judged(campaign)
    gold_rate_set(campaign=campaign, rate=0.5)
    data = json.dumps(_gold_file_rows(campaign, screens[1:4])).encode()
    assert gold_screens_import(campaign=campaign, data=data, filename="gold.json") == 3
    hit = qualification_hit_create(campaign=campaign, screens=2)
    campaign.gold_threshold = 0.6
    campaign.save(update_fields=["gold_threshold"])
    expert = campaign.created_by
    assignment = gold_assignment_start(campaign=campaign, expert=expert)
    for copy in Screen.objects.filter(hit=hit).order_by("hit_position"):
        field = "score" if campaign.protocol == "prws" else "rank"
        screen_submit(
            assignment=assignment,
            screen=copy,
            worker=expert,
            answers={
                c.pk: CandidateScore(**{field: _answer(campaign, c.position)}) for c in copy.candidates.all()
            },
        )
    assert gold_assignment(campaign) is not None


def _gold_state(campaign: Campaign) -> dict:
    """The campaign's gold in database-free terms: what a second database must have the same."""
    marked = GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True)
    gold = gold_assignment(campaign)
    return {
        "threshold": campaign.gold_threshold,
        "rate": campaign.gold_rate,
        "screens": sorted(
            (g.screen.sentence.position, g.screen.index, sorted(g.expected.values())) for g in marked
        ),
        "copies": GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=False).count() > 0,
        "test": sorted(
            Rating.objects.filter(judgment__assignment=gold).values_list(
                "judgment__screen__sentence__position", "candidate__text", "score", "rank"
            )
        )
        if gold
        else None,
    }


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("example", ["prws", "ranking"])
def test_gold_answers_travel_in_the_study_file_and_round_trip_byte_identical(example, tmp_path):
    """The researcher's gold screens, the gold rate and pass mark, and the qualification test with the
    expert's answers are in the exported study; applied into a second empty database they are the
    same gold (keyed by sentence position, screen index and system names, not ids), and its export
    is the same bytes."""
    _empty_database()
    researcher = _owner()  # the project's owner: the expert of the test
    _study("apply", str(EXAMPLES / f"{example}.yaml"))
    campaign = Campaign.objects.get(name=NAMES[example])
    assert campaign.created_by == researcher
    _add_gold(campaign)
    campaign.refresh_from_db()
    state = _gold_state(campaign)
    assert len(state["screens"]) >= 3 and state["copies"] and state["test"]  # the example's own, and 3

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _study("export", NAMES[example], "--out", str(tmp_path / "a" / "study.yaml"), "--with-files")
    doc = yaml.safe_load((tmp_path / "a" / "study.yaml").read_text(encoding="utf-8"))
    assert doc["gold"]["pass_mark"] == 0.6 and doc["traps"]["gold_rate"] == 0.5
    assert {frozenset(r) for r in doc["gold"]["screens"]} == {frozenset({"sentence", "screen", "expected"})}
    assert len(doc["gold"]["qualification"]) == 2 and all(
        "expected" in r for r in doc["gold"]["qualification"]
    )
    assert "id" not in json.dumps(doc["gold"])  # no database id anywhere
    assert _study("apply", str(tmp_path / "a" / "study.yaml")).startswith("unchanged")

    _empty_database()
    _owner()
    assert _study("apply", str(tmp_path / "a" / "study.yaml")).startswith("created campaign")
    again = Campaign.objects.get(name=NAMES[example])
    assert _gold_state(again) == state
    assert _study("apply", str(tmp_path / "a" / "study.yaml")).startswith("unchanged")
    _study("export", NAMES[example], "--out", str(tmp_path / "b" / "study.yaml"), "--with-files")
    for name in ("study.yaml", "learner-essays.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def _drawn(campaign: Campaign) -> list:
    """The judged screens as a study describes them: sentence position, screen index, each candidate's
    systems; no database id."""
    return sorted(
        (
            s.sentence.position,
            s.index,
            sorted(tuple(sorted(o.system.name for o in c.outputs.all())) for c in s.candidates.all()),
        )
        for s in _judged(campaign)
    )


@pytest.mark.django_db(transaction=True)
def test_a_study_with_gold_applies_into_a_database_that_holds_other_campaigns(tmp_path):
    """Screens and HITs are drawn from the study's seed and the sentences' positions, not database
    ids: the ranking example with gold, exported, applies where another campaign was made first (the
    ids of its rows all differ) and draws the same screens, so its gold rows find their candidates.
    Drawn from ids, the gold was refused ("no candidate of that screen comes from system ...")."""
    _empty_database()
    _owner()
    _study("apply", str(EXAMPLES / "ranking.yaml"))
    campaign = Campaign.objects.get(name=NAMES["ranking"])
    _add_gold(campaign)
    campaign.refresh_from_db()
    state, drawn = _gold_state(campaign), _drawn(campaign)
    _study("export", NAMES["ranking"], "--out", str(tmp_path / "study.yaml"), "--with-files")

    _empty_database()
    _owner()
    _study("apply", str(EXAMPLES / "prws.yaml"))  # another campaign first: other ids from here on
    assert _study("apply", str(tmp_path / "study.yaml")).startswith("created campaign")
    again = Campaign.objects.get(name=NAMES["ranking"])
    assert again.pk != campaign.pk
    assert _drawn(again) == drawn
    assert _gold_state(again) == state


@pytest.mark.django_db
def test_campaigns_made_through_the_api_draw_from_a_seed_of_their_own():
    """A study file names its seed (0 when it does not); a campaign made in the form or through the
    API gets a fresh one (``fresh_seed``), stored and exported, so that two of them over one corpus
    do not draw the same screens now that draws read no database id."""
    api, corpus, systems = _researcher_api()
    body = {
        "corpus": corpus.pk,
        "systems": [s.pk for s in systems],
        "protocol": "ranking",
        "max_candidates": 2,
    }
    for name in ("one", "two", "three"):
        assert api.post("/api/campaigns/", {**body, "name": name}, format="json").status_code == 201
    made = list(Campaign.objects.filter(name__in=("one", "two", "three")))
    assert len({c.seed for c in made}) == 3
    assert len({json.dumps(_drawn(c)) for c in made}) > 1
    assert {study_export(c)["seed"] for c in made} == {c.seed for c in made}


def _with_gold(tmp_path: Path, campaign: Campaign, change=None) -> Path:
    doc = study_export(campaign)
    doc["corpus"] = {"name": "learner-essays", "file": str(EXAMPLES / "learner-essays.jsonl")}
    if change:
        change(doc)
    path = tmp_path / "gold.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.django_db
def test_a_changed_study_rebuilds_a_draft_holding_gold_answers_with_the_gold_of_the_file(tmp_path):
    """Before gold was in the study file, such a draft was refused (the rebuild would drop the
    researcher's answers); now the file carries them and the draft is built again with them."""
    factories.user("res", "researcher")
    _study("apply", str(EXAMPLES / "prws.yaml"))
    campaign = Campaign.objects.get(name=NAMES["prws"])
    _add_gold(campaign)
    campaign.refresh_from_db()
    state = _gold_state(campaign)
    old = set(Screen.objects.filter(campaign=campaign).values_list("pk", flat=True))

    def change(doc):
        doc["screens"]["screens_per_hit"] = 2

    out = _study("apply", str(_with_gold(tmp_path, campaign, change)))
    assert out.startswith(f"rebuilt (a draft) campaign {NAMES['prws']!r}")
    campaign = Campaign.objects.get(pk=campaign.pk)
    assert campaign.screens_per_hit == 2
    assert not Screen.objects.filter(pk__in=old).exists()
    assert _gold_state(campaign) == state  # the same gold on the new screens, copies placed anew

    def fewer(doc):  # the file's gold is the whole gold: a row left out is no longer gold
        doc["gold"]["screens"] = doc["gold"]["screens"][:1]
        doc["gold"]["pass_mark"] = 0.8

    out = _study("apply", str(_with_gold(tmp_path, campaign, fewer)))
    assert out.startswith("rebuilt (a draft)")
    campaign.refresh_from_db()
    assert GoldScreen.objects.filter(screen__campaign=campaign, marked__isnull=True).count() == 1
    assert campaign.gold_threshold == 0.8


@pytest.mark.django_db
def test_gold_in_a_study_file_is_checked_as_a_gold_file_and_refused_whole(tmp_path):
    factories.user("res", "researcher")
    _study("apply", str(EXAMPLES / "prws.yaml"))
    campaign = Campaign.objects.get(name=NAMES["prws"])
    screen = _judged(campaign)[0]
    system = screen.candidates.all()[0].outputs.all()[0].system.name
    before = study_export(campaign)

    def unknown(doc):
        doc["gold"]["screens"] = [{"sentence": screen.sentence.position, "expected": {"no-such": 50}}]

    with pytest.raises(
        CommandError, match="gold: item 1: no candidate of that screen comes from system 'no-such'"
    ):
        _study("apply", str(_with_gold(tmp_path, campaign, unknown)))

    def partial(doc):  # the gold file's check: every candidate of the screen answered
        doc["gold"]["screens"] = [{"sentence": screen.sentence.position, "expected": {system: 50}}]

    with pytest.raises(CommandError, match="give an expected answer for every candidate"):
        _study("apply", str(_with_gold(tmp_path, campaign, partial)))

    def out_of_range(doc):
        rows = _gold_file_rows(campaign, [screen])
        rows[0]["expected"][system] = 101
        doc["gold"]["qualification"] = rows

    with pytest.raises(CommandError, match="gold: qualification test, screen 1: "):
        _study("apply", str(_with_gold(tmp_path, campaign, out_of_range)))
    assert study_export(Campaign.objects.get(pk=campaign.pk)) == before  # nothing changed, gold included


@pytest.mark.django_db
def test_gold_is_fixed_once_launched_and_a_file_without_gold_does_not_drop_a_drafts_answers(tmp_path):
    factories.user("res", "researcher")
    _study("apply", str(EXAMPLES / "prws.yaml"))
    campaign = Campaign.objects.get(name=NAMES["prws"])
    _add_gold(campaign)
    campaign.refresh_from_db()
    state = _gold_state(campaign)

    def no_gold(doc):  # a hand-written file (or one from before gold was in the study)
        del doc["gold"]
        doc["screens"]["screens_per_hit"] = 2

    with pytest.raises(CommandError, match="has gold answers and the study file has no gold section"):
        _study("apply", str(_with_gold(tmp_path, campaign, no_gold)))
    campaign.refresh_from_db()
    assert campaign.screens_per_hit == 4 and _gold_state(campaign) == state

    campaign_transition(campaign=campaign, action="launch")

    def change(doc):
        doc["gold"]["screens"] = doc["gold"]["screens"][:1]
        doc["gold"]["pass_mark"] = 0.9
        doc["gold"]["qualification"] = []
        doc["screens"]["assignment_minutes"] = 45

    with pytest.raises(CommandError, match=r"not applied: gold/pass_mark, gold/screens, gold/qualification"):
        _study("apply", str(_with_gold(tmp_path, campaign, change)))
    campaign.refresh_from_db()
    assert campaign.assignment_minutes == 45
    assert _gold_state(campaign) == state
