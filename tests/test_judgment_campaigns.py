"""Judgment campaigns (issue 6): screens, traps, HITs, assignments, exclusion."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from annotate.services import trap_system_generate
from geceval.errors import GecInputError
from geceval.human.prws import trap_statistics
from ranking.models import (
    Assignment,
    Candidate,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
    SystemScore,
    WorkerRecord,
)
from ranking.services import (
    CandidateScore,
    NoWork,
    assignment_request,
    assignments_expire,
    campaign_create,
    campaign_set_status,
    screen_submit,
    worker_override_set,
)
from ranking.work.assignments import assignment_next_screen
from tests.factories import trap_world
from tests.judging import careless_prws, do_hit, honest_prws, is_source, is_trap

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return trap_world(10)


def make(world, names=("src", "a", "b", "c"), **options):
    researcher, _, project, corpus, by_name = world
    options.setdefault("name", "c1")
    return campaign_create(
        project=project,
        corpus=corpus,
        systems=[by_name[n] for n in names],
        created_by=researcher,
        **options,
    )


# ----------------------------------------------------------------- screens and traps


def test_traps_sit_on_the_source_screen_and_a_trap_equal_to_the_source_is_not_used(world):
    *_, by_name = world
    campaign = make(world, names=("a", "b", "c", "d", "e", "f"), trap_system=by_name["trap"], trap_rate=1.0)
    for screen in Screen.objects.filter(campaign=campaign).select_related("sentence"):
        candidates = list(screen.candidates.all())
        traps = [c for c in candidates if is_trap(c)]
        if screen.sentence.position == 4:
            assert traps == []  # its trap text equals the source
            continue
        if screen.index == 0:
            assert len(traps) == 1
            assert any(is_source(screen, c) for c in candidates)  # the source is on the same screen
        else:
            assert traps == []
        assert 1 <= len(candidates) <= 5


def test_more_than_five_distinct_outputs_are_split_over_screens_of_one_sentence(world):
    campaign = make(world, names=("src", "a", "b", "c", "d", "e", "f"))
    counts = {}
    for screen in Screen.objects.filter(campaign=campaign, sentence__position=0):
        counts[screen.index] = screen.candidates.count()
    assert sum(counts.values()) == 7 and max(counts.values()) <= 5 and len(counts) == 2


def test_display_order_is_shuffled_per_screen_and_fixed_by_the_seed(world):
    first = make(world, names=("a", "b", "c", "d", "e"), name="s1", seed=1)
    second = make(world, names=("a", "b", "c", "d", "e"), name="s2", seed=1)
    third = make(world, names=("a", "b", "c", "d", "e"), name="s3", seed=2)

    def orders(c):
        return [
            list(Candidate.objects.filter(screen=s).order_by("position").values_list("text", flat=True))
            for s in Screen.objects.filter(campaign=c).order_by("sentence__position")
        ]

    # Not sorted by system, different between sentences, reproducible for a seed (given the same ids).
    assert len({tuple(sorted(o)) != tuple(o) for o in orders(first)}) >= 1
    assert orders(first) != orders(third) or orders(second) != orders(third)


def test_ranking_screens_draw_up_to_five_outputs_and_collapse_identical_ones(world):
    campaign = make(
        world,
        names=("src", "a", "b", "c", "d", "e", "f"),
        protocol="ranking",
        max_candidates=4,
        screens_per_sentence=3,
    )
    screens = Screen.objects.filter(campaign=campaign)
    assert screens.count() == 18
    for screen in screens:
        candidates = list(screen.candidates.all())
        assert 2 <= len(candidates) <= 4
        assert len({" ".join(c.text.split()) for c in candidates}) == len(candidates)
        assert sum(c.outputs.count() for c in candidates) == 4  # four systems drawn, some collapsed


def test_hits_bundle_screens_and_keep_domains_apart_when_asked(world):
    _, _, _, corpus, _ = world
    corpus.sentences.filter(position__lt=3).update(domain="fce")
    corpus.sentences.filter(position__gte=3).update(domain="wiki")
    campaign = make(world, screens_per_hit=2, separate_domains=True)
    hits = list(Hit.objects.filter(campaign=campaign))
    assert len(hits) == 4  # 3 + 3 screens, 2 per HIT, one domain each
    for hit in hits:
        domains = set(hit.screens.values_list("sentence__domain", flat=True))
        assert domains == {hit.domain}


def test_a_worker_is_not_given_two_domains_on_the_same_day(world):
    _, workers, _, corpus, _ = world
    corpus.sentences.filter(position__lt=3).update(domain="fce")
    corpus.sentences.filter(position__gte=3).update(domain="wiki")
    campaign = make(world, screens_per_hit=1, separate_domains=True, judgments_per_item=1)
    first = do_hit(campaign, workers[0], honest_prws)
    domains = {first.hit.domain}
    for _ in range(2):
        domains.add(do_hit(campaign, workers[0], honest_prws).hit.domain)
    assert len(domains) == 1
    with pytest.raises(NoWork):
        do_hit(campaign, workers[0], honest_prws)  # the other domain's HITs wait for another day


def test_generated_trap_system_never_equals_the_source(world):
    _, _, _, corpus, _ = world
    system = trap_system_generate(corpus=corpus, seed=3, name="generated")
    assert system.kind == "source+error"
    pairs = system.outputs.values_list("text", "sentence__text")
    assert all(" ".join(t.split()) != " ".join(s.split()) for t, s in pairs)


# ----------------------------------------------------------------- HITs and assignments


def test_each_hit_gets_exactly_n_distinct_workers_and_no_worker_twice(world):
    _, workers, *_ = world
    campaign = make(world, judgments_per_item=8, screens_per_hit=6)
    assert campaign.hits.count() == 1
    done = [do_hit(campaign, w, honest_prws) for w in workers[:8]]
    assert {a.status for a in done} == {"submitted"}
    with pytest.raises(NoWork):
        assignment_request(campaign=campaign, worker=workers[8])
    with pytest.raises(NoWork):
        assignment_request(campaign=campaign, worker=workers[0])
    per_screen = ScreenJudgment.objects.values("screen").distinct().count()
    assert per_screen == 6
    for screen in Screen.objects.filter(campaign=campaign):
        judges = list(screen.judgments.values_list("judge_id", flat=True))
        assert len(judges) == len(set(judges)) == 8


def test_an_expired_assignment_returns_its_slot_and_refuses_late_screens(world):
    _, workers, *_ = world
    campaign = make(world, judgments_per_item=1, screens_per_hit=6)
    late = assignment_request(campaign=campaign, worker=workers[0])
    screen = assignment_next_screen(late)
    with pytest.raises(NoWork):
        assignment_request(campaign=campaign, worker=workers[1])
    later = timezone.now() + timedelta(minutes=61)
    assert assignments_expire(now=later) == 1
    taken = assignment_request(campaign=campaign, worker=workers[1], now=later)
    assert taken.hit_id == late.hit_id and taken.slot == late.slot
    late.refresh_from_db()
    answers = {c.pk: CandidateScore(score=50) for c in screen.candidates.all()}
    with pytest.raises(GecInputError, match="no longer open"):
        screen_submit(assignment=late, screen=screen, worker=workers[0], answers=answers)


def test_screens_of_another_hit_or_another_worker_are_refused(world):
    _, workers, *_ = world
    campaign = make(world, judgments_per_item=1, screens_per_hit=3)
    mine = assignment_request(campaign=campaign, worker=workers[0])
    theirs = assignment_request(campaign=campaign, worker=workers[1])
    other_screen = assignment_next_screen(theirs)
    answers = {c.pk: CandidateScore(score=50) for c in other_screen.candidates.all()}
    with pytest.raises(GecInputError, match="not part of your HIT"):
        screen_submit(assignment=mine, screen=other_screen, worker=workers[0], answers=answers)
    with pytest.raises(GecInputError, match="not your assignment"):
        screen_submit(assignment=theirs, screen=other_screen, worker=workers[0], answers=answers)
    assert not ScreenJudgment.objects.exists()


def test_paused_and_closed_campaigns_hand_out_nothing_but_take_the_hits_in_progress(world):
    _, workers, *_ = world
    campaign = make(world, judgments_per_item=2)
    started = assignment_request(campaign=campaign, worker=workers[0])
    campaign_set_status(campaign=campaign, status="paused")
    with pytest.raises(NoWork, match="not handing out"):
        assignment_request(campaign=campaign, worker=workers[1])
    assert assignment_request(campaign=campaign, worker=workers[0]) == started  # work in progress continues
    campaign_set_status(campaign=campaign, status="closed")
    with pytest.raises(NoWork, match="closed"):
        assignment_request(campaign=campaign, worker=workers[1])
    screen = assignment_next_screen(started)
    _, created = screen_submit(  # closing: no new HITs, but the HIT in progress may be finished
        assignment=started,
        screen=screen,
        worker=workers[0],
        answers={c.pk: CandidateScore(score=5) for c in screen.candidates.all()},
    )
    assert created
    with pytest.raises(GecInputError, match="cannot become active in one step"):
        campaign_set_status(campaign=campaign, status="active")


def test_budget_cap_stops_new_assignments(world):
    _, workers, *_ = world
    campaign = make(world, judgments_per_item=8, reward_per_hit=1.5, budget=3)
    assignment_request(campaign=campaign, worker=workers[0])
    assignment_request(campaign=campaign, worker=workers[1])
    with pytest.raises(NoWork, match="budget"):
        assignment_request(campaign=campaign, worker=workers[2])


@pytest.mark.django_db(transaction=True)
def test_two_workers_asking_at_once_never_get_the_same_slot(world, real_postgres):
    _, workers, *_ = world
    campaign = make(world, judgments_per_item=4, screens_per_hit=6)
    barrier = threading.Barrier(8)
    got: list[tuple[int, int] | str] = []

    def ask(worker):
        try:
            barrier.wait()
            a = assignment_request(campaign=campaign, worker=worker)
            got.append((a.hit_id, a.slot))
        except NoWork:
            got.append("none")
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(w,)) for w in workers[:8]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    slots = [g for g in got if g != "none"]
    assert len(slots) == 4 and len(set(slots)) == 4
    assert got.count("none") == 4
    assert Assignment.objects.filter(status="active").count() == 4


# ----------------------------------------------------------------- traps and exclusion


def test_a_careless_worker_is_excluded_and_their_hit_returns_to_the_pool(
    world, django_capture_on_commit_callbacks
):
    *_, by_name = world
    _, workers, *_ = world
    campaign = make(
        world,
        trap_system=by_name["trap"],
        trap_rate=1.0,
        trap_min_seen=3,
        judgments_per_item=2,
        screens_per_hit=6,
    )
    with django_capture_on_commit_callbacks(execute=True):
        honest = do_hit(campaign, workers[0], honest_prws)
        careless = do_hit(campaign, workers[1], careless_prws)
    record = WorkerRecord.objects.get(campaign=campaign, worker=workers[1])
    # Excluded as soon as the third trap (trap_min_seen) is failed: the HIT stops there.
    assert (record.traps_seen, record.traps_passed, record.excluded) == (3, 0, True)
    careless.refresh_from_db()
    assert careless.status == "excluded" and honest.status == "submitted"
    assert ScreenJudgment.objects.filter(judge=workers[1]).count() >= 3  # kept, not counted
    with pytest.raises(NoWork):
        assignment_request(campaign=campaign, worker=workers[1])
    with django_capture_on_commit_callbacks(execute=True):
        replacement = do_hit(campaign, workers[2], honest_prws)
    assert replacement.status == "submitted" and replacement.hit_id == careless.hit_id
    scores = dict(SystemScore.objects.filter(campaign=campaign).values_list("system__name", "ratings"))
    assert scores["a"] == 12  # 6 sentences x 2 valid workers; the excluded worker's ratings are left out


def test_a_tie_between_trap_and_source_counts_as_a_failure_and_researchers_can_override(world):
    *_, by_name = world
    _, workers, *_ = world
    campaign = make(world, trap_system=by_name["trap"], trap_rate=1.0, trap_min_seen=3, judgments_per_item=1)
    do_hit(campaign, workers[0], careless_prws)
    record = WorkerRecord.objects.get(campaign=campaign, worker=workers[0])
    assert record.excluded
    worker_override_set(campaign=campaign, worker=workers[0], override="include")
    record.refresh_from_db()
    assert not record.excluded
    assert Assignment.objects.get(worker=workers[0]).status == "active"  # interrupted HIT resumes
    worker_override_set(campaign=campaign, worker=workers[0], override="exclude")
    assert Assignment.objects.get(worker=workers[0]).status == "excluded"


def test_trap_records_equal_the_core_recomputation_from_the_ratings(world):
    *_, by_name = world
    _, workers, *_ = world
    campaign = make(
        world, trap_system=by_name["trap"], trap_rate=1.0, trap_threshold=0.0, judgments_per_item=3
    )  # nobody excluded, so every worker finishes and sees every trap

    def mixed(screen, candidate):
        if is_trap(candidate):
            return CandidateScore(score=10 if screen.sentence.position % 2 else 90)
        return CandidateScore(score=60)

    for worker, answer in [(workers[0], honest_prws), (workers[1], careless_prws), (workers[2], mixed)]:
        do_hit(campaign, worker, answer)
    ratings = []
    from geceval.formats.judgments import PrwsRating

    for r in Rating.objects.filter(judgment__screen__campaign=campaign).select_related(
        "candidate__screen__sentence", "judgment"
    ):
        c = r.candidate
        system = "source+error" if is_trap(c) else "source" if is_source(c.screen, c) else "other"
        ratings.append(PrwsRating(str(c.screen.sentence_id), str(r.judgment.judge_id), system, r.score))
    core = {t.worker: (t.seen, t.passed_traps) for t in trap_statistics(ratings, min_traps=1)}
    ours = {
        str(w.worker_id): (w.traps_seen, w.traps_passed)
        for w in WorkerRecord.objects.filter(campaign=campaign)
    }
    assert ours == core
    assert ours[str(workers[2].pk)] == (5, 3)


# ----------------------------------------------------------------- what workers see


def _candidate_blocks(html: str) -> list[str]:
    return re.findall(r'<li class="candidate">(.*?)</li>', html, re.S)


def test_trap_and_real_outputs_render_identically_but_for_their_text(client, world):
    *_, by_name = world
    _, workers, *_ = world
    campaign = make(
        world, trap_system=by_name["trap"], trap_rate=1.0, judgments_per_item=1, screens_per_hit=6
    )
    client.force_login(workers[0])
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    assignment = assignment_request(campaign=campaign, worker=workers[0])
    shapes = set()
    saw_trap = False
    while (screen := assignment_next_screen(assignment)) is not None:
        html = client.get(url).content.decode()
        texts = {c.position: c.text for c in screen.candidates.all()}
        saw_trap |= any(is_trap(c) for c in screen.candidates.all())
        for position, block in enumerate(_candidate_blocks(html)):
            escaped = texts[position].replace("'", "&#x27;")
            shapes.add(block.replace(escaped, "TEXT").replace(f"-{position}", "-N"))
        screen_submit(
            assignment=assignment,
            screen=screen,
            worker=workers[0],
            answers={c.pk: CandidateScore(score=50) for c in screen.candidates.all()},
        )
    assert saw_trap
    assert len(shapes) == 1  # one markup shape for every output, trap or not


def test_pilot_shows_screens_and_saves_nothing(client, world):
    researcher, *_ = world
    campaign = make(world)
    client.force_login(researcher)
    url = reverse("campaign-pilot", args=[campaign.pk])
    page = client.get(url).content.decode()
    assert "Pilot (nothing is saved)" in page
    screen = Screen.objects.filter(campaign=campaign).order_by("hit__index", "hit_position").first()
    form = {"screen": screen.pk} | {f"score-{c.position}": "40" for c in screen.candidates.all()}
    response = client.post(url + "?i=0", form)
    assert response.status_code == 302 and response.url.endswith("?i=1")
    assert not ScreenJudgment.objects.exists() and not Assignment.objects.exists()


def test_ranking_campaign_stores_ties_and_ranks_systems_with_trueskill(
    world, django_capture_on_commit_callbacks
):
    _, workers, *_ = world
    campaign = make(
        world, names=("src", "a", "b", "e"), protocol="ranking", max_candidates=4, judgments_per_item=3
    )
    quality = {"a": 1, "e": 1, "b": 2, "src": 3}

    def answer(screen, candidate):
        names = list(candidate.outputs.values_list("system__name", flat=True))
        return CandidateScore(rank=min(quality[n] for n in names))

    with django_capture_on_commit_callbacks(execute=True):
        for w in workers[:3]:
            assert do_hit(campaign, w, answer).status == "submitted"
    ties = (
        Rating.objects.filter(judgment__screen__campaign=campaign, rank=1)
        .values("judgment")
        .distinct()
        .count()
    )
    assert ties == ScreenJudgment.objects.count()
    results = list(
        SystemScore.objects.filter(campaign=campaign).order_by("-mean_score").select_related("system")
    )
    assert [r.system.name for r in results][-1] == "src"
    assert results[-1].cluster > results[0].cluster
    assert {r.system.name for r in results[:2]} == {"a", "e"}


def test_ranks_out_of_range_are_refused(world):
    _, workers, *_ = world
    campaign = make(world, names=("src", "a", "b", "e"), protocol="ranking", max_candidates=4)
    assignment = assignment_request(campaign=campaign, worker=workers[0])
    screen = assignment_next_screen(assignment)
    candidates = list(screen.candidates.all())
    with pytest.raises(GecInputError, match="ranks are whole numbers"):
        screen_submit(
            assignment=assignment,
            screen=screen,
            worker=workers[0],
            answers={c.pk: CandidateScore(rank=len(candidates) + 1) for c in candidates},
        )


def test_a_campaign_requiring_a_qualification_hands_work_only_to_accepted_workers(world):
    from annotate.models import Qualification, QualificationAttempt

    researcher, workers, project, *_ = world
    qualification = Qualification.objects.create(project=project, name="screening", created_by=researcher)
    campaign = make(world, qualification=qualification, judgments_per_item=2)
    with pytest.raises(NoWork, match="needs the qualification 'screening'"):
        assignment_request(campaign=campaign, worker=workers[0])
    QualificationAttempt.objects.create(qualification=qualification, worker=workers[0], status="rejected")
    with pytest.raises(NoWork):
        assignment_request(campaign=campaign, worker=workers[0])
    QualificationAttempt.objects.filter(worker=workers[0]).update(status="accepted")
    assert assignment_request(campaign=campaign, worker=workers[0]).status == "active"


def test_active_selection_draws_each_ranking_screen_when_first_shown_from_the_judgments_so_far(world):
    from geceval.formats.judgments import expand_pairwise
    from ranking.analysis.active import next_systems
    from ranking.services.results import campaign_rankings
    from ranking.work.assignments import assignment_next_screen

    _, workers, *_ = world
    campaign = make(
        world,
        names=("src", "a", "b", "c", "e"),
        protocol="ranking",
        max_candidates=2,
        active_selection=True,
        judgments_per_item=1,
        screens_per_hit=1,
    )
    assert Candidate.objects.filter(screen__campaign=campaign).count() == 0  # nothing drawn yet
    quality = {"a": 1, "e": 1, "b": 2, "c": 3, "src": 4}

    def answer(screen, candidate):  # two outputs a screen: the better one gets 1, a tie both 1
        mine = min(quality[n] for n in candidate.outputs.values_list("system__name", flat=True))
        best = min(quality[n] for n in screen.candidates.values_list("outputs__system__name", flat=True))
        return CandidateScore(rank=1 if mine == best else 2)

    shown = []
    for worker in workers[:4]:
        assignment = assignment_request(campaign=campaign, worker=worker)
        screen = assignment_next_screen(assignment)
        pairs = expand_pairwise(campaign_rankings(campaign))
        expected = next_systems(
            pairs, ["a", "b", "c", "e", "src"], 2, seed=campaign.seed * 100_003 + screen.pk
        )
        systems = set(screen.candidates.values_list("outputs__system__name", flat=True))
        assert systems == set(expected)  # TrueSkill's choice given the judgments before this screen
        shown.append(expected[0])
        do_hit(campaign, worker, answer)
    assert shown[0] == "src"  # all equally uncertain at first: the reference's tie rule picks the larger name
    assert len(set(shown)) > 1  # the least certain system moves as judgments come in


def test_active_selection_is_for_ranking_only(world):
    with pytest.raises(GecInputError, match="active selection"):
        make(world, active_selection=True)
