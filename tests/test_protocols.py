"""Protocols are plug-ins (issue 15): the registry answers every protocol question, and a protocol
registered from outside the house runs a HIT end to end through the workers' API."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from rest_framework import serializers

from geceval.errors import GecInputError
from ranking.models import Rating, SystemScore
from ranking.protocols import CandidateScore, Protocol, protocol_choices, protocol_get, register, unregister
from ranking.protocols.files import JudgmentFormat, pseudonym
from ranking.selectors import valid_ratings
from ranking.services import campaign_create
from tests import factories
from tests.factories import SOURCES, SYSTEMS

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("annotate", "config", "crowd", "geceval", "ranking")

# A protocol member (Protocol.PRWS), or a protocol name compared (campaign.protocol == ..., != "prws").
PROTOCOL_BRANCH = re.compile(
    r"\bProtocol\.[A-Z]"
    r"|\bprotocol\w*\s*(?:==|!=|\bnot in\b|\bin\b)"
    r"|(?:==|!=)\s*[\"'](?:prws|ranking)[\"']"
)


def protocol_branches(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if PROTOCOL_BRANCH.search(line.split("#")[0])]


def test_no_protocol_member_or_protocol_comparison_outside_ranking_protocols():
    found = {}
    for package in PRODUCT:
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if rel.parts[:2] == ("ranking", "protocols") or "migrations" in rel.parts:
                continue
            hits = protocol_branches(path.read_text())
            if hits:
                found[str(rel)] = hits
    assert found == {}


@pytest.mark.parametrize(
    "line",
    [
        "    if campaign.protocol == Protocol.PRWS:",
        '    key = "score" if protocol == "prws" else "rank"',
        "    if protocol not in Protocol.values:",
        '        if parsed.protocol != "ranking":',
        "    default=Protocol.RANKING,",
    ],
)
def test_the_grep_catches_a_protocol_branch(line):
    assert protocol_branches(f"x = 1\n{line}\n") == [line.strip()]


# ----------------------------------------------------------------------------- a toy protocol


class YesNoAnswer(serializers.Serializer):
    position = serializers.IntegerField(min_value=0, max_value=0)
    answer = serializers.ChoiceField(choices=["yes", "no"])


def iter_yes_no_csv(campaign):
    """The toy protocol's own judgment file: one row per answer."""
    yield "worker,answer\n"
    for worker, score in valid_ratings(campaign).order_by("pk").values_list("judgment__judge_id", "score"):
        yield f"{pseudonym(worker)},{'yes' if score else 'no'}\n"


class YesNo(Protocol):
    """One output a screen: is it a good correction of the sentence? Stored as score 1 (yes) or 0."""

    name = "yesno"
    label = "Yes or no"
    instructions = "Is this a good correction?"
    screen_size = (1, 1)
    api_answer_serializer = YesNoAnswer
    judgment_formats = (
        JudgmentFormat("yesno-csv", "Yes/no answers CSV", "csv", "text/csv", iter_yes_no_csv),
    )

    def answer_from_api(self, answer):
        return CandidateScore(score=int(answer["answer"] == "yes"))

    def validate_answer(self, answer, shown):
        if answer.score not in (0, 1) or answer.rank is not None:
            raise GecInputError("answer yes or no")

    def live_scores(self, campaign, wanted):
        yes: dict[int, list[int]] = defaultdict(list)
        for system_id, score in valid_ratings(campaign).values_list("candidate__outputs__system_id", "score"):
            if system_id in wanted:
                yes[system_id].append(score)
        return {
            system_id: {"mean_score": 100 * sum(v) / len(v), "ratings": len(v), "items": len(v)}
            for system_id, v in yes.items()
        }


@pytest.fixture
def yes_no():
    protocol = register(YesNo())
    yield protocol
    unregister(protocol.name)


@pytest.mark.django_db
def test_a_toy_protocol_registered_from_a_test_runs_a_hit_through_the_workers_api(
    yes_no, client, django_capture_on_commit_callbacks
):
    assert ("yesno", "Yes or no") in protocol_choices()
    researcher = factories.user("res", "researcher")
    worker = factories.user("w1", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES[:2], systems={k: v[:2] for k, v in SYSTEMS.items()}
    )
    by_name = {s.name: s for s in systems}
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="toy",
        systems=[by_name["a"], by_name["c"]],
        created_by=researcher,
        protocol="yesno",
        max_candidates=1,
        judgments_per_item=1,
    )
    texts = {o.text for s in (by_name["a"], by_name["c"]) for o in s.outputs.all()}
    assert campaign.screens.count() == len(texts)  # one output a screen, identical texts once
    assert campaign.get_protocol_display() == "Yes or no"
    client.force_login(worker)
    response = client.post(f"/api/work/campaigns/{campaign.pk}/request/")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["protocol"] == "yesno" and body["total"] == len(texts)
    bad = client.post(
        f"/api/work/assignments/{body['id']}/screens/{body['screen']['id']}/",
        {"answers": [{"position": 0, "score": 50}]},
        content_type="application/json",
    )
    assert bad.status_code == 400
    assert bad.json() == {"answers": {"0": {"answer": ["This field is required."]}}}
    good_texts = set(by_name["a"].outputs.values_list("text", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        while body["screen"] is not None:
            (candidate,) = body["screen"]["candidates"]
            verdict = "yes" if candidate["text"] in good_texts else "no"
            response = client.post(
                f"/api/work/assignments/{body['id']}/screens/{body['screen']['id']}/",
                {"answers": [{"position": 0, "answer": verdict}]},
                content_type="application/json",
            )
            assert response.status_code == 201, response.content
            body = response.json()
    assert body["status"] == "submitted" and body["done"] == body["total"] == len(texts)
    assert sorted(
        Rating.objects.filter(judgment__screen__campaign=campaign).values_list("score", flat=True)
    ) == sorted(int(t in good_texts) for t in texts)
    scores = {s.system.name: s.mean_score for s in SystemScore.objects.filter(campaign=campaign)}
    assert scores == {
        "a": 100.0,
        "c": 100 * sum(t in good_texts for t in by_name["c"].outputs.values_list("text", flat=True)) / 2,
    }


def test_an_unregistered_protocol_is_refused_everywhere_it_is_asked_for(yes_no):
    unregister("yesno")
    assert "yesno" not in dict(protocol_choices())
    with pytest.raises(GecInputError, match="unknown protocol 'yesno'"):
        protocol_get("yesno")


@pytest.mark.django_db
def test_a_one_output_protocol_is_created_through_the_api_and_the_form_and_exports_its_own_file(
    yes_no, client, tmp_path
):
    """Issue 15: the API and the form take a screen size the protocol allows (1 here, where they
    asked for 2 to 5), and the protocol names its judgment files: its own here, none of PRWS's."""
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES[:2], systems={k: v[:2] for k, v in SYSTEMS.items()}
    )
    client.force_login(researcher)
    body = {"name": "toy api", "corpus": corpus.pk, "systems": [systems[0].pk], "protocol": "yesno"}
    made = client.post("/api/campaigns/", body | {"max_candidates": 1}, content_type="application/json")
    assert made.status_code == 201, made.content
    wrong = client.post(
        "/api/campaigns/",
        body | {"name": "prws one", "protocol": "prws", "max_candidates": 1},
        content_type="application/json",
    )
    assert wrong.status_code == 400 and "2 to 5 outputs" in wrong.content.decode()
    form = {
        "name": "toy form",
        "protocol": "yesno",
        "corpus": corpus.pk,
        "systems": [systems[0].pk],
        "judgments_per_item": 1,
        "max_candidates": 1,
        "screens_per_sentence": 1,
        "screens_per_hit": 5,
        "assignment_minutes": 60,
        "trap_rate": 0,
        "repeat_rate": 0,
        "trap_threshold": 0.6,
        "trap_min_seen": 10,
        "reward_per_hit": 0,
    }
    assert client.post("/campaigns/new/", form).status_code == 302
    refused = client.post("/campaigns/new/", form | {"name": "toy five", "max_candidates": 5})
    assert refused.status_code == 400 and "Yes or no shows 1 outputs per screen." in refused.content.decode()

    campaign_id = made.json()["id"]
    page = client.get(f"/campaigns/{campaign_id}/analysis/").content.decode()
    assert "Yes/no answers CSV" in page and "PRWS ratings CSV" not in page and "WMT CSV" not in page
    export = client.get(f"/campaigns/{campaign_id}/judgments/yesno-csv/")
    assert export.status_code == 200 and b"".join(export.streaming_content) == b"worker,answer\n"
    assert export["Content-Disposition"].endswith('yesno-csv.csv"')
    assert client.get(f"/campaigns/{campaign_id}/judgments/prws-csv/").status_code == 404
    api = client.get(f"/api/judgment-exports/{campaign_id}/?fmt=wmt-csv")
    assert api.status_code == 400 and api.json() == {"fmt": "one of yesno-csv"}


@pytest.mark.django_db
def test_a_ranking_campaign_offers_no_prws_file_anywhere(client, tmp_path):
    """Before, a ranking campaign's GMEG segment-score export was a file of empty cells."""
    from django.core.management import CommandError, call_command

    researcher, campaign, _ = factories.ranking_campaign(n=20)
    client.force_login(researcher)
    assert client.get(f"/campaigns/{campaign.pk}/judgments/gmeg-segment-csv/").status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/judgments/wmt-csv/").status_code == 200
    api = client.get(f"/api/judgment-exports/{campaign.pk}/?fmt=gmeg-segment-csv")
    assert api.status_code == 400 and api.json() == {"fmt": "one of wmt-csv, appraise-xml"}
    out = tmp_path / "segments.csv"
    with pytest.raises(CommandError, match="Relative ranking campaign exports wmt-csv, appraise-xml"):
        call_command("export_judgments", campaign.name, "--format", "gmeg-segment-csv", "--out", str(out))
    assert not out.exists()
