"""Issue 15: one rule, one place: which judgments are valid, and how a campaign's rankings are built."""

from __future__ import annotations

import pytest

from ranking.analysis import services as analysis
from ranking.analysis.models import RunStatus
from ranking.models import ScreenJudgment
from ranking.quality.gold import qualification_hit_create
from ranking.services import CandidateScore, campaign_create
from tests import factories
from tests.factories import SOURCES, SYSTEMS
from tests.judging import do_hit
from tests.test_gold_qualification import expert_like, record_gold

pytestmark = pytest.mark.django_db


def _prws_like_expert(screen, candidate) -> CandidateScore:
    """PRWS scores in the expert's order: 90 for the best output, 30 points less per step down."""
    return CandidateScore(score=100 - 30 * expert_like(screen, candidate).rank + 20)


def _world(protocol: str, **options):
    researcher = factories.user("res", "researcher")
    workers = [factories.user(f"w{i}", "annotator") for i in range(2)]
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
        protocol=protocol,
        max_candidates=4,
        judgments_per_item=2,
        seed=5,
        **({"screens_per_hit": 6} | options),
    )
    return researcher, workers, campaign


def _run(campaign, kind: str, **params):
    run = analysis.analysis_run_create(campaign=campaign, kind=kind, parameters=params, seed=campaign.seed)
    analysis.analysis_run_enqueue(run)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE, run.error
    return run


@pytest.mark.parametrize(("protocol", "kind"), [("prws", "prws_summary"), ("ranking", "trueskill")])
def test_gold_and_qualification_answers_never_enter_an_analysis_runs_judgments_used(protocol, kind):
    researcher, workers, campaign = _world(protocol)
    answer = _prws_like_expert if protocol == "prws" else expert_like
    qualification_hit_create(campaign=campaign, screens=3)
    record_gold_answers(campaign, researcher, answer)
    test = do_hit(campaign, workers[0], answer)  # the qualification test: 3 screens
    real = do_hit(campaign, workers[0], answer)  # a real HIT
    assert test.hit.qualification and not real.hit.qualification
    assert test.status == real.status == "submitted"
    real_screens = real.hit.screens.count()
    assert ScreenJudgment.objects.filter(screen__campaign=campaign).count() == 3 + 3 + real_screens
    params = {"runs": 5, "chunks": 1} if kind == "trueskill" else {"samples": 5}
    run = _run(campaign, kind, **params)
    assert run.judgments_used == real_screens


def record_gold_answers(campaign, expert, answer):
    if answer is expert_like:
        return record_gold(campaign, expert)
    from ranking.quality.gold import gold_assignment_start
    from ranking.services import screen_submit
    from ranking.work.assignments import assignment_next_screen

    assignment = gold_assignment_start(campaign=campaign, expert=expert)
    while (screen := assignment_next_screen(assignment)) is not None:
        answers = {c.pk: answer(screen, c) for c in screen.candidates.all()}
        screen_submit(assignment=assignment, screen=screen, worker=expert, answers=answers)
    return assignment


def test_the_live_page_and_an_analysis_run_rank_the_same_judgments_with_the_same_seed_alike(settings, client):
    from ranking import rankings
    from ranking.analysis import services as runs
    from ranking.analysis.models import SystemRankResult
    from ranking.models import SystemScore
    from ranking.protocols import relative
    from ranking.selectors import campaign_results
    from ranking.services import results

    settings.RANKING_LIVE_RUNS = 30
    # two draws per sentence: a system shown twice for one sentence is one item, not two
    _researcher, workers, campaign = _world("ranking", screens_per_sentence=2, screens_per_hit=12)
    for worker in workers:
        assert do_hit(campaign, worker, expert_like).status == "submitted"
    results.campaign_scores_recompute(campaign_id=campaign.pk)  # what the task sent on commit runs
    assert SystemScore.objects.filter(campaign=campaign).count() == 5
    live = [
        (s.system.name, s.mean_score, s.rank_lo, s.rank_hi, s.cluster) for s in campaign_results(campaign)
    ]
    run = _run(campaign, "trueskill", runs=30, chunks=3)
    done = [
        (r.name, r.mu, r.rank_lo, r.rank_hi, r.cluster)
        for r in SystemRankResult.objects.filter(run=run).order_by("position")
    ]
    assert [row[0] for row in live] == [row[0] for row in done]
    assert live == [(n, pytest.approx(mu), lo, hi, c) for n, mu, lo, hi, c in done]
    # one builder: the live scores, active selection and analysis runs read the same rankings
    assert relative.campaign_rankings is runs.campaign_rankings is rankings.campaign_rankings
    # the live page's counts are those of the run: pairs per system, sentences per system
    pairs = {r.name: r.pairs for r in SystemRankResult.objects.filter(run=run)}
    assert {s.system.name: s.ratings for s in campaign_results(campaign)} == pairs
    sentences = {
        name: len({r.item for r in rankings.campaign_rankings(campaign) for n, _ in r.entries if n == name})
        for name in pairs
    }
    assert {s.system.name: s.items for s in campaign_results(campaign)} == sentences


def test_the_big_write_paths_read_in_steps_of_at_most_80_lines():
    import inspect

    from ranking.services import campaigns
    from ranking.work import assignments

    lengths = {
        f.__name__: len(inspect.getsourcelines(f)[0])
        for f in (assignments.screen_submit, campaigns.campaign_create)
    }
    assert lengths == {name: n for name, n in lengths.items() if n <= 80}
