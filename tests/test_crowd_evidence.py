"""Issue 41: evidence from the rest of the crowd, on real PostgreSQL. A worker's agreement with the
other workers (leave-one-out) and the workers whose answers are alike beyond chance (one person behind
many accounts) are in their record and on the campaign page in words; such a worker's HITs are held
until the researcher decides, and the researcher's rule may exclude a worker far below the crowd."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from ranking.models import (
    Assignment,
    AssignmentStatus,
    Candidate,
    Control,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.protocols import CandidateScore
from ranking.quality.exclusion import crowd_evidence_refresh, worker_record_refresh
from ranking.quality.rules import record_exclusion_reasons
from ranking.selectors import valid_judgments
from ranking.services import (
    NoWork,
    campaign_create,
    campaign_exclusion_rules_set,
    worker_override_set,
)
from tests import factories
from tests.judging import do_hit

pytestmark = pytest.mark.django_db

N = 24
SOURCES = [f"Sentence number {i} have a error ." for i in range(N)]
SYSTEMS = {
    "a": [f"Sentence number {i} has an error ." for i in range(N)],
    "b": [f"Sentence number {i} has a error ." for i in range(N)],
    "c": [f"Sentence {i} has an error ." for i in range(N)],
    "d": [f"The sentence number {i} has an error ." for i in range(N)],
}
QUALITY = {"a": 90, "b": 55, "c": 35, "d": 70}
READERS = 5
RULES = {"pass_rate": True, "mann_whitney": True, "consistency": False, "flat": False}


@pytest.fixture
def crowd():
    """A PRWS campaign without traps judged by five readers (quality + noise), a random clicker and a
    second account of reader 0 that copies reader 0's answers; every record refreshed twice (the
    campaign's figures exist on the second pass, as they would after a few HITs)."""
    return _crowd([*(f"reader{k}" for k in range(READERS)), "clicker", "copy"])


def _crowd(names: list[str], nudge: int = 0):
    """``crowd``'s campaign for ``names``; with ``nudge``, "copy" moves each of reader 0's scores by up
    to that many points (a copy that hides from an identical-screens check)."""
    campaign, workers = factories.prws_crowd(names, SOURCES, SYSTEMS, name="crowd", screens_per_hit=N)
    rng = random.Random(7)
    screens = list(Screen.objects.filter(campaign=campaign).order_by("hit_position"))
    for screen in screens:
        quality = {c: QUALITY[_system(c.text)] + rng.gauss(0, 10) for c in screen.candidates.all()}
        answers = {}
        for name in names:
            if name == "clicker":
                answers[name] = {c: rng.randint(0, 100) for c in quality}
            elif name == "copy":
                answers[name] = {  # no draw without a nudge: the other answers stay as they were
                    c: max(0, min(100, v + rng.randint(-nudge, nudge))) if nudge else v
                    for c, v in answers["reader0"].items()
                }
            else:
                answers[name] = {c: max(0, min(100, round(q + rng.gauss(0, 12)))) for c, q in quality.items()}
            _judge(workers[name], screen, answers[name])
    for _ in range(2):
        for worker in workers.values():
            worker_record_refresh(campaign=campaign, worker=worker)
    return campaign.created_by, campaign, workers


def _system(text: str) -> str:
    return next(name for name, texts in SYSTEMS.items() if text in texts)


def _judge(worker, screen, answers: dict[Candidate, int], field: str = "score") -> None:
    assignment, _ = Assignment.objects.get_or_create(
        hit=screen.hit,
        worker=worker,
        defaults={
            "slot": Assignment.objects.filter(hit=screen.hit).count(),
            "expires": timezone.now() + timedelta(hours=1),
            "status": AssignmentStatus.SUBMITTED,
            "submitted": timezone.now(),
        },
    )
    judgment = ScreenJudgment.objects.create(screen=screen, assignment=assignment, judge=worker, seconds=20.0)
    Rating.objects.bulk_create(
        [Rating(judgment=judgment, candidate=c, **{field: v}) for c, v in answers.items()]
    )


def _record(campaign, worker) -> WorkerRecord:
    return WorkerRecord.objects.get(campaign=campaign, worker=worker)


def _status(campaign, worker) -> tuple[str, str]:
    a = Assignment.objects.get(hit__campaign=campaign, worker=worker)
    return a.status, a.hold_reason


def test_readers_agree_with_the_crowd_and_a_random_clicker_is_far_below_and_held(crowd):
    _, campaign, workers = crowd
    readers = [_record(campaign, workers[f"reader{k}"]) for k in range(1, READERS)]
    clicker = _record(campaign, workers["clicker"])
    assert all(r.agreement > 0.6 and r.agreement_screens == N and not r.agreement_low for r in readers)
    assert clicker.agreement_screens == N and abs(clicker.agreement) < 0.3 and clicker.agreement_low
    # held, not excluded: the rule is the researcher's, off by default
    assert not campaign.exclude_by_agreement and not clicker.excluded
    assert _status(campaign, workers["clicker"]) == (AssignmentStatus.HELD, "disagrees")
    assert all(
        _status(campaign, workers[f"reader{k}"]) == (AssignmentStatus.SUBMITTED, "") for k in range(1, 5)
    )
    assert not valid_judgments(campaign).filter(judge=workers["clicker"]).exists()


def test_the_crowd_vouches_for_readers_so_a_pass_rate_a_tenth_under_the_threshold_keeps_them(crowd, client):
    """Issue 41: the crowd task stores whether the crowd vouches for each worker (agreement at least
    half the median worker's, not far below, not drifting, no twin); with traps passed at 5 of 10, under the
    0.6 threshold, a reader it vouches for is kept and the random clicker is not. The page says so."""
    researcher, campaign, workers = crowd
    readers = [_record(campaign, workers[f"reader{k}"]) for k in range(1, READERS)]
    clicker = _record(campaign, workers["clicker"])
    assert all(r.agreement_vouches for r in readers) and not clicker.agreement_vouches
    assert not any(_record(campaign, workers[name]).agreement_vouches for name in ("reader0", "copy"))
    WorkerRecord.objects.filter(pk__in=[readers[0].pk, clicker.pk]).update(traps_seen=10, traps_passed=5)
    reader, clicker = (WorkerRecord.objects.get(pk=r.pk) for r in (readers[0], clicker))
    assert record_exclusion_reasons(campaign, reader) == []
    assert record_exclusion_reasons(campaign, clicker) == ["trap pass rate"]
    WorkerRecord.objects.filter(pk=reader.pk).update(traps_passed=4)
    assert record_exclusion_reasons(campaign, WorkerRecord.objects.get(pk=reader.pk)) == ["trap pass rate"]
    client.force_login(researcher)
    html = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    # readers 1-4: reader0 and its copy are one person, whose answers agree with each other's, and
    # the clicker agrees with nobody
    assert html.count("the crowd vouches for these answers") == READERS - 1
    assert "the pass-rate rule excludes under 0.50, not 0.60" in html
    assert "is allowed 0.10 less" in html


def test_the_researchers_rule_excludes_a_worker_far_below_the_crowd(crowd):
    _, campaign, workers = crowd
    assert campaign_exclusion_rules_set(campaign=campaign, **RULES, agreement=True) == 1
    clicker = _record(campaign, workers["clicker"])
    assert clicker.excluded
    assert _status(campaign, workers["clicker"])[0] == AssignmentStatus.EXCLUDED
    assert campaign_exclusion_rules_set(campaign=campaign, **RULES, agreement=False) == 0
    assert _status(campaign, workers["clicker"]) == (AssignmentStatus.HELD, "disagrees")


def test_two_accounts_answering_alike_are_flagged_as_one_person_and_count_once(crowd):
    _, campaign, workers = crowd
    copy, original = _record(campaign, workers["copy"]), _record(campaign, workers["reader0"])
    assert copy.same_as == [workers["reader0"].pk] and original.same_as == [workers["copy"].pk]
    assert all(_record(campaign, workers[f"reader{k}"]).same_as == [] for k in range(1, READERS))
    # the group's first account counts, the other is held for the researcher
    assert _status(campaign, workers["reader0"]) == (AssignmentStatus.SUBMITTED, "")
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.HELD, "same_person")
    counted = valid_judgments(campaign).filter(judge__in=[workers["reader0"], workers["copy"]])
    assert set(counted.values_list("judge_id", flat=True)) == {workers["reader0"].pk}
    # the researcher decides: the copy excluded, or counted after all
    worker_override_set(campaign=campaign, worker=workers["copy"], override="exclude")
    assert _status(campaign, workers["copy"])[0] == AssignmentStatus.EXCLUDED
    worker_override_set(campaign=campaign, worker=workers["copy"], override="include")
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.SUBMITTED, "")


def _assert_the_copy_counts_once(campaign, workers) -> None:
    """ "copy" and reader 0 name each other, no other reader is anyone's twin, and the copy is held
    as one person, so only reader 0's judgments of the two count."""
    copy, original = _record(campaign, workers["copy"]), _record(campaign, workers["reader0"])
    assert copy.same_as == [workers["reader0"].pk] and original.same_as == [workers["copy"].pk]
    assert all(_record(campaign, workers[f"reader{k}"]).same_as == [] for k in range(1, READERS))
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.HELD, "same_person")
    counted = valid_judgments(campaign).filter(judge__in=[workers["reader0"], workers["copy"]])
    assert set(counted.values_list("judge_id", flat=True)) == {workers["reader0"].pk}


def test_a_copy_with_a_point_or_two_of_noise_is_one_person_too():
    """Issue 41, near-identical slider values: the copy moves each of reader 0's scores by up to two
    points, so hardly a screen is identical; it is still flagged, held and counted once."""
    _, campaign, workers = _crowd([*(f"reader{k}" for k in range(READERS)), "copy"], nudge=2)
    identical = sum(
        a.score == b.score
        for a in Rating.objects.filter(judgment__judge=workers["copy"])
        for b in Rating.objects.filter(judgment__judge=workers["reader0"], candidate=a.candidate)
    )
    assert identical < 0.3 * Rating.objects.filter(judgment__judge=workers["copy"]).count()
    _assert_the_copy_counts_once(campaign, workers)


def _screens_with_quality(campaign, rng: random.Random):
    """Each screen of ``campaign`` in HIT order with its candidates' quality on it (their system's
    quality, give or take 10 points), drawn as the loop reaches it."""
    for screen in Screen.objects.filter(campaign=campaign).order_by("hit_position"):
        yield screen, {c: QUALITY[_system(c.text)] + rng.gauss(0, 10) for c in screen.candidates.all()}


def _read_ranks(quality: dict, rng: random.Random) -> dict:
    """A reader's ranks of a screen's candidates, by their quality as the reader reads it (25 points
    of noise: readers rank alike on a share of screens, well under the near rule's)."""
    read = sorted(quality, key=lambda c: -(quality[c] + rng.gauss(0, 25)))
    return {c: k for k, c in enumerate(read, 1)}


def test_a_ranking_copy_with_one_pair_ordered_otherwise_is_one_person_too():
    """Issue 41, near-identical rank orders: the copy ranks as reader 0 does with two candidates
    swapped on every screen, so no screen is identical; it is still flagged, held and counted once,
    and none of the readers (who rank the four texts by their own noisy reading) is."""
    names = [*(f"reader{k}" for k in range(READERS)), "copy"]
    campaign, workers = factories.prws_crowd(
        names, SOURCES, SYSTEMS, name="ranks", screens_per_hit=N, protocol="ranking"
    )
    rng = random.Random(5)
    for screen, quality in _screens_with_quality(campaign, rng):
        ranks = {}
        for name in names[:-1]:
            ranks[name] = _read_ranks(quality, rng)
        first, second = sorted(ranks["reader0"], key=ranks["reader0"].get)[rng.randrange(3) :][:2]
        ranks["copy"] = {**ranks["reader0"], first: ranks["reader0"][second], second: ranks["reader0"][first]}
        assert ranks["copy"] != ranks["reader0"]  # no screen identical: the identical rule sees nothing
        for name in names:
            _judge(workers[name], screen, ranks[name], field="rank")
    for worker in workers.values():  # every answer is in: one refresh each says who is alike
        worker_record_refresh(campaign=campaign, worker=worker)
    _assert_the_copy_counts_once(campaign, workers)


def test_copies_alike_their_original_but_not_each_other_count_once_as_one_group():
    """Issue 41, "the group's judgments count once": one person answers on one account and copies the
    answer to two more, changing one pair on each copy (a different pair), so each copy is alike the
    original but the copies are two changes apart and not alike each other. Counted by pairs, both
    copies kept counting (each one's only twin, the original, came later); the group counts once,
    by its first account."""
    names = ["copy1", "copy2", *(f"reader{k}" for k in range(READERS - 1)), "original"]
    campaign, workers = factories.prws_crowd(
        names, SOURCES, SYSTEMS, name="group", screens_per_hit=N, protocol="ranking"
    )
    rng = random.Random(9)
    for screen, quality in _screens_with_quality(campaign, rng):
        ranks = {}
        for name in names[2:]:
            ranks[name] = _read_ranks(quality, rng)
        order = sorted(ranks["original"], key=ranks["original"].get)
        for name, (a, b) in (("copy1", order[:2]), ("copy2", order[2:])):
            ranks[name] = {**ranks["original"], a: ranks["original"][b], b: ranks["original"][a]}
        for name in names:
            _judge(workers[name], screen, ranks[name], field="rank")
    for name in ("copy1", "copy2", *names[2:]):
        worker_record_refresh(campaign=campaign, worker=workers[name])
    ids = {name: workers[name].pk for name in ("copy1", "copy2", "original")}
    assert _record(campaign, workers["copy1"]).same_as == [ids["original"]]
    assert _record(campaign, workers["copy2"]).same_as == [ids["original"]]  # not alike copy1
    assert sorted(_record(campaign, workers["original"]).same_as) == sorted([ids["copy1"], ids["copy2"]])
    assert _status(campaign, workers["copy1"]) == (AssignmentStatus.SUBMITTED, "")
    assert _status(campaign, workers["copy2"]) == (AssignmentStatus.HELD, "same_person")
    assert _status(campaign, workers["original"]) == (AssignmentStatus.HELD, "same_person")
    counted = valid_judgments(campaign).filter(judge__in=[workers[n] for n in ids])
    assert set(counted.values_list("judge_id", flat=True)) == {ids["copy1"]}
    assert all(_record(campaign, workers[f"reader{k}"]).same_as == [] for k in range(READERS - 1))


def test_the_campaign_page_says_what_the_crowd_evidence_means(crowd, client):
    researcher, campaign, _ = crowd
    client.force_login(researcher)
    html = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert "Agreement with the crowd" in html
    assert f"with the others' mean over {N} shared screens" in html
    assert "far below the other workers'" in html
    assert "answers alike reader0</strong> beyond chance: one person?" in html
    assert "1 HIT held until you decide" in html


def test_a_copy_that_stopped_before_it_could_be_told_is_held_when_its_original_is_found_alike():
    """A record is refreshed on its worker's submits: an account that copied and stopped before the
    crowd could say how alike people usually answer was never flagged. The original's refresh now
    refreshes a twin whose record does not name it yet."""
    names = [*(f"reader{k}" for k in range(READERS)), "copy"]
    campaign, workers = factories.prws_crowd(names, SOURCES, SYSTEMS, name="late", screens_per_hit=N)
    rng = random.Random(3)
    screens = list(Screen.objects.filter(campaign=campaign).order_by("hit_position"))
    answers = {}
    for name in names:
        for screen in screens:
            key = (name, screen.pk)
            if name == "copy":
                answers[key] = answers[("reader0", screen.pk)]
            else:
                quality = {c: QUALITY[_system(c.text)] for c in screen.candidates.all()}
                answers[key] = {c: max(0, min(100, round(q + rng.gauss(0, 15)))) for c, q in quality.items()}
    # the copy works (and is refreshed) first, alone: nobody to compare with yet
    for screen in screens:
        _judge(workers["copy"], screen, answers[("copy", screen.pk)])
    worker_record_refresh(campaign=campaign, worker=workers["copy"])
    assert _record(campaign, workers["copy"]).same_as == []
    for name in names[:-1]:
        for screen in screens:
            _judge(workers[name], screen, answers[(name, screen.pk)])
    for _ in range(2):
        for name in names[:-1]:
            worker_record_refresh(campaign=campaign, worker=workers[name])
    assert _record(campaign, workers["copy"]).same_as == [workers["reader0"].pk]
    assert _status(campaign, workers["copy"]) == (AssignmentStatus.HELD, "same_person")
    assert _status(campaign, workers["reader0"]) == (AssignmentStatus.SUBMITTED, "")


def test_accounts_of_one_program_are_measured_without_one_another_and_held_far_below(client):
    """Issue 41, the outside adversary's hole: three accounts of one program (its own view of each
    text, a few points of noise per account) beside five readers. Measured against everyone, each
    account's agreement is lifted by its two siblings; they agree with one another far more than with
    the crowd, so the crowd task leaves them out of each other's crowd: the record says how many, each
    falls far below the readers and is held, and the page says why."""
    names = [*(f"reader{k}" for k in range(READERS)), "prog0", "prog1", "prog2"]
    campaign, workers = factories.prws_crowd(names, SOURCES, SYSTEMS, name="family", screens_per_hit=N)
    rng = random.Random(5)
    for screen in Screen.objects.filter(campaign=campaign).order_by("hit_position"):
        quality = {c: QUALITY[_system(c.text)] + rng.gauss(0, 10) for c in screen.candidates.all()}
        view = {c: rng.uniform(0, 100) for c in quality}  # the program's own idea of each text
        for name in names:
            if name.startswith("prog"):
                answers = {c: max(0, min(100, round(v + rng.gauss(0, 4)))) for c, v in view.items()}
            else:
                answers = {c: max(0, min(100, round(q + rng.gauss(0, 12)))) for c, q in quality.items()}
            _judge(workers[name], screen, answers)
    for _ in range(2):
        for worker in workers.values():
            worker_record_refresh(campaign=campaign, worker=worker)
    programs = [_record(campaign, workers[f"prog{k}"]) for k in range(3)]
    readers = [_record(campaign, workers[f"reader{k}"]) for k in range(READERS)]
    assert all(r.agreement_family == 0 and not r.agreement_low for r in readers)
    assert all(p.agreement_family == 2 and abs(p.agreement) < 0.3 and p.agreement_low for p in programs)
    assert not any(p.agreement_vouches or p.same_as for p in programs)  # close, but not copies
    assert all(
        _status(campaign, workers[f"prog{k}"]) == (AssignmentStatus.HELD, "disagrees") for k in range(3)
    )
    client.force_login(campaign.created_by)
    html = client.get(reverse("campaign-detail", args=[campaign.pk])).content.decode()
    assert html.count("leaving out 2 accounts that answer much like this one") == 3


# ------------------------------------------------------------------ vouching through real submits

PASS_SHARE = 0.55
"""The share of traps the "unlucky reader" and the lucky clicker below pass: under the default 0.6
threshold, over the vouched line of 0.5."""


def _vouching_campaign():
    """A PRWS campaign over the sentences above with hidden traps (real trap copies, verdicts made by
    the submits) judged by every worker: five readers, one of them unlucky with traps, and a clicker."""
    names = [*(f"reader{k}" for k in range(READERS - 1)), "unlucky", "clicker"]
    researcher = factories.user("res", "researcher")
    workers = {n: factories.user(n, "annotator") for n in names}
    team = factories.project(researcher, members=list(workers.values()))
    corpus, outputs = factories.corpus_with_systems(team, sources=SOURCES, systems=SYSTEMS)
    campaign = campaign_create(
        project=team,
        corpus=corpus,
        name="vouching",
        systems=outputs,
        created_by=researcher,
        protocol="prws",
        max_candidates=4,
        screens_per_hit=6,
        judgments_per_item=len(names),
        trap_rate=1.0,
        repeat_rate=0.0,
        trap_secret="fixed secret for the tests",
    )
    return campaign, workers


def _answers(name: str):
    """How ``name`` scores the candidates of a screen. A reader scores each output by its system's
    quality with a little noise of their own; the clicker at random (the same each time it meets a
    text). On a trap copy each gives the trap their score of its base less 30 (passed) or the same
    score (a tie, failed). Readers pass every trap; the unlucky reader and the clicker
    ``PASS_SHARE`` of those they meet: the clicker as if it could tell the traps, the unlucky reader as
    a careful person who misses two errors in five."""
    met = {"seen": 0, "passed": 0}

    def value(text: str) -> int:
        rng = random.Random(f"{name}|{text}")
        if name == "clicker":
            return rng.randint(1, 100)  # never 0: a trap scored under it is a pass
        return max(31, min(100, round(QUALITY[_system(text)] + rng.gauss(0, 6))))

    def answer(screen, candidate) -> CandidateScore:
        control = Control.objects.filter(screen=screen, trap=candidate).select_related("base").first()
        if control is None:
            return CandidateScore(score=value(candidate.text))
        share = PASS_SHARE if name in ("unlucky", "clicker") else 1.0
        passed = met["passed"] < share * (met["seen"] + 1)
        met["seen"], met["passed"] = met["seen"] + 1, met["passed"] + passed
        return CandidateScore(score=max(0, value(control.base.text) - (30 if passed else 0)))

    return answer


def _one_hit(campaign, worker, answer) -> bool:
    """The worker's next HIT through the services (``tests.judging.do_hit``); False when there is none."""
    try:
        do_hit(campaign, worker, answer)
    except NoWork:
        return False
    return True


def test_real_trap_verdicts_and_the_crowd_task_keep_a_vouched_reader_at_a_pass_rate_a_clicker_is_excluded_at():
    """Issue 41, end to end: the workers take HITs in turns through the services (the submits make the
    trap verdicts), and after each round the crowd task's full refresh runs for every record due, as
    the task each submit sent on commit would (``crowd_evidence_refresh``, the task's body). The
    unlucky reader and the clicker pass the same share of their traps, about 0.55: under the 0.6
    threshold. The crowd vouches for the reader, who is kept with every HIT counted; the clicker is
    excluded by the pass rate, nothing of it counted."""
    campaign, workers = _vouching_campaign()
    answers = {name: _answers(name) for name in workers}
    working = set(workers)
    while working:
        working = {name for name in sorted(working) if _one_hit(campaign, workers[name], answers[name])}
        for worker in workers.values():  # the task each submit sent on commit (a no-op if not due)
            crowd_evidence_refresh(campaign_id=campaign.pk, worker_id=worker.pk)
    unlucky, clicker = (_record(campaign, workers[n]) for n in ("unlucky", "clicker"))
    assert unlucky.traps_seen >= campaign.trap_min_seen and clicker.traps_seen >= campaign.trap_min_seen
    for record in (unlucky, clicker):
        assert 0.5 <= record.traps_passed / record.traps_seen < campaign.trap_threshold
    assert unlucky.agreement_vouches and not unlucky.excluded
    assert record_exclusion_reasons(campaign, unlucky) == []
    assert not clicker.agreement_vouches and clicker.excluded
    assert "trap pass rate" in record_exclusion_reasons(campaign, clicker)
    counted = valid_judgments(campaign)
    assert (
        counted.filter(judge=workers["unlucky"]).count()
        == ScreenJudgment.objects.filter(
            judge=workers["unlucky"], screen__campaign=campaign, screen__control__isnull=True
        ).count()
    )
    assert not counted.filter(judge=workers["clicker"]).exists()
