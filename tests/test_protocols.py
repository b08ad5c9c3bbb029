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


class YesNo(Protocol):
    """One output a screen: is it a good correction of the sentence? Stored as score 1 (yes) or 0."""

    name = "yesno"
    label = "Yes or no"
    instructions = "Is this a good correction?"
    screen_size = (1, 1)
    api_answer_serializer = YesNoAnswer

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
