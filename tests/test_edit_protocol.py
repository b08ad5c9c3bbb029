"""The edit-level protocol (issue 24): ERRANT edits stored once, labels and ranks validated on the
server with nothing half-saved, traps checked on labels and rank, exports and the edit-level score."""

from __future__ import annotations

import json
import re

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from geceval.formats.judgments import read_rankings
from ranking.analysis.exports import iter_judgments
from ranking.analysis.services import analysis_run_create
from ranking.models import Rating, Screen, ScreenJudgment
from ranking.protocols import CandidateScore, protocol_get
from ranking.protocols.edits.annotation import compute_edits, edits_for_texts
from ranking.protocols.edits.models import Edit, EditedText, EditLabel
from ranking.protocols.edits.scores import edit_scores
from ranking.protocols.files import pseudonym
from ranking.services import campaign_create
from tests import factories

pytestmark = pytest.mark.django_db

SOURCES = ["He go home yesterday .", "She like cat ."]
SYSTEMS = {
    "src": SOURCES,
    "a": ["He went home yesterday .", "She likes cats ."],
    "c": ["He goes home yesterday .", "She likes cat ."],
}
TRAPS = ["He go to home yesterday . .", "She like the cat ."]


@pytest.fixture
def world():
    researcher = factories.user("res", "researcher")
    worker = factories.user("worker", "annotator")
    project = factories.project(researcher, members=[worker])
    corpus, systems = factories.corpus_with_systems(
        project,
        sources=SOURCES,
        systems=SYSTEMS | {"trap": TRAPS},
        kinds={"src": "source", "trap": "source+error"},
    )
    by_name = {s.name: s for s in systems}
    campaign = campaign_create(
        project=project,
        corpus=corpus,
        name="edits",
        systems=[by_name[n] for n in ("src", "a", "c")],
        created_by=researcher,
        protocol="edits",
        max_candidates=4,
        judgments_per_item=1,
        trap_system=by_name["trap"],
        trap_design="paper",
        trap_rate=1.0,
    )
    return campaign, worker


def test_errant_edits_of_a_correction_with_token_spans_on_both_sides():
    assert compute_edits("He go home yesterday .", "He go to home yesterday . .") == [
        {"index": 0, "o_start": 2, "o_end": 2, "o_text": "", "c_start": 2, "c_end": 3, "c_text": "to",
         "error_type": "M:PREP"},
        {"index": 1, "o_start": 4, "o_end": 4, "o_text": "", "c_start": 5, "c_end": 6, "c_text": ".",
         "error_type": "M:PUNCT"},
    ]  # fmt: skip
    assert compute_edits("He go home yesterday .", "He go home yesterday .") == []


def test_edits_are_computed_once_per_sentence_and_text(world):
    campaign, _ = world
    sentence = campaign.corpus.sentences.get(position=0)
    first = edits_for_texts(sentence, ["He went home yesterday ."])
    again = edits_for_texts(sentence, ["He went home yesterday .", "He go home yesterday ."])
    assert EditedText.objects.filter(sentence=sentence).count() == 2
    assert Edit.objects.filter(edited__sentence=sentence).count() == 1
    assert first["He went home yesterday ."] == again["He went home yesterday ."]
    [edit] = again["He went home yesterday ."]
    assert (edit.o_text, edit.c_text, edit.error_type) == ("go", "went", "R:VERB:TENSE")
    assert again["He go home yesterday ."] == []


def _page(client, worker, campaign):
    client.force_login(worker)
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    response = client.get(url)
    assert response.status_code == 200
    return url, response


def _form(response, *, trap_text: str | None, careful: bool) -> dict:
    """Label every edit and rank: careful = the trap's edits bad and the trap last."""
    context = response.context
    data = {"screen": context["screen_handle"], "started": context["started"]}
    for c, segments, _count in context["edit_rows"]:
        is_trap = c.text == trap_text
        for s in segments:
            if "edit" in s:
                data[f"edit-{c.position}-{s['edit'].index}"] = "bad" if is_trap and careful else "good"
        data[f"rank-{c.position}"] = str(len(context["edit_rows"]) if is_trap and careful else 1)
    return data


def _trap_of(screen: Screen) -> str | None:
    trap = screen.candidates.filter(outputs__system__kind="source+error").first()
    return trap.text if trap else None


def _skeleton(block: str) -> frozenset:
    """The tags and classes of a candidate's markup: what is left when the texts and counts go (and
    whether an edit deletes, inserts or replaces: ``del``/``ins`` follow the edit, not the system)."""
    return frozenset(re.findall(r'<(\w+)(?:[^>]*?class="([^"]*)")?', block)) - {("del", ""), ("ins", "")}


def test_the_page_shows_edits_as_spans_and_nothing_tells_the_trap_apart(client, world):
    campaign, worker = world
    _url, response = _page(client, worker, campaign)
    html = response.content.decode()
    trap = _trap_of(response.context["screen"])
    assert trap is not None
    assert "trap" not in html.lower() and "source+error" not in html
    blocks = re.findall(
        r'<li class="candidate rank-item" data-position="\d+">(.*?)</fieldset>\s*</li>', html, re.S
    )
    rows = response.context["edit_rows"]
    assert len(blocks) == len(rows) == 4  # the source, its trap, a and c
    skeletons = {_skeleton(block) for block, (_c, _s, count) in zip(blocks, rows) if count}
    assert len(skeletons) == 1  # every edited correction, trap or not, has the same markup
    assert '<mark class="edit" id="span-' in html and "<ins>" in html


def test_a_careful_worker_passes_the_trap_and_labels_are_stored(client, world):
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    screen = response.context["screen"]
    data = _form(response, trap_text=_trap_of(screen), careful=True)
    assert client.post(url, data).status_code == 302
    judgment = ScreenJudgment.objects.get(screen=screen, judge=worker)
    assert judgment.trap_passed is True
    labelled = EditLabel.objects.filter(judgment=judgment)
    edits = sum(n for _c, _s, n in response.context["edit_rows"])
    assert labelled.count() == edits > 0
    assert set(labelled.filter(candidate__text=_trap_of(screen)).values_list("label", flat=True)) == {"bad"}


def test_a_trap_ranked_last_with_an_added_error_marked_good_fails(client, world):
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    screen = response.context["screen"]
    trap = _trap_of(screen)
    data = _form(response, trap_text=trap, careful=True)
    trap_candidate = screen.candidates.get(text=trap)
    first_edit = next(k for k in data if k.startswith(f"edit-{trap_candidate.position}-"))
    data[first_edit] = "neutral"
    assert client.post(url, data).status_code == 302
    assert ScreenJudgment.objects.get(screen=screen, judge=worker).trap_passed is False


# (the trap's rank, the others'): level, below and above its base (the source, ranked with the others)
PLACES = {"level": (1, 1), "below": (2, 1), "above": (1, 2)}


@pytest.mark.parametrize(
    "place,first_label,passed",
    [("level", "bad", True), ("level", "neutral", False), ("below", "bad", True), ("above", "bad", False)],
)
def test_a_trap_ranked_level_with_its_base_passes_on_its_errors_marked_bad(
    client, world, place, first_label, passed
):
    """Issue 41: a careful ranker may tie two texts close in quality; the inserted error marked bad is
    the evidence. Ranked above its base it fails, whatever the labels."""
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    screen = response.context["screen"]
    trap = _trap_of(screen)
    data = _form(response, trap_text=trap, careful=True)
    trap_rank, others = PLACES[place]
    for c, _s, _n in response.context["edit_rows"]:
        data[f"rank-{c.position}"] = str(others)
    position = screen.candidates.get(text=trap).position
    data[f"rank-{position}"] = str(trap_rank)
    data[next(k for k in data if k.startswith(f"edit-{position}-"))] = first_label
    assert client.post(url, data).status_code == 302
    assert ScreenJudgment.objects.get(screen=screen, judge=worker).trap_passed is passed


@pytest.mark.parametrize(
    "spoil,error",
    [
        (lambda d: d.pop(next(k for k in d if k.startswith("edit-"))), "label every change"),
        (lambda d: d.update({next(k for k in d if k.startswith("edit-")): "great"}), "good, bad or neutral"),
        (lambda d: d.update({next(k for k in d if k.startswith("rank-")): "9"}), "ranks are whole numbers"),
        (lambda d: d.update({next(k for k in d if k.startswith("rank-")): "x"}), "ranks are whole numbers"),
        (lambda d: d.pop(next(k for k in d if k.startswith("rank-"))), "rank every correction"),
    ],
)
def test_a_bad_label_or_rank_is_refused_with_a_sentence_and_nothing_is_saved(client, world, spoil, error):
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    data = _form(response, trap_text=_trap_of(response.context["screen"]), careful=True)
    spoil(data)
    answer = client.post(url, data)
    assert answer.status_code == 400
    assert error in answer.content.decode()
    assert (
        not ScreenJudgment.objects.exists() and not Rating.objects.exists() and not EditLabel.objects.exists()
    )


def test_the_database_refuses_an_unknown_label_and_a_second_label_of_one_edit(client, world):
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    client.post(url, _form(response, trap_text=None, careful=False))
    label = EditLabel.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        EditLabel.objects.filter(pk=label.pk).update(label="great")
    with pytest.raises(IntegrityError), transaction.atomic():
        EditLabel.objects.create(
            judgment=label.judgment, candidate=label.candidate, edit=label.edit, label="bad"
        )


def test_trap_verdict_needs_every_added_edit_bad_and_a_lower_or_level_rank():
    protocol = protocol_get("edits")
    base = CandidateScore(rank=1, labels=(((0, 1, 2, "went"), "good"),))
    added = (((0, 1, 2, "went"), "good"), ((1, 2, 2, "to"), "bad"))
    assert protocol.trap_passed(CandidateScore(rank=2, labels=added), base) is True
    assert protocol.trap_passed(CandidateScore(rank=1, labels=added), base) is True  # level: the labels
    assert protocol.trap_passed(CandidateScore(rank=1, labels=base.labels), base) is False  # nothing marked
    assert protocol.trap_passed(CandidateScore(rank=2, labels=base.labels), base) is True  # an undone one
    assert (
        protocol.trap_passed(CandidateScore(rank=2, labels=added), CandidateScore(rank=3, labels=base.labels))
        is False
    )
    spoiled = (((0, 1, 2, "went"), "good"), ((1, 2, 2, "to"), "neutral"))
    assert protocol.trap_passed(CandidateScore(rank=2, labels=spoiled), base) is False


def test_an_added_correction_passes_unless_its_correction_is_marked_bad_or_ranked_below_its_base():
    """Issue 41's positive control: the trap is its base with one correction the references agree on.
    A careful reader calls that edit good (or neutral: a small correction) and ranks the trap above
    its base or level with it; the agreement bot (lone edits bad) calls it bad and ranks it below."""
    from ranking.work.judging import trap_verdict

    protocol = protocol_get("edits")
    source = "He go to school yesterday and he like it ."
    base = _scored(source, "He went to school yesterday and he like it .", 2, lambda k: "good")
    text = "He went to school yesterday and he liked it ."
    for label, rank, passed in (
        ("good", 1, True),
        ("neutral", 1, True),
        ("good", 2, True),  # level with its base
        ("bad", 1, False),
        ("good", 3, False),  # below its base
        ("bad", 3, False),  # the agreement bot: a lone edit is bad, and costs the text its rank
    ):
        trap = _scored(source, text, rank, lambda k, label=label: label if k[3] == "liked" else "good")
        assert protocol.correction_passed(trap, base) is passed, (label, rank)
        assert trap_verdict("edits", trap, base, 1, "added_correction").passed is passed
    careful = _scored(source, text, 1, lambda k: "good")
    assert trap_verdict("edits", careful, base, 1, "added_error").passed is False  # the kind decides


def _scored(source: str, text: str, rank: int, label_of) -> CandidateScore:
    """An answer to ``text`` with ERRANT's edits against ``source`` as the server keys them."""
    keys = [(e["index"], e["o_start"], e["o_end"], e["c_text"]) for e in compute_edits(source, text)]
    return CandidateScore(rank=rank, labels=tuple((k, label_of(k)) for k in keys))


def test_a_piece_of_the_bases_edit_that_errant_cuts_out_of_the_trap_need_not_be_marked_bad():
    """Issue 41 (found by bench/bots.py on GMEG dev FCE): the trap's inserted typo makes ERRANT cut the
    base's reordering "know all" -> "all know" into a deletion of "know" and an insertion: a careful
    reader marks the deletion good (it is the base's correction), the inserted words bad; the verdict
    passes them. The inserted words marked anything but bad still fail, as does an error written
    over a base edit at its very span ("shapee" for the base's "shape")."""
    protocol = protocol_get("edits")
    source = "We know all what shopping is ."
    base = _scored(source, "We all know what shopping is .", 1, lambda k: "good")
    trap_text = "We all tnow what shopping are ."
    keys = [k[1:] for k, _ in _scored(source, trap_text, 2, lambda k: "").labels]
    assert (1, 2, "") in keys and (3, 3, "tnow") in keys  # ERRANT cut the base's one edit (1, 3, "all know")

    def careful(k):
        return "good" if k[1:] == (1, 2, "") else "bad"

    assert protocol.trap_passed(_scored(source, trap_text, 2, careful), base) is True
    assert protocol.trap_passed(_scored(source, trap_text, 2, lambda k: "bad"), base) is True
    for slip in ((3, 3, "tnow"), (5, 6, "are")):
        wrong = _scored(source, trap_text, 2, lambda k, slip=slip: "neutral" if k[1:] == slip else careful(k))
        assert protocol.trap_passed(wrong, base) is False
    source = "But the form and the rooms will still be the same ."
    base = _scored(source, "But the shape and the rooms will still be the same .", 1, lambda k: "good")
    over = _scored(source, "But the shapee and the rooms will still be same .", 2, lambda k: "good")
    assert protocol.trap_passed(over, base) is False


PAT_SOURCE = (
    "Obviously , Pat first refused , but then she accepted that she was wrong , and apologyse Maria , "
    "after then Pat never again talked about someone within his or her permission ."
)
PAT_BASE = (
    "Obviously , Pat first refused but then accepted that she was wrong and apologized to Maria . "
    "After that , Pat never again talked about someone without his or her permission ."
)
PAT_REFS = [  # GMEG dev FCE line 63's references; the base is ref0
    PAT_BASE,
    "Obviously , Pat first refused , but then she accepted that she was wrong , and apologized to Maria . "
    "After that , Pat never again talked about someone without his or her permission .",
    "Obviously , Pat first refused , but then she accepted that she was wrong and apologized to Maria . "
    "After that , Pat never again talked about someone without his or her permission .",
    "Obviously , Pat first refused ; but then she accepted that she was wrong , and apologized to Maria . "
    "After that , Pat never again talked about someone within his or her permission .",
]


def test_an_undone_correction_never_undoes_half_of_a_move():
    """Issue 41 (found by bench/bots.py on GMEG dev FCE: both careful workers it excluded failed this
    trap): the aligner splits the base's rewrite of ", and apologyse Maria , after then" into an
    insertion and a deletion; undoing only the deletion leaves the source's phrase beside the base's
    rewrite, and ERRANT shows the base's own corrected words as the trap's one new edit, which the
    verdict asked to be marked bad. A careful reader may rightly call it good (it is the correction;
    the error is the unhighlighted old phrase after it). The edit-level rule now refuses such a trap;
    undoing a correction whole (a replacement) is still taken."""
    from geceval.traps.hidden import (
        UNDONE_CORRECTION,
        half_of_a_move,
        make_trap,
        reference_edit_check,
        undone_corrections,
    )

    half = PAT_BASE.replace("After that , Pat", "After that , and apologyse Maria , after then Pat")
    assert half in undone_corrections(PAT_BASE, PAT_SOURCE, __import__("random").Random(1))
    base = _scored(PAT_SOURCE, PAT_BASE, 1, lambda k: "good")
    shown = _scored(PAT_SOURCE, half, 2, lambda k: "good")
    added = [k[1:] for k, _ in shown.labels if k[1:] not in {b[1:] for b, _ in base.labels}]
    assert added == [(14, 14, "and apologized to Maria . After that")]  # the base's words, not an error
    assert protocol_get("edits").trap_passed(shown, base) is False  # why it had to go
    assert half_of_a_move(PAT_SOURCE, PAT_BASE, half)
    assert not reference_edit_check(PAT_BASE, half, UNDONE_CORRECTION, PAT_SOURCE, PAT_REFS)
    whole = PAT_BASE.replace("without", "within")  # a replacement undone: the source's word back in place
    assert not half_of_a_move(PAT_SOURCE, PAT_BASE, whole)
    assert reference_edit_check(PAT_BASE, whole, UNDONE_CORRECTION, PAT_SOURCE, PAT_REFS[:3])
    # (with ref3, which keeps "within", it is refused for that: the next test)
    for k in range(30):
        trap = make_trap(
            PAT_BASE, PAT_SOURCE, PAT_REFS, seed=f"pat{k}", kinds=(UNDONE_CORRECTION,), reference_edits=True
        )
        assert trap is None or not half_of_a_move(PAT_SOURCE, PAT_BASE, trap.text)


def _judge_all(client, worker, campaign):
    """Work the whole HIT carefully; returns the labels posted, by screen."""
    client.force_login(worker)
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    while True:
        response = client.get(url)
        if "screen" not in (response.context or {}):
            return
        screen = response.context["screen"]
        client.post(url, _form(response, trap_text=_trap_of(screen), careful=True))


def test_exports_give_rankings_and_one_jsonl_row_per_edit_and_system(client, world):
    campaign, worker = world
    _judge_all(client, worker, campaign)
    rows = [json.loads(line) for line in iter_judgments(campaign, "edit-jsonl")]
    assert rows and {r["system"] for r in rows} <= {"a", "c"}  # the source has no edits, traps none
    judge = pseudonym(worker.pk)
    assert {
        "sentence": 0, "system": "a", "span": [1, 2], "original": "go", "correction": "went",
        "type": "R:VERB:TENSE", "label": "good", "judge": judge,
    } in rows  # fmt: skip
    assert {r["sentence"] for r in rows} == {0, 1}  # the corpus's two lines, counted from 0
    assert len(rows) == EditLabel.objects.filter(candidate__outputs__system__name__in=["a", "c"]).count()
    # the rankings read back with the core's readers, as every existing analysis reads them
    from_csv = read_rankings("".join(iter_judgments(campaign, "wmt-csv")).encode(), "wmt-csv")
    from_xml = read_rankings("".join(iter_judgments(campaign, "appraise-xml")).encode(), "appraise-xml")
    assert [j.entries for j in from_csv] == [j.entries for j in from_xml]
    assert [dict(j.entries) for j in from_xml] == [{"src": 1, "a": 1, "c": 1}] * 2
    assert {j.annotator for j in from_xml} == {judge}  # the trap, ranked last, is no system's rank


def test_edit_scores_share_of_good_with_a_bootstrap_interval():
    [a, b] = edit_scores({"a": [(2, 2), (1, 1)], "b": [(1, 2), (0, 2)]}, seed=3)
    assert (a.system, a.share, a.low, a.high, a.good, a.labels, a.sentences) == ("a", 1.0, 1.0, 1.0, 3, 3, 2)
    assert (b.system, b.share, b.good, b.labels) == ("b", 0.25, 1, 4)
    assert (b.low, b.high) == (0.0, 0.5)  # resampling two sentences: 0, 1/4 or 1/2 good


def test_the_run_page_shows_the_edit_level_score(client, world):
    campaign, worker = world
    _judge_all(client, worker, campaign)
    run = analysis_run_create(campaign=campaign, kind="trueskill", parameters={}, seed=campaign.seed)
    client.force_login(campaign.created_by)
    html = client.get(reverse("analysis-run", args=[run.pk])).content.decode()
    assert "Edit-level score per system" in html
    rows = re.findall(r'<tr><th scope="row">(\w+)</th><td>([\d.]+)</td><td>([\d.]+)–([\d.]+)</td>', html)
    # every edit of a and c was marked good (the careful worker marks only the trap's bad)
    assert rows == [("a", "1.000", "1.000", "1.000"), ("c", "1.000", "1.000", "1.000")]


def test_the_campaign_form_offers_the_protocol_and_creates_its_campaign(client, world):
    campaign, _ = world
    client.force_login(campaign.created_by)
    page = client.get(reverse("campaign-new")).content.decode()
    assert '<option value="edits">Edit-level labels and ranking</option>' in page
    form = {
        "name": "from the form",
        "protocol": "edits",
        "corpus": campaign.corpus.pk,
        "systems": list(campaign.systems.values_list("pk", flat=True)),
        "judgments_per_item": 1,
        "max_candidates": 3,
        "screens_per_sentence": 1,
        "screens_per_hit": 2,
        "assignment_minutes": 60,
        "trap_rate": 0,
        "repeat_rate": 0,
        "trap_threshold": 0.6,
        "trap_min_seen": 10,
        "reward_per_hit": 0,
        "confirm_few_outputs": "on",  # three systems: the form warns about few distinct outputs per draw
    }
    response = client.post(reverse("campaign-new"), form)
    assert response.status_code == 302, response.context["form"].errors
    made = type(campaign).objects.get(name="from the form")
    assert (made.protocol, made.get_protocol_display()) == ("edits", "Edit-level labels and ranking")


def test_a_judged_campaign_and_then_its_corpus_can_be_deleted(client, world):
    campaign, worker = world
    _judge_all(client, worker, campaign)
    corpus = campaign.corpus
    assert EditLabel.objects.exists()
    campaign.delete()
    assert not EditLabel.objects.exists() and Edit.objects.exists()  # edits stay with their sentence
    corpus.delete()
    assert not Edit.objects.exists() and not EditedText.objects.exists()


def test_markup_in_a_correction_is_shown_as_text(client):
    researcher = factories.user("res", "researcher")
    worker = factories.user("worker", "annotator")
    project = factories.project(researcher, members=[worker])
    evil = '<img src=x onerror="alert(1)">'
    corpus, systems = factories.corpus_with_systems(
        project,
        sources=["He go home ."],
        systems={"a": [f"He went {evil} home ."], "b": ["He goes home ."]},
    )
    campaign = campaign_create(
        project=project, corpus=corpus, name="evil", systems=systems, created_by=researcher,
        protocol="edits", judgments_per_item=1,
    )  # fmt: skip
    _url, response = _page(client, worker, campaign)
    html = response.content.decode()
    assert "<img" not in html and "&lt;img" in html


def test_posting_a_screen_twice_saves_its_labels_once(client, world):
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    data = _form(response, trap_text=_trap_of(response.context["screen"]), careful=True)
    client.post(url, data)
    labels = EditLabel.objects.count()
    client.post(url, data)  # the browser's back button and a second click
    assert ScreenJudgment.objects.count() == 1 and EditLabel.objects.count() == labels > 0


def test_the_one_person_check_reads_each_correction_s_edit_labels(client, world):
    """Issue 41: on the edit-level protocol a judge's answer to a correction is its rank and its
    edits' labels; the one-person check compares both (``alike_details``, one letter per edit)."""
    campaign, worker = world
    url, response = _page(client, worker, campaign)
    screen = response.context["screen"]
    trap = _trap_of(screen)
    assert client.post(url, _form(response, trap_text=trap, careful=True)).status_code == 302
    judged = ScreenJudgment.objects.filter(screen__campaign=campaign).values("screen_id")
    details = protocol_get("edits").alike_details(judged)
    expected = {
        (screen.pk, worker.pk, c.pk): ("b" if c.text == trap else "g") * n
        for c, _segments, n in response.context["edit_rows"]
        if n
    }
    assert details == expected
    assert protocol_get("prws").alike_details(judged) == {}


def test_an_undone_correction_is_never_one_that_a_reference_leaves_undone():
    """Issue 41 (found by bench/bots.py on GMEG dev FCE: careful workers tied such traps): one
    reference of line 307 is the learner's sentence itself, the other three put "again" between
    commas. Undoing one of the commas gives a text a careful reader may rightly rank level with its
    base (the first reference has neither), which fails a ranked trap; the edit-level rule no longer
    makes it. ("travelling", which three references respell "traveling" and the fourth keeps,
    is refused by this rule and by the spelling one.) A correction every reference makes is still taken."""
    from geceval.traps.hidden import UNDONE_CORRECTION, kept_by, reference_edit_check

    source = "This again enables people to save time ."
    refs = [source, *["This , again , enables people to save time ."] * 3]
    base, trap = refs[1], "This , again enables people to save time ."
    assert kept_by(source, refs[0], {(2, 2, (",",))})
    assert not reference_edit_check(base, trap, UNDONE_CORRECTION, source, refs)
    assert reference_edit_check(base, trap, UNDONE_CORRECTION, source, refs[1:])  # every reference makes it
    careful = _scored(source, base, 1, lambda k: "good")
    tied = _scored(source, trap, 1, lambda k: "good")
    assert protocol_get("edits").trap_passed(tied, careful) is False  # why it had to go


def test_an_undone_correction_is_never_a_british_spelling_put_back():
    """Issue 41: all four references of GMEG dev FCE line 73 write "theater" for the learner's
    "theatre" (the references make 190 such respellings over the set), so the reference rule alone
    took "theatre" back as an undone correction; a careful reader may rightly rank the two level,
    which fails a ranked trap. Refused now; the line's other corrections still make traps."""
    from geceval.traps.hidden import UNDONE_CORRECTION, make_trap, reference_edit_check, spelling_variant

    source = (
        "Additionally I felt very hungry and uncomfortable because your theatre restaurant was closed and "
        "you did not give us any reason why ."
    )
    refs = [
        source.replace("Additionally", "Additionally ,")
        .replace("theatre", "theater")
        .replace("closed", "closed ,"),
        source.replace("Additionally", "Additionally ,")
        .replace("theatre", "theater")
        .replace("closed", "closed ,"),
        source.replace("theatre", "theater"),
        source.replace("Additionally", "Additionally ,").replace("theatre", "theater"),
    ]
    base = refs[0]
    trap = base.replace("theater", "theatre")
    assert spelling_variant(source, (9, 10, ("theater",)))
    assert not reference_edit_check(base, trap, UNDONE_CORRECTION, source, refs)
    made = [
        make_trap(
            base, source, refs, seed=f"t{k}", kinds=(UNDONE_CORRECTION,), min_drop=0.1, reference_edits=True
        )
        for k in range(10)
    ]
    assert all(t is None or "theater" in t.text for t in made)
    careful = _scored(source, base, 1, lambda k: "good")
    assert protocol_get("edits").trap_passed(_scored(source, trap, 1, lambda k: "good"), careful) is False


ALL_SOURCE = "But after all the party was great ."  # GMEG dev FCE line 12
ALL_REFS = [
    "But the party was great , after all .",
    "But in spite of that , the party was great .",
    "But all in all , the party was great .",
    "After all , the party was great .",
]
ALL_OUTPUTS = [  # the line's six system outputs, as distinct texts
    "But after all , the party was great .",
    "However , after all , the party was great .",
    ALL_SOURCE,
]


def test_an_added_error_never_shares_an_edit_with_a_correction_of_its_base():
    """Issue 41 (h45: two thirds of the added errors the careful models failed were "mixed" with a base
    edit; h50): the inserter swapped "in all" right beside the base's own corrections (ref2 inserts "in"
    and a comma), and ERRANT, aligning the trap afresh, shows one new edit "in ,": the base's words in
    a wrong place, part correction and part error, which a careful reader may call neutral or even good
    while the verdict asks for bad. The edit-level rule took it; now an added error must leave every
    edit of its base whole and keep at least a word away from it, and an error away from the
    corrections ("parties") is still taken. Every added error drawn for the line's texts shows each of
    its base's ERRANT edits intact and its own edits apart from them."""
    from geceval.traps.hidden import ADDED_ERROR, make_trap, reference_edit_check

    def keys(text: str) -> set[tuple]:
        return {(e["o_start"], e["o_end"], e["c_text"]) for e in compute_edits(ALL_SOURCE, text)}

    texts = [*ALL_OUTPUTS, *ALL_REFS]
    base = ALL_REFS[2]
    mixed = "But all all in , the parties was great ."
    assert keys(base) - keys(mixed) == {(2, 2, "in"), (3, 3, ",")}  # the base's corrections, gone
    assert (3, 3, "in ,") in keys(mixed) - keys(base)  # ... into one new edit the verdict asks to be bad
    assert not reference_edit_check(base, mixed, ADDED_ERROR, ALL_SOURCE, ALL_REFS, texts)
    apart = "But all in all , the parties was great ."
    assert keys(apart) - keys(base) == {(4, 5, "parties")}
    assert reference_edit_check(base, apart, ADDED_ERROR, ALL_SOURCE, ALL_REFS, texts)
    made = 0
    for base in texts:
        base_keys = keys(base)
        for k in range(12):
            trap = make_trap(
                base,
                ALL_SOURCE,
                ALL_REFS,
                seed=f"all{k}",
                avoid=[t for t in texts if t != base],
                kinds=(ADDED_ERROR,),
                reference_edits=True,
            )
            if trap is None:
                continue
            made += 1
            added = keys(trap.text) - base_keys
            assert base_keys <= keys(trap.text), trap.text
            assert all(a[1] < b[0] or b[1] < a[0] for a in added for b in base_keys), trap.text
    assert made >= 20
