"""A judgment campaign's own qualification test, graded against an expert's (gold) answers."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ranking.models import Screen, SystemScore, WorkerRecord
from ranking.quality.gold import gold_assignment_start, qualification_hit_create
from ranking.services import CandidateScore, NoWork, assignment_request, campaign_create
from tests import factories
from tests.factories import SOURCES, SYSTEMS
from tests.judging import do_hit

pytestmark = pytest.mark.django_db

QUALITY = {"a": 1, "e": 1, "b": 2, "c": 3, "src": 4}


def _quality(candidate) -> int:
    return min(QUALITY[n] for n in candidate.outputs.values_list("system__name", flat=True))


def expert_like(screen, candidate):
    """Rank = 1 + the number of outputs on the screen that are strictly better (ties share a rank)."""
    mine = _quality(candidate)
    return CandidateScore(rank=1 + sum(_quality(c) < mine for c in screen.candidates.all()))


def contrarian(screen, candidate):
    """The expert's order reversed."""
    mine = _quality(candidate)
    return CandidateScore(rank=1 + sum(_quality(c) > mine for c in screen.candidates.all()))


@pytest.fixture
def ranked():
    researcher = factories.user("res", "researcher")
    workers = [factories.user(f"w{i}", "annotator") for i in range(3)]
    project = factories.project(researcher, members=workers)
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems=SYSTEMS, kinds={"src": "source"}
    )
    by_name = {s.name: s for s in systems}
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="gold",
        systems=[by_name[n] for n in ("src", "a", "b", "c", "e")],
        created_by=researcher,
        protocol="ranking",
        max_candidates=4,
        judgments_per_item=2,
        screens_per_hit=6,
    )
    return researcher, workers, campaign


def record_gold(campaign, expert):
    from ranking.services import screen_submit
    from ranking.work.assignments import assignment_next_screen

    assignment = gold_assignment_start(campaign=campaign, expert=expert)
    while (screen := assignment_next_screen(assignment)) is not None:
        answers = {c.pk: expert_like(screen, c) for c in screen.candidates.all()}
        screen_submit(assignment=assignment, screen=screen, worker=expert, answers=answers)
    assignment.refresh_from_db()
    return assignment


def test_workers_take_the_test_first_and_only_those_who_agree_with_the_gold_get_hits(ranked):
    researcher, workers, campaign = ranked
    hit = qualification_hit_create(campaign=campaign, screens=3)
    assert hit.screens.count() == 3
    with pytest.raises(NoWork, match="not ready yet"):
        assignment_request(campaign=campaign, worker=workers[0])
    assert record_gold(campaign, researcher).status == "submitted"

    good = do_hit(campaign, workers[0], expert_like)
    bad = do_hit(campaign, workers[1], contrarian)
    assert good.hit_id == hit.pk == bad.hit_id  # the test comes first
    records = {r.worker_id: r for r in WorkerRecord.objects.filter(campaign=campaign)}
    assert records[workers[0].pk].qualified is True and records[workers[0].pk].gold_agreement == 1.0
    assert records[workers[1].pk].qualified is False and records[workers[1].pk].gold_agreement < 0.7
    with pytest.raises(NoWork, match="did not pass"):
        assignment_request(campaign=campaign, worker=workers[1])
    real = assignment_request(campaign=campaign, worker=workers[0])
    assert not real.hit.qualification


def test_test_screens_never_count_in_results_or_progress(ranked, django_capture_on_commit_callbacks):
    researcher, workers, campaign = ranked
    qualification_hit_create(campaign=campaign, screens=2)
    with django_capture_on_commit_callbacks(execute=True):
        record_gold(campaign, researcher)
        do_hit(campaign, workers[0], expert_like)  # the test
    assert not SystemScore.objects.filter(campaign=campaign).exists()
    from ranking.selectors import campaign_progress

    progress = campaign_progress(campaign)
    assert (
        progress["judgments"] == 0
        and progress["screens"] == Screen.objects.filter(hit__qualification=False).count()
    )


def test_researcher_creates_the_test_and_opens_the_gold_answer_page(client, ranked):
    researcher, _, campaign = ranked
    client.force_login(researcher)
    response = client.post(
        reverse("campaign-gold-test", args=[campaign.pk]), {"screens": "2", "threshold": "0.8"}
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.gold_threshold == 0.8
    page = client.get(reverse("campaign-gold-record", args=[campaign.pk])).content.decode()
    assert "Gold answers for the qualification test" in page and "Screen 1 of 2" in page
    assert (
        "Record the gold answers"
        in client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    )


def test_a_test_may_copy_two_screens_of_one_sentence(ranked):
    """A ranking sentence has a screen per group of systems: a test drawn from all judged screens
    copies several screens of one sentence, each with its own index (unique per sentence). The
    copies once shared one index, so a draw that took two screens of a sentence failed to save."""
    researcher, _, campaign = ranked
    campaign = campaign_create(
        project=campaign.project,
        corpus=campaign.corpus,
        name="two draws",
        systems=list(campaign.systems.all()),
        created_by=researcher,
        protocol="ranking",
        max_candidates=3,
        screens_per_sentence=2,
        screens_per_hit=6,
    )
    judged = Screen.objects.filter(campaign=campaign, control__isnull=True)
    sentences = list(judged.values_list("sentence_id", flat=True))
    assert len(sentences) > len(set(sentences))  # the fixture has such sentences
    hit = qualification_hit_create(campaign=campaign, screens=len(sentences))
    copies = list(hit.screens.values_list("sentence_id", "index"))
    assert sorted(s for s, _ in copies) == sorted(sentences)
    assert len(set(copies)) == len(copies)
