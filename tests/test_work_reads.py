"""The crowd's hot path in plain SQL (ranking/work/reads.py) against the ORM queries it replaced, on a
campaign with hidden traps and repeats that workers have judged part of: the same rows, the same
instances (every field, converters applied), the same evidence; and the workers' API body built as
plain data equal to what its serializer renders."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from annotate.roles import user_roles, user_with_roles
from annotate.sql_rows import row
from ranking.models import (
    LIVE_STATUSES,
    Assignment,
    Campaign,
    Candidate,
    Control,
    ControlKind,
    Hit,
    Rating,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.quality.control_judging import hits_with_copies_seen
from ranking.services import assignment_request, campaign_create
from ranking.statuses import IDENTITY_HOLDS, JUDGMENT_NOT_EVIDENCE
from ranking.work.api import WorkAssignmentSerializer, _assignment_body
from ranking.work.leases import assignment_lease_extend
from ranking.work.reads import (
    active_assignment,
    assignment_with_campaign,
    claimable_hits,
    crowd_answers,
    first_unjudged_screen,
    hit_progress,
    member_campaign,
    other_records,
    screen_candidates_marked,
    screen_candidates_shown,
    screen_of_hit,
    screens_left,
    worker_judged,
    worker_ratings,
    worker_trap_times,
    worker_trap_verdicts,
)
from ranking.work.writes import row_update
from tests.factories import trap_world
from tests.judging import do_hit, honest_prws

pytestmark = pytest.mark.django_db


def fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


@pytest.fixture
def judged():
    """A hidden-trap PRWS campaign: worker 0 finished a HIT, worker 1 holds one half done."""
    researcher, workers, project, corpus, by_name = trap_world(3)
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="hot path",
        systems=[by_name[n] for n in ("src", "a", "b")],
        created_by=researcher,
        trap_system=by_name["trap"],
        trap_rate=0.5,
        judgments_per_item=2,
        screens_per_hit=4,
        seed=3,
    )
    do_hit(campaign, workers[0], honest_prws)
    half = assignment_request(campaign=campaign, worker=workers[1])
    return campaign, workers, half


@pytest.fixture
def hidden(judged):
    """A hidden-trap campaign (traps and repeats are copies of screens) that worker 0 finished a HIT of."""
    campaign, workers, _ = judged
    hidden = campaign_create(
        project=campaign.project,
        corpus=campaign.corpus,
        name="hidden",
        systems=list(campaign.systems.all()),
        created_by=campaign.created_by,
        trap_design="hidden",
        trap_rate=0.4,
        repeat_rate=0.3,
        judgments_per_item=2,
        screens_per_hit=6,
        seed=5,
    )
    do_hit(hidden, workers[0], honest_prws)
    return hidden, workers[0]


def test_the_assignment_screen_and_candidates_are_the_orm_s(judged):
    campaign, workers, _half = judged
    for assignment in Assignment.objects.filter(hit__campaign=campaign):
        mine = assignment_with_campaign(worker_id=assignment.worker_id, pk=assignment.pk)
        orm = Assignment.objects.select_related("hit__campaign").get(pk=assignment.pk)
        assert fields(mine) == fields(orm)
        assert fields(mine.hit) == fields(orm.hit) and fields(mine.hit.campaign) == fields(orm.hit.campaign)
        assert assignment_with_campaign(worker_id=workers[2].pk, pk=assignment.pk) is None  # not theirs
    assert isinstance(mine.expires, type(timezone.now())) and mine.expires.tzinfo is not None

    for screen in Screen.objects.filter(campaign=campaign).select_related("sentence"):
        got = screen_of_hit(pk=screen.pk, hit_id=screen.hit_id)
        assert fields(got) == fields(screen) and fields(got.sentence) == fields(screen.sentence)
        assert screen_of_hit(pk=screen.pk, hit_id=screen.hit_id + 1000) is None
        trap = Exists(
            Candidate.outputs.through.objects.filter(
                candidate_id=OuterRef("pk"), output__system_id=campaign.trap_system_id
            )
        )
        orm = Candidate.objects.filter(screen=screen).order_by("position").annotate(is_trap=trap)
        marked = screen_candidates_marked(screen_id=screen.pk, trap_system_id=campaign.trap_system_id)
        expected = [(c.pk, c.position, c.text, c.is_trap) for c in orm]
        assert [(c.pk, c.position, c.text, c.is_trap) for c in marked] == expected
        plain = screen_candidates_marked(screen_id=screen.pk, trap_system_id=None)
        assert [c.is_trap for c in plain] == [False] * len(plain)
        shown = screen_candidates_shown(screen.pk)
        assert [(c.pk, c.position, c.text) for c in shown] == [e[:3] for e in expected]
        assert shown[0].screen_id == screen.pk  # a deferred column still loads, as from .only()


def test_the_worker_s_active_assignment_is_the_orm_s(judged):
    campaign, workers, half = judged
    now = timezone.now()
    for worker in workers:
        orm = (
            Assignment.objects.filter(
                hit__campaign=campaign, worker=worker, status="active", expires__gte=now
            )
            .select_related("hit")
            .first()
        )
        mine = active_assignment(campaign_id=campaign.pk, worker_id=worker.pk, now=now)
        assert (mine and (fields(mine), fields(mine.hit))) == (orm and (fields(orm), fields(orm.hit)))
    assert active_assignment(campaign_id=campaign.pk, worker_id=workers[1].pk, now=now).pk == half.pk
    later = half.expires + timezone.timedelta(seconds=1)
    assert active_assignment(campaign_id=campaign.pk, worker_id=workers[1].pk, now=later) is None


def test_the_claim_s_hits_are_the_orm_s(judged):
    """The HITs a claim tries, in order, with their live counts: against the ORM query the claim
    used, for workers with a finished HIT, a HIT in hand and none; every target; a pilot's HITs and
    one day's domains; in a hidden-trap campaign too, where a HIT showing again a sentence the worker
    saw beside a copy of it in another HIT is skipped (``hits_with_copies_seen``, issue 41)."""
    campaign, workers, half = judged
    hits = list(Hit.objects.filter(campaign=campaign, qualification=False).order_by("index"))
    Assignment.objects.create(hit=hits[-1], worker=workers[2], slot=5, expires=half.expires, status="expired")
    for i, hit in enumerate(hits):  # two domains, so the filter has something to keep and to drop
        hit.domain = "fce" if i % 2 else "wiki"
        hit.save(update_fields=["domain"])
    _claims_match(campaign, workers, hits)
    traps = campaign_create(  # three HITs, each trap copying a screen of the next (its donor)
        project=campaign.project,
        corpus=campaign.corpus,
        name="hidden, three HITs",
        systems=list(campaign.systems.all()),
        created_by=campaign.created_by,
        trap_design="hidden",
        trap_rate=0.5,
        repeat_rate=0.5,
        judgments_per_item=2,
        screens_per_hit=2,
        seed=5,
    )
    hits = list(Hit.objects.filter(campaign=traps, qualification=False).order_by("index"))
    do_hit(traps, workers[0], honest_prws)
    assert hits_with_copies_seen(campaign_id=traps.pk, worker_id=workers[0].pk).exists()
    _claims_match(traps, workers, hits)


def _claims_match(campaign, workers, hits) -> None:
    seen_live = False
    for worker in workers:
        skipped = hits_with_copies_seen(campaign_id=campaign.pk, worker_id=worker.pk)
        for target in (1, 2, 3):
            for hit_ids, domains in (
                (None, None),
                ([h.pk for h in hits[:3]], None),
                (None, {"fce"}),
                ([], None),
            ):
                orm = (
                    Hit.objects.filter(campaign=campaign, qualification=False)
                    .exclude(assignments__worker=worker)
                    .annotate(live=Count("assignments", filter=Q(assignments__status__in=LIVE_STATUSES)))
                    .filter(live__lt=target)
                )
                orm = orm.exclude(pk__in=skipped)
                if hit_ids is not None:
                    orm = orm.filter(pk__in=hit_ids)
                if domains:
                    orm = orm.filter(domain__in=domains)
                expected = [(fields(h), h.live) for h in orm.order_by("-live", "index")[:50]]
                mine = claimable_hits(
                    campaign_id=campaign.pk,
                    worker_id=worker.pk,
                    target=target,
                    hit_ids=hit_ids,
                    domains=domains,
                )
                assert [(fields(h), h.live) for h in mine] == expected, (worker, target, hit_ids, domains)
                seen_live = seen_live or any(h.live for h in mine)
    assert seen_live and len(hits) > 1


def test_the_claim_s_campaign_is_the_orm_s(judged, hidden):
    """The campaign a claim asks for: found for its project's members and owner, whatever its status."""
    campaign, workers, _ = judged
    stranger = get_user_model().objects.create(username="not-a-member")
    owner = campaign.project.owner
    Campaign.objects.filter(pk=hidden[0].pk).update(status="closed")
    for user in [*workers, owner, stranger]:
        mine = Campaign.objects.filter(Q(project__members=user) | Q(project__owner=user)).distinct()
        for pk in (campaign.pk, hidden[0].pk, 10**9):
            got, orm = member_campaign(pk=pk, user_id=user.pk), mine.filter(pk=pk).first()
            assert (got and fields(got)) == (orm and fields(orm)), (user, pk)
    assert member_campaign(pk=campaign.pk, user_id=stranger.pk) is None
    assert member_campaign(pk=campaign.pk, user_id=owner.pk) is not None


def test_the_next_screen_and_progress_are_the_orm_s(judged):
    campaign, workers, _half = judged
    for worker in workers:
        for hit_id in Screen.objects.filter(campaign=campaign).values_list("hit_id", flat=True).distinct():
            in_hit = Screen.objects.filter(hit_id=hit_id)
            left = in_hit.exclude(judgments__judge=worker).order_by("hit_position")
            screen, n_left, total = first_unjudged_screen(hit_id=hit_id, worker_id=worker.pk)
            assert screens_left(hit_id=hit_id, worker_id=worker.pk) == left.exists()
            orm = in_hit.aggregate(
                total=Count("id", distinct=True),
                done=Count("judgments", filter=Q(judgments__judge_id=worker.pk), distinct=True),
            )
            assert hit_progress(hit_id=hit_id, worker_id=worker.pk) == (orm["done"], orm["total"])
            if not left.exists():
                assert (screen, n_left, total) == (None, 0, 0)
                continue
            assert (screen.pk, n_left, total) == (left.first().pk, left.count(), in_hit.count())
            assert screen.sentence.text == left.first().sentence.text


def test_a_positive_control_s_answers_come_back_the_better_text_first(hidden):
    """Appraise's test compares the answer on the better text with the answer on the worse: the base's
    and the trap's, but the trap's first for an added correction (issue 41: the trap is the better)."""
    campaign, worker = hidden
    judged = ScreenJudgment.objects.filter(screen__campaign=campaign, judge=worker, trap_passed__isnull=False)
    judgment = judged.filter(screen__control__isnull=False).first()
    assert judgment is not None
    judged.filter(pk=judgment.pk).update(trap_base_answer=81, trap_answer=23)
    judgment.refresh_from_db()
    kind = judgment.screen.control.kind
    before = sorted(worker_trap_verdicts(campaign_id=campaign.pk, worker_id=worker.pk))
    assert (judgment.trap_passed, judgment.trap_base_answer, judgment.trap_answer, kind) in before
    Control.objects.filter(screen=judgment.screen).update(kind=ControlKind.ADDED_CORRECTION)
    after = sorted(worker_trap_verdicts(campaign_id=campaign.pk, worker_id=worker.pk))
    flipped = (
        judgment.trap_passed,
        judgment.trap_answer,
        judgment.trap_base_answer,
        ControlKind.ADDED_CORRECTION,
    )
    assert flipped in after and len(after) == len(before)
    assert sorted(
        [*after, (judgment.trap_passed, judgment.trap_base_answer, judgment.trap_answer, kind)]
    ) == sorted([*before, flipped])


def test_the_evidence_reads_are_the_orm_s(hidden):
    campaign, worker = hidden
    verdicts = (
        ScreenJudgment.objects.filter(screen__campaign=campaign, judge=worker, trap_passed__isnull=False)
        .exclude(JUDGMENT_NOT_EVIDENCE)
        .values_list("trap_passed", "trap_base_answer", "trap_answer", "screen__control__kind")
    )
    assert sorted(worker_trap_verdicts(campaign_id=campaign.pk, worker_id=worker.pk)) == sorted(verdicts)
    assert len(verdicts) > 0
    orm = (
        Rating.objects.filter(judgment__judge=worker, judgment__screen__campaign=campaign)
        .exclude(judgment__screen__hit__qualification=True)
        .exclude(judgment__assignment__status="dropped")
        .exclude(judgment__assignment__hold_reason__in=IDENTITY_HOLDS)
        .values_list(
            "judgment__screen_id",
            "judgment__screen__control__kind",
            "judgment__screen__control__original_id",
            "candidate__position",
            "candidate__text",
            "score",
        )
        .order_by("pk")
    )
    mine = worker_ratings(campaign_id=campaign.pk, worker_id=worker.pk, answer="score")
    assert [tuple(r) for r in mine] == list(orm)
    assert any(kind is not None for _, kind, *_ in mine)  # controls were among them


def _crowd_reads_equal_the_orm(campaign, worker) -> int:
    """The plain reads of ``ranking.quality.evidence``'s crowd and drift recounts against the ORM
    queries they replaced; returns the judges of the crowd answers."""
    screens = (
        ScreenJudgment.objects.filter(judge_id=worker.pk, screen__campaign_id=campaign.pk)
        .exclude(screen__hit__qualification=True)
        .values("screen_id")
    )
    orm = (
        Rating.objects.filter(judgment__screen_id__in=screens, score__isnull=False)
        .exclude(judgment__assignment__status="dropped")
        .exclude(judgment__assignment__hold_reason__in=[r.value for r in IDENTITY_HOLDS])
        .values_list("judgment__screen_id", "judgment__judge_id", "candidate_id", "score")
        .order_by("pk")
    )
    mine = crowd_answers(campaign_id=campaign.pk, worker_id=worker.pk, answer="score")
    assert [tuple(r) for r in mine] == list(orm)
    others = (
        WorkerRecord.objects.filter(campaign_id=campaign.pk)
        .exclude(worker_id=worker.pk)
        .values_list("worker_id", "excluded", "agreement")
    )
    assert sorted(other_records(campaign_id=campaign.pk, worker_id=worker.pk)) == sorted(others)
    judged = list(
        ScreenJudgment.objects.filter(judge_id=worker.pk, screen_id__in=screens)
        .order_by("pk")
        .values_list("screen_id", "created")
    )
    assert worker_judged(campaign_id=campaign.pk, worker_id=worker.pk) == judged
    drift = list(
        ScreenJudgment.objects.filter(
            judge_id=worker.pk, screen__campaign_id=campaign.pk, trap_passed__isnull=False
        )
        .exclude(screen__hit__qualification=True)
        .exclude(JUDGMENT_NOT_EVIDENCE)
        .order_by("pk")
        .values_list("trap_passed", "created")
    )
    assert worker_trap_times(campaign_id=campaign.pk, worker_id=worker.pk) == drift
    return {judge for _, judge, _, _ in mine}


def test_the_crowd_and_drift_reads_are_the_orm_s(judged, hidden):
    campaign, workers, _ = judged
    hidden_campaign, _ = hidden
    do_hit(campaign, workers[1], honest_prws)  # finishes the half HIT: worker 0's screens, a second judge
    do_hit(campaign, workers[2], honest_prws)
    for worker in workers:
        _crowd_reads_equal_the_orm(hidden_campaign, worker)
    shared = {w.pk: _crowd_reads_equal_the_orm(campaign, w) for w in workers}
    assert len(shared[workers[0].pk]) == 2  # worker 0 shares screens with another judge
    assert WorkerRecord.objects.filter(campaign=campaign).count() >= 2  # others were read
    assert ScreenJudgment.objects.filter(screen__campaign=campaign, trap_passed__isnull=False).exists()
    # a dropped assignment's answers and an identity hold's leave the crowd; their screens stay the worker's
    first = Assignment.objects.filter(hit__campaign=campaign, worker=workers[0]).first()
    Assignment.objects.filter(pk=first.pk).update(status="dropped", hold_reason=IDENTITY_HOLDS[1].value)
    other = Assignment.objects.filter(hit__campaign=campaign, worker=workers[2]).first()
    Assignment.objects.filter(pk=other.pk).update(status="held", hold_reason=IDENTITY_HOLDS[0].value)
    WorkerRecord.objects.filter(campaign=campaign, worker=workers[2]).update(excluded=True, agreement=0.5)
    after = {w.pk: _crowd_reads_equal_the_orm(campaign, w) for w in workers}
    assert after != shared


def test_the_user_comes_with_their_roles_in_one_query(judged, django_assert_num_queries):
    _, workers, _ = judged
    with django_assert_num_queries(1):
        user = user_with_roles(workers[0].pk)
        assert user_roles(user) == {"annotator"}
    assert fields(user) == fields(get_user_model().objects.get(pk=workers[0].pk))
    admin = get_user_model().objects.create_superuser("root-hot", "r@example.org", "pw-for-tests-1")
    assert user_roles(user_with_roles(admin.pk)) == {"admin"}
    assert user_with_roles(10**9) is None and user_with_roles("not a number") is None


def test_the_lease_renewal_and_the_locked_row(judged):
    campaign, _workers, half = judged
    locked = row(Assignment, pk=half.pk, for_update=True)
    assert fields(locked) == fields(Assignment.objects.get(pk=half.pk))
    assert row(Assignment, pk=10**9) is None
    first = row(Assignment, worker_id=half.worker_id, status=half.status, first_by="pk")
    orm = Assignment.objects.filter(worker_id=half.worker_id, status=half.status).order_by("pk").first()
    assert fields(first) == fields(orm)
    later = half.started + timezone.timedelta(minutes=5)
    expires = assignment_lease_extend(assignment=half, campaign=campaign, now=later)
    assert expires > later and Assignment.objects.get(pk=half.pk).expires == expires
    locked.expires = half.expires - timezone.timedelta(minutes=1)  # a stale copy: the row's is later
    again = assignment_lease_extend(assignment=locked, campaign=campaign, now=later)
    assert again == locked.expires and Assignment.objects.get(pk=half.pk).expires == expires  # not shortened


def test_a_row_update_writes_what_save_writes(hidden):
    """row_update against Model.save on the same changes: every column equal but the auto_now one,
    which both set to their own now."""
    campaign, worker = hidden
    record = WorkerRecord.objects.get(campaign=campaign, worker=worker)
    by_save, by_update = WorkerRecord.objects.get(pk=record.pk), WorkerRecord.objects.get(pk=record.pk)
    for copy in (by_save, by_update):
        copy.traps_seen, copy.traps_passed, copy.mann_whitney_p = 9, 4, 0.25
        copy.flat_reason, copy.position_rho, copy.excluded = "position", -0.875, True
    by_save.save()
    saved = fields(WorkerRecord.objects.get(pk=record.pk))
    WorkerRecord.objects.filter(pk=record.pk).update(traps_seen=0, traps_passed=0, excluded=False)
    row_update(by_update)
    updated = fields(WorkerRecord.objects.get(pk=record.pk))
    assert updated["updated"] >= saved["updated"] and updated["updated"] == by_update.updated
    assert {**updated, "updated": None} == {**saved, "updated": None}
    by_update.traps_seen, by_update.excluded = 12, False
    row_update(by_update, ("traps_seen",))  # only the field named
    again = WorkerRecord.objects.get(pk=record.pk)
    assert (again.traps_seen, again.excluded) == (12, True)


def test_the_api_body_is_what_its_serializer_renders(judged):
    _campaign, workers, half = judged
    found = assignment_with_campaign(worker_id=workers[1].pk, pk=half.pk)
    body = _assignment_body(found)
    assert body["screen"] is not None and body["screen"]["candidates"]
    assert WorkAssignmentSerializer(body | {"expires": found.expires}).data == body
    done = assignment_with_campaign(
        worker_id=workers[0].pk, pk=Assignment.objects.filter(worker=workers[0]).first().pk
    )
    finished = _assignment_body(done)
    assert finished["screen"] is None
    assert WorkAssignmentSerializer(finished | {"expires": done.expires}).data == finished


def test_a_judgment_and_its_ratings_insert_as_the_orm_stores_them(judged):
    from django.db import IntegrityError, transaction

    from ranking.work.writes import rows_insert

    _, workers, half = judged

    def ratings(judgment, screen):
        return [
            Rating(judgment=judgment, candidate=c, score=10 * c.position, meaning_changed=c.position == 1)
            for c in screen.candidates.all()
        ]

    screens = list(Screen.objects.filter(hit_id=half.hit_id).order_by("hit_position")[:2])
    judgments = []
    for screen, insert in zip(screens, ("plain", "orm"), strict=True):
        judgment = ScreenJudgment(
            screen=screen, assignment=half, judge=workers[1], seconds=4.5, trap_passed=False, trap_answer=7
        )
        if insert == "plain":
            rows_insert([judgment])
            rows_insert(made := ratings(judgment, screen))
        else:
            judgment.save()
            made = Rating.objects.bulk_create(ratings(judgment, screen))
        assert judgment.pk is not None and all(r.pk is not None for r in made)
        again = ScreenJudgment.objects.get(pk=judgment.pk)
        assert again.created == judgment.created and again.created.tzinfo is not None
        judgments.append({k: v for k, v in fields(again).items() if k not in ("id", "screen_id", "created")})
        stored = Rating.objects.filter(judgment=again).order_by("candidate__position")
        expected = [(c.position, 10 * c.position, None, c.position == 1) for c in screen.candidates.all()]
        assert [(r.candidate.position, r.score, r.rank, r.meaning_changed) for r in stored] == sorted(
            expected
        )
    assert judgments[0] == judgments[1]

    with pytest.raises(IntegrityError), transaction.atomic():  # the unique (screen, judge) index holds
        rows_insert([ScreenJudgment(screen=screens[0], assignment=half, judge=workers[1])])
