"""Issue 40: a judgment campaign takes a sample of its corpus (a line range, a count, or a seeded
random sample), stored on the campaign (so a study file can carry it) and named on its page."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from geceval.errors import GecInputError
from ranking.models import Campaign
from ranking.services import campaign_create
from tests import factories

pytestmark = pytest.mark.django_db

N = 20
SOURCES = [f"Line {i} have a error ." for i in range(1, N + 1)]
SYSTEMS = {
    "a": [f"Line {i} has an error ." for i in range(1, N + 1)],
    "b": [f"Line {i} has a error ." for i in range(1, N + 1)],
}


@pytest.fixture
def world():
    researcher = factories.user("res", "researcher")
    project = factories.project(researcher)
    corpus, systems = factories.corpus_with_systems(project, sources=SOURCES, systems=SYSTEMS)
    return researcher, project, corpus, systems


def _make(world, name="sampled", **sample) -> Campaign:
    researcher, project, corpus, systems = world
    return campaign_create(
        project=project,
        corpus=corpus,
        name=name,
        systems=systems,
        created_by=researcher,
        protocol="prws",
        **sample,
    )


def _lines(campaign: Campaign) -> list[int]:
    """The corpus lines (from 1) the campaign judges."""
    return sorted({p + 1 for p in campaign.screens.values_list("sentence__position", flat=True)})


def test_without_a_sample_every_line_is_judged(world):
    assert _lines(_make(world)) == list(range(1, N + 1))


def test_a_line_range_takes_those_lines_only(world):
    campaign = _make(world, sample_first_line=5, sample_last_line=9)
    assert _lines(campaign) == [5, 6, 7, 8, 9]
    assert (campaign.sample_first_line, campaign.sample_last_line) == (5, 9)
    assert _lines(_make(world, name="tail", sample_first_line=18)) == [18, 19, 20]


def test_a_count_takes_the_first_sentences_of_the_range(world):
    assert _lines(_make(world, sample_first_line=3, sample_size=4)) == [3, 4, 5, 6]


def test_a_seeded_random_sample_is_the_same_for_the_same_seed_and_stored(world):
    first = _make(world, name="s1", sample_size=6, sample_seed=11)
    again = _make(world, name="s2", sample_size=6, sample_seed=11)
    other = _make(world, name="s3", sample_size=6, sample_seed=12)
    assert len(_lines(first)) == 6
    assert _lines(first) == _lines(again)
    assert _lines(first) != _lines(other)
    assert _lines(first) != list(range(1, 7))  # not simply the first six
    stored = Campaign.objects.get(pk=first.pk)
    assert (stored.sample_size, stored.sample_seed, stored.sample_first_line) == (6, 11, None)


@pytest.mark.parametrize(
    ("sample", "message"),
    [
        ({"sample_first_line": 9, "sample_last_line": 5}, "the sample's lines 9 to 5 are in the wrong order"),
        (
            {"sample_first_line": 15, "sample_size": 8},
            "a sample of 8 sentences from a pool of 6: choose at most 6",
        ),
        ({"sample_seed": 3}, "a random sample's seed needs a sample size"),
        ({"sample_first_line": 30}, "the corpus has no sentences within lines 30 to the last"),
    ],
)
def test_an_impossible_sample_is_refused_with_a_reason_and_nothing_is_saved(world, sample, message):
    with pytest.raises(GecInputError) as refused:
        _make(world, **sample)
    assert str(refused.value) == message
    assert not Campaign.objects.exists()


def test_the_api_and_the_form_take_a_sample_and_the_page_names_it(world, client):
    researcher, _, corpus, systems = world
    api = APIClient()
    api.force_authenticate(researcher)
    payload = {
        "name": "api sample",
        "corpus": corpus.pk,
        "systems": [s.pk for s in systems],
        "protocol": "prws",
        "sample_first_line": 2,
        "sample_last_line": 11,
        "sample_size": 5,
        "sample_seed": 7,
    }
    response = api.post("/api/campaigns/", payload, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert [body[k] for k in ("sample_first_line", "sample_last_line", "sample_size", "sample_seed")] == [
        2,
        11,
        5,
        7,
    ]
    campaign = Campaign.objects.get(pk=body["id"])
    assert len(_lines(campaign)) == 5 and all(2 <= line <= 11 for line in _lines(campaign))
    client.force_login(researcher)
    page = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "judged: lines 2 to 11, 5 sentences drawn at random (seed 7)" in page
    refused = api.post("/api/campaigns/", payload | {"name": "too many", "sample_size": 50}, format="json")
    assert refused.status_code == 400
    assert "a sample of 50 sentences from a pool of 10" in refused.content.decode()
    form = {
        "name": "form sample",
        "protocol": "prws",
        "corpus": corpus.pk,
        "systems": [s.pk for s in systems],
        "judgments_per_item": 2,
        "max_candidates": 3,
        "screens_per_sentence": 1,
        "screens_per_hit": 10,
        "assignment_minutes": 60,
        "trap_rate": 0,
        "repeat_rate": 0,
        "trap_threshold": 0.6,
        "trap_min_seen": 10,
        "reward_per_hit": 0,
        "sample_first_line": 4,
        "sample_size": 3,
    }
    response = client.post(reverse("campaign-new"), form)
    assert response.status_code == 302, response.content.decode()[-3000:]
    made = Campaign.objects.get(name="form sample")
    assert _lines(made) == [4, 5, 6]
