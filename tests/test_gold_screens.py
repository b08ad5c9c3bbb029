"""Issue 41, gold screens in a campaign: the researcher answers screens (on the page or from a CSV or
JSON file, validated), copies of them are placed in other HITs, look like any judged screen, and are
scored like traps: the verdict counts in the pass rate (so in exclusion) and the worker's record
shows the gold figures apart. Real PostgreSQL."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.contrib.messages import get_messages
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from geceval.errors import GecInputError
from ranking.models import (
    Campaign,
    Control,
    ControlKind,
    GoldScreen,
    Hit,
    Screen,
    ScreenJudgment,
    WorkerRecord,
)
from ranking.quality.gold import gold_rate_set, gold_screen_mark, gold_screen_unmark, gold_screens_import
from ranking.quality.gold_copies import gold_pair_share
from ranking.selectors import campaign_workers, valid_judgments
from ranking.services import CandidateScore, NoWork, assignment_request, campaign_create, screen_submit
from ranking.services.life_cycle import campaign_set_status
from ranking.work.assignments import assignment_next_screen
from tests import factories

pytestmark = pytest.mark.django_db

N = 20
SOURCES = [f"Sentence number {i} have a error <b>{i}</b> ." for i in range(N)]
GOOD = [f"Sentence number {i} has an error <b>{i}</b> ." for i in range(N)]
BAD = [f"Sentence number {i} have an errors <b>{i}</b> ." for i in range(N)]


@pytest.fixture
def draft():
    researcher = factories.user("res", "researcher")
    workers = [factories.user(name, "annotator") for name in ("careful", "careless")]
    project = factories.project(researcher, members=workers)
    corpus, systems = factories.corpus_with_systems(
        project, sources=SOURCES, systems={"good": GOOD, "bad": BAD}
    )
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="gold",
        systems=systems,
        created_by=researcher,
        protocol="prws",
        max_candidates=2,
        screens_per_hit=5,
        judgments_per_item=2,
        trap_rate=0.0,
        repeat_rate=0.0,
        trap_min_seen=3,
        status="draft",
    )
    return researcher, campaign, workers


def _expected(screen: Screen) -> dict[int, int]:
    """The researcher's answer: the good system's correction 80, the bad one's 20."""
    return {
        c.pk: 80 if c.outputs.filter(system__name="good").exists() else 20 for c in screen.candidates.all()
    }


def _first_screen_of_each_hit(campaign: Campaign) -> list[Screen]:
    screens = Screen.objects.filter(campaign=campaign, control__isnull=True).order_by(
        "hit__index", "hit_position"
    )
    seen, out = set(), []
    for s in screens:
        if s.hit_id not in seen:
            seen.add(s.hit_id)
            out.append(s)
    return out


def _mark_all(campaign, researcher, rate=0.4) -> list[Screen]:
    golds = _first_screen_of_each_hit(campaign)
    for s in golds:
        gold_screen_mark(campaign=campaign, screen=s, expected=_expected(s), by=researcher)
    gold_rate_set(campaign=campaign, rate=rate)
    return golds


def test_gold_copies_go_into_other_hits_and_look_like_judged_screens(draft):
    researcher, campaign, _ = draft
    golds = _mark_all(campaign, researcher)
    copies = list(
        Control.objects.filter(screen__campaign=campaign, kind=ControlKind.GOLD).select_related("screen")
    )
    # 5 judged screens per HIT x 0.4 = 2 copies in each of the 4 HITs
    assert Counter(c.screen.hit_id for c in copies) == {s.hit_id: 2 for s in golds}
    gold_texts = {s.sentence_id: sorted(c.text for c in s.candidates.all()) for s in golds}
    for control in copies:
        copy = control.screen
        hit_screens = Screen.objects.filter(hit_id=copy.hit_id)
        # a copy of a screen of another HIT: no other screen of its HIT shows its sentence
        assert hit_screens.filter(sentence_id=copy.sentence_id).count() == 1
        assert sorted(c.text for c in copy.candidates.all()) == gold_texts[copy.sentence_id]
        # its verdict waits for a judged screen of its own HIT, as a hidden trap's does
        assert control.original.hit_id == copy.hit_id and not hasattr(control.original, "control")
        expected = GoldScreen.objects.get(screen=copy).expected
        assert {c.text: expected[str(c.pk)] for c in copy.candidates.all()} == {
            c.text: 80 if "has an error" in c.text else 20 for c in copy.candidates.all()
        }
    for hit_id in {s.hit_id for s in golds}:  # the HIT's screens in one run of positions
        positions = sorted(Screen.objects.filter(hit_id=hit_id).values_list("hit_position", flat=True))
        assert positions == list(range(7))
    # removing a gold screen places the copies anew, without it
    gold_screen_unmark(campaign=campaign, screen=golds[0])
    assert not Screen.objects.filter(
        campaign=campaign, control__kind=ControlKind.GOLD, sentence_id=golds[0].sentence_id
    ).exists()
    assert Control.objects.filter(screen__campaign=campaign, kind=ControlKind.GOLD).count() == 8


def test_marking_gold_refuses_what_is_not_an_answer(draft):
    researcher, campaign, _ = draft
    screen = _first_screen_of_each_hit(campaign)[0]
    expected = _expected(screen)
    first = next(iter(expected))
    with pytest.raises(GecInputError, match="every candidate"):
        gold_screen_mark(campaign=campaign, screen=screen, expected={first: 50})
    with pytest.raises(GecInputError, match="0 to 100"):
        gold_screen_mark(campaign=campaign, screen=screen, expected={**expected, first: 101})
    other = campaign_create(
        project=campaign.project,
        corpus=campaign.corpus,
        name="other",
        systems=list(campaign.systems.all()),
        created_by=researcher,
        protocol="prws",
        max_candidates=2,
        status="draft",
    )
    with pytest.raises(GecInputError, match="not part of this campaign"):
        gold_screen_mark(campaign=other, screen=screen, expected=expected)
    assert not GoldScreen.objects.exists()
    gold_screen_mark(campaign=campaign, screen=screen, expected=expected)
    campaign_set_status(campaign=campaign, status="active")
    with pytest.raises(GecInputError, match="draft"):
        gold_screen_mark(campaign=campaign, screen=screen, expected=expected)


def test_a_gold_file_is_checked_whole_before_anything_is_marked(draft):
    researcher, campaign, _ = draft
    golds = _first_screen_of_each_hit(campaign)
    positions = [s.sentence.position for s in golds]
    rows = ["sentence,screen,system,expected"]
    for p in positions:
        rows += [f"{p},0,good,80", f"{p},0,bad,20"]
    bad = [*rows, f"{positions[0] + 1},0,good,eighty"]
    with pytest.raises(GecInputError, match=r"line \d+: the answer for good must be a whole number"):
        gold_screens_import(campaign=campaign, data="\n".join(bad).encode(), filename="gold.csv")
    assert not GoldScreen.objects.exists()
    items = [{"sentence": positions[0], "expected": {"good": 80, "nope": 20}}]
    with pytest.raises(GecInputError, match="item 1: no candidate of that screen comes from system 'nope'"):
        gold_screens_import(campaign=campaign, data=json.dumps(items).encode(), filename="gold.json")
    with pytest.raises(GecInputError, match="not valid JSON"):
        gold_screens_import(campaign=campaign, data=b"[{", filename="gold.json")
    assert (
        gold_screens_import(
            campaign=campaign, data="\n".join(rows).encode(), filename="gold.csv", by=researcher
        )
        == 4
    )
    assert GoldScreen.objects.filter(marked__isnull=True).count() == 4
    items = [{"sentence": positions[1], "screen": 0, "expected": {"good": 30, "bad": 90}}]
    assert gold_screens_import(campaign=campaign, data=json.dumps(items).encode(), filename="g.json") == 1
    redone = GoldScreen.objects.get(screen=golds[1])
    assert sorted(redone.expected.values()) == [30, 90]


def _work(campaign, worker, score) -> None:
    """``worker`` does every HIT they can get; ``score(candidate)`` answers each candidate."""
    while True:
        try:
            assignment = assignment_request(campaign=campaign, worker=worker)
        except NoWork:
            return
        while (screen := assignment_next_screen(assignment)) is not None:
            answers = {c.pk: CandidateScore(score=score(c)) for c in screen.candidates.all()}
            screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers, seconds=9.0)
            if assignment.status != "active":
                break


def test_gold_copies_stay_in_their_domain_and_spread_over_the_gold_screens(draft):
    """A HIT of one domain gets gold of that domain only (as hidden traps copy a HIT of the same
    domain), and the least-copied gold screen goes first, so no gold screen comes back in far more
    HITs than the others."""
    researcher, campaign, _ = draft
    hits = list(Hit.objects.filter(campaign=campaign, qualification=False).order_by("index"))
    for hit in hits[:2]:
        Hit.objects.filter(pk=hit.pk).update(domain="wiki")
    golds = _mark_all(campaign, researcher, rate=0.2)
    copies = list(
        Control.objects.filter(screen__campaign=campaign, kind=ControlKind.GOLD).select_related(
            "screen__hit", "screen__gold__marked__screen__hit"
        )
    )
    assert len(copies) == 4  # one in each HIT: each domain has two HITs, each the other's gold
    for control in copies:
        assert control.screen.hit.domain == control.screen.gold.marked.screen.hit.domain
    assert Counter(c.screen.gold.marked_id for c in copies) == {
        g.pk: 1 for g in GoldScreen.objects.filter(screen__in=golds)
    }


def test_a_draft_with_gold_answers_is_not_built_again_and_keeps_them(draft):
    """Building a draft again (a changed study applied to it) makes its screens anew, which would
    drop the researcher's gold answers: it is refused, and nothing changes."""
    researcher, campaign, _ = draft
    golds = _mark_all(campaign, researcher)
    screens_before = set(Screen.objects.filter(campaign=campaign).values_list("pk", flat=True))
    with pytest.raises(GecInputError, match="gold screen"):
        campaign_create(
            project=campaign.project,
            corpus=campaign.corpus,
            name="gold",
            systems=list(campaign.systems.all()),
            created_by=researcher,
            protocol="prws",
            max_candidates=2,
            screens_per_hit=4,
            judgments_per_item=2,
            status="draft",
            into=campaign,
        )
    assert set(Screen.objects.filter(campaign=campaign).values_list("pk", flat=True)) == screens_before
    assert GoldScreen.objects.filter(screen__in=golds, marked__isnull=True).count() == len(golds)


def test_gold_copies_are_scored_like_traps_and_exclude_a_careless_worker(draft):
    researcher, campaign, (careful, careless) = draft
    # 3 copies in each HIT: each HIT shows all four gold screens (its own and three copies), so a
    # worker gets one HIT, never a gold screen twice (test_a_gold_screen_never_comes_back_to_a_worker)
    _mark_all(campaign, researcher, rate=0.6)
    campaign_set_status(campaign=campaign, status="active")
    _work(campaign, careful, lambda c: 75 if "has an error" in c.text else 25)
    _work(campaign, careless, lambda c: 50)
    record = WorkerRecord.objects.get(campaign=campaign, worker=careful)
    assert (record.gold_seen, record.gold_passed, record.traps_seen, record.traps_passed) == (3, 3, 3, 3)
    assert not record.excluded
    record = WorkerRecord.objects.get(campaign=campaign, worker=careless)
    assert record.gold_passed == 0 and record.gold_seen >= 3 and record.traps_seen == record.gold_seen
    assert record.excluded
    # gold copies never count in results
    assert not valid_judgments(campaign).filter(screen__control__isnull=False).exists()
    verdicts = ScreenJudgment.objects.filter(judge=careful, trap_passed__isnull=False)
    assert set(verdicts.values_list("screen__control__kind", flat=True)) == {ControlKind.GOLD}
    rows = {r.username: r for r in campaign_workers(campaign)}
    assert (rows["careful"].gold_passed, rows["careful"].gold_seen) == (3, 3)
    assert rows["careless"].reasons == ("trap pass rate",)


def _gold_family(screen: Screen) -> int | None:
    """The researcher's gold screen that ``screen`` is, or copies (None: not gold)."""
    gold = GoldScreen.objects.filter(screen=screen).first()
    return None if gold is None else gold.marked_id or gold.pk


def test_a_gold_screen_never_comes_back_to_a_worker(draft):
    """Issue 41: a gold screen's copies sit in other HITs, so a worker taking HITs in a row met the
    same gold screen again (its original, then a copy, or two copies) and could compare them. A HIT
    showing a gold screen the worker has seen in another HIT is skipped; when only such HITs are
    left the worker gets NoWork, not a repeat, though those HITs still have free slots."""
    researcher, campaign, (worker, other) = draft
    _mark_all(campaign, researcher, rate=0.2)  # one copy in each HIT: each HIT shows two gold screens
    campaign_set_status(campaign=campaign, status="active")
    seen: dict[int, int] = {}  # gold screen -> the HIT the worker saw it in
    taken = []
    while True:
        try:
            assignment = assignment_request(campaign=campaign, worker=worker)
        except NoWork:
            break
        taken.append(assignment.hit_id)
        while (screen := assignment_next_screen(assignment)) is not None:
            family = _gold_family(screen)
            if family is not None:
                assert seen.setdefault(family, screen.hit_id) == screen.hit_id, "a gold screen came back"
            answers = {c.pk: CandidateScore(score=50) for c in screen.candidates.all()}
            screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers, seconds=9.0)
    hits = set(Hit.objects.filter(campaign=campaign, qualification=False).values_list("pk", flat=True))
    assert 1 <= len(taken) < len(hits)  # HITs were left with free slots (two each) ...
    left = hits - set(taken)
    for hit in left:  # ... each showing a gold screen the worker saw elsewhere
        shown = {_gold_family(s) for s in Screen.objects.filter(hit_id=hit)} - {None}
        assert shown & set(seen), hit
    # another worker is not held back by what this one saw
    assert assignment_request(campaign=campaign, worker=other).hit_id in hits


def test_gold_pair_share_orders_pairs_as_the_protocol_does():
    # PRWS: scores under 10 points apart are equal
    assert gold_pair_share("prws", {1: 80, 2: 20, 3: 20}, {1: 90, 2: 30, 3: 35}) == 1.0
    assert gold_pair_share("prws", {1: 80, 2: 20, 3: 20}, {1: 50, 2: 50, 3: 50}) == pytest.approx(1 / 3)
    assert gold_pair_share("ranking", {1: 1, 2: 2}, {1: 2, 2: 1}) == 0.0
    assert gold_pair_share("ranking", {1: 1}, {1: 1}) is None


def test_the_gold_page_marks_imports_and_escapes(draft):
    researcher, campaign, _ = draft
    client = Client()
    client.force_login(researcher)
    url = reverse("campaign-gold-screens", args=[campaign.pk])
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "&lt;b&gt;0&lt;/b&gt;" in html and "<b>0</b>" not in html
    assert 'for="gold-rate-input"' in html and 'for="gold-file"' in html
    screen = _first_screen_of_each_hit(campaign)[1]
    data = {"action": "mark", "screen": screen.pk}
    data |= {
        f"expected-{c.position}": v
        for c, v in ((c, _expected(screen)[c.pk]) for c in screen.candidates.all())
    }
    client.post(url, data)
    assert GoldScreen.objects.filter(screen=screen, marked__isnull=True).exists()
    client.post(url, {"action": "rate", "rate": "0.2"})
    campaign.refresh_from_db()
    assert campaign.gold_rate == 0.2
    assert Control.objects.filter(screen__campaign=campaign, kind=ControlKind.GOLD).count() == 3
    client.get(url)  # the messages so far are shown (and so consumed)
    response = client.post(url, {"action": "mark", "screen": screen.pk, "expected-0": "x", "expected-1": "1"})
    assert [str(m) for m in get_messages(response.wsgi_request)][-1] == "answers are whole numbers"
    upload = {"action": "import", "file": _file(b"sentence,system,expected\n999,good,80\n", "g.csv")}
    client.get(url)
    response = client.post(url, upload)
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "line 2: the campaign has no screen 0 of sentence 999"
    ]
    assert GoldScreen.objects.filter(marked__isnull=True).count() == 1


def _file(data: bytes, name: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data, content_type="text/csv")


def test_gold_counts_are_database_constraints(draft):
    """A record never passes more gold than it saw, nor sees more gold than traps (gold counts among them)."""
    _, campaign, (worker, _) = draft
    record = WorkerRecord.objects.create(campaign=campaign, worker=worker, traps_seen=2, traps_passed=1)
    for bad in ({"gold_seen": 1, "gold_passed": 2}, {"gold_seen": 3, "gold_passed": 0}):
        with pytest.raises(IntegrityError), transaction.atomic():
            WorkerRecord.objects.filter(pk=record.pk).update(**bad)
    WorkerRecord.objects.filter(pk=record.pk).update(gold_seen=2, gold_passed=1)
