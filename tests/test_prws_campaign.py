"""The PRWS flow below the browser: screens, HITs, submit, scores, pages, API."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from ranking.models import Candidate, Rating, Screen, ScreenJudgment, SystemScore
from ranking.services import CandidateScore, assignment_request, campaign_create, screen_submit
from ranking.work.assignments import assignment_next_screen
from ranking.work.screen_handles import screen_handle
from tests import factories
from tests.judging import do_hit

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    researcher = factories.user("res", "researcher")
    annotators = [factories.user(f"ann{i}", "annotator") for i in range(3)]
    project = factories.project(researcher, members=annotators)
    corpus, systems = factories.corpus_with_systems(
        project,
        sources=["He go home .", "She like cats ."],
        systems={
            "a": ["He goes home .", "She likes cats ."],
            "b": ["He goes home . ", "She like cats ."],  # same text as a on line 1 (trailing space)
            "src": ["He go home .", "She like cats ."],
        },
        kinds={"src": "source"},
    )
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="pilot",
        systems=systems,
        created_by=researcher,
        judgments_per_item=2,
    )
    return researcher, annotators, project, corpus, systems, campaign


def rate(value):
    return lambda screen, candidate: CandidateScore(score=value)


def test_identical_outputs_are_collapsed_into_one_candidate_for_both_systems(setup):
    *_, _systems, campaign = setup
    first = Screen.objects.get(campaign=campaign, sentence__position=0)
    texts = sorted(first.candidates.values_list("text", flat=True))
    assert len(texts) == 2  # a and b agree; src differs
    shared = Candidate.objects.get(screen=first, outputs__system__name="a")
    assert sorted(shared.outputs.values_list("system__name", flat=True)) == ["a", "b"]
    second = Screen.objects.get(campaign=campaign, sentence__position=1)
    assert second.candidates.count() == 2  # b and src agree


def test_resubmitting_a_screen_is_a_no_op(setup):
    _, annotators, *_, campaign = setup
    assignment = assignment_request(campaign=campaign, worker=annotators[0])
    screen = assignment_next_screen(assignment)
    answers = {c.pk: CandidateScore(score=70) for c in screen.candidates.all()}
    _, created = screen_submit(assignment=assignment, screen=screen, worker=annotators[0], answers=answers)
    again = {c.pk: CandidateScore(score=10) for c in screen.candidates.all()}
    judgment, created_again = screen_submit(
        assignment=assignment, screen=screen, worker=annotators[0], answers=again
    )
    assert (created, created_again) == (True, False)
    assert ScreenJudgment.objects.filter(screen=screen).count() == 1
    assert set(Rating.objects.filter(judgment=judgment).values_list("score", flat=True)) == {70}


def test_a_screen_with_a_missing_or_out_of_range_score_is_refused(setup):
    from geceval.errors import GecInputError

    _, annotators, *_, campaign = setup
    assignment = assignment_request(campaign=campaign, worker=annotators[0])
    screen = assignment_next_screen(assignment)
    ids = list(screen.candidates.values_list("pk", flat=True))
    submit = lambda answers: screen_submit(  # noqa: E731
        assignment=assignment, screen=screen, worker=annotators[0], answers=answers
    )
    with pytest.raises(GecInputError, match="every output"):
        submit({ids[0]: CandidateScore(score=50)})
    with pytest.raises(GecInputError, match="0 to 100"):
        submit({i: CandidateScore(score=101) for i in ids})
    with pytest.raises(GecInputError, match="0 to 100"):
        submit({i: CandidateScore(score=True) for i in ids})
    assert not ScreenJudgment.objects.exists()


def test_scores_are_means_of_sentence_means_and_count_for_every_system_sharing_a_text(
    setup, django_capture_on_commit_callbacks
):
    _, annotators, _, _, _systems, campaign = setup

    def answer(value):
        def pick(screen, candidate):
            is_a = candidate.outputs.filter(system__name="a").exists()
            return CandidateScore(score=value if is_a else 20)

        return pick

    with django_capture_on_commit_callbacks(execute=True):
        assert do_hit(campaign, annotators[0], answer(60)).status == "submitted"
        assert do_hit(campaign, annotators[1], answer(80)).status == "submitted"
    scores = {
        s.system.name: s for s in SystemScore.objects.filter(campaign=campaign).select_related("system")
    }
    # a: both sentences rated 60 and 80 -> 70; b shares a's text on sentence 0 (70) and src's on 1 (20) -> 45
    assert scores["a"].mean_score == pytest.approx(70.0)
    assert scores["b"].mean_score == pytest.approx(45.0)
    assert scores["src"].mean_score == pytest.approx(20.0)
    assert (scores["a"].items, scores["a"].ratings) == (2, 4)


def test_work_page_shows_source_and_candidates_but_not_systems(client, setup):
    _, annotators, _, _, systems, campaign = setup
    client.force_login(annotators[0])
    response = client.get(reverse("campaign-work", args=[campaign.pk]), follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0].startswith("/assignments/")
    assert "Screen 1 of 2" in page
    for system in systems:
        assert f">{system.name}<" not in page
    form = page.split('id="prws-form"')[1].lower()
    assert "system" not in form and "kind" not in form and not re.search(r"candidate-\d", form)


def test_work_page_post_saves_scores_and_moves_on(client, setup):
    _, annotators, *_, campaign = setup
    client.force_login(annotators[0])
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    assignment = assignment_request(campaign=campaign, worker=annotators[0])
    screen = assignment_next_screen(assignment)
    form = {"screen": screen_handle(assignment_id=assignment.pk, screen_id=screen.pk), "started": "forged"}
    for c in screen.candidates.all():
        form[f"score-{c.position}"] = "55"
    form[f"changed-{c.position}"] = "on"
    response = client.post(url, form)
    assert response.status_code == 302
    judgment = ScreenJudgment.objects.get(screen=screen, judge=annotators[0])
    assert judgment.seconds is None  # a forged start stamp is ignored
    assert sorted(judgment.ratings.values_list("score", "meaning_changed")) == [(55, False), (55, True)]
    assert "Screen 2 of 2" in client.get(url).content.decode()


def test_work_page_refuses_an_unmoved_slider(client, setup):
    _, annotators, *_, campaign = setup
    client.force_login(annotators[0])
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    assignment = assignment_request(campaign=campaign, worker=annotators[0])
    screen = assignment_next_screen(assignment)
    handle = screen_handle(assignment_id=assignment.pk, screen_id=screen.pk)
    form = {"screen": handle} | {f"score-{c.position}": "" for c in screen.candidates.all()}
    response = client.post(url, form)
    assert response.status_code == 400
    assert b"move every slider" in response.content
    assert not ScreenJudgment.objects.exists()


def test_another_workers_assignment_is_not_found(client, setup):
    _, annotators, *_, campaign = setup
    assignment = assignment_request(campaign=campaign, worker=annotators[0])
    client.force_login(annotators[1])
    assert client.get(reverse("assignment", args=[assignment.pk])).status_code == 404


def test_results_csv_lists_systems_by_score(client, setup, django_capture_on_commit_callbacks):
    researcher, annotators, *_, campaign = setup
    with django_capture_on_commit_callbacks(execute=True):
        do_hit(campaign, annotators[0], rate(70))
    client.force_login(researcher)
    response = client.get(reverse("campaign-scores-csv", args=[campaign.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:4] == ["rank", "system", "kind", "score"]
    assert {r[1] for r in rows[1:]} == {"a", "b", "src"}


def test_annotators_cannot_open_researcher_pages_or_api(client, setup):
    _, annotators, *_, campaign = setup
    client.force_login(annotators[0])
    for name in ["campaign-detail", "campaign-scores-csv", "campaign-pilot"]:
        assert client.get(reverse(name, args=[campaign.pk])).status_code == 403, name
    api = APIClient()
    api.force_authenticate(annotators[0])
    for url in [
        "/api/corpora/",
        "/api/systems/",
        "/api/campaigns/",
        f"/api/campaigns/{campaign.pk}/results/",
    ]:
        assert api.get(url).status_code == 403, url


def test_researchers_see_only_their_projects(setup):
    *_, campaign = setup
    other = factories.user("other", "researcher")
    factories.project(other, name="Team B")
    api = APIClient()
    api.force_authenticate(other)
    assert api.get("/api/campaigns/").json()["results"] == []
    assert api.get(f"/api/campaigns/{campaign.pk}/results/").status_code == 404
    assert api.get("/api/corpora/").json()["results"] == []


def test_api_creates_a_campaign_and_reports_results(setup, django_capture_on_commit_callbacks):
    researcher, annotators, _project, corpus, systems, campaign = setup
    api = APIClient()
    api.force_authenticate(researcher)
    created = api.post(
        "/api/campaigns/",
        {"name": "via api", "corpus": corpus.pk, "systems": [systems[0].pk], "judgments_per_item": 3},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()  # left blank, the trap settings are the recommended hidden ones
    assert (body["trap_design"], body["trap_rate"], body["repeat_rate"]) == ("hidden", 0.2, 0.05)
    assert (body["trap_min_drop"], body["trap_threshold"], body["trap_min_seen"]) == (0.25, 0.6, 10)
    created = api.post(
        "/api/campaigns/",
        {
            "name": "no traps",
            "corpus": corpus.pk,
            "systems": [systems[0].pk],
            "trap_rate": 0,
            "repeat_rate": 0,
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["screen_count"] == 2
    with django_capture_on_commit_callbacks(execute=True):
        do_hit(campaign, annotators[0], rate(70))
    body = api.get(f"/api/campaigns/{campaign.pk}/results/").json()
    assert body["progress"]["judgments"] == 2
    assert {s["system"] for s in body["systems"]} == {"a", "b", "src"}


def test_api_refuses_systems_of_another_corpus(setup):
    researcher, _, _project, corpus, _systems, _ = setup
    api = APIClient()
    api.force_authenticate(researcher)
    response = api.post(
        "/api/campaigns/", {"name": "x", "corpus": corpus.pk, "systems": [999999]}, format="json"
    )
    assert response.status_code == 400


def test_openapi_schema_and_docs_are_served_without_a_cdn(client, setup):
    researcher, *_ = setup
    client.force_login(researcher)
    schema = client.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/campaigns/" in schema.content
    docs = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in docs and "cdn" not in docs.lower() and "//unpkg" not in docs


def test_healthz_reports_database_and_broker(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "eager"}
