"""Edit-level screens through the workers' API: a screen lists each candidate's edits (nothing that
tells a trap apart), an answer labels them in that order, and the labels, ranks and trap verdicts come
out as the browser's form gives them; a bad payload is a 400 with a sentence and saves nothing."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from ranking.models import Candidate, Control, ControlKind, Rating, ScreenJudgment
from ranking.protocols.edits.models import EditLabel
from ranking.services import campaign_create
from ranking.work.api import WorkAssignmentSerializer, _assignment_body
from ranking.work.reads import assignment_with_campaign
from ranking.work.screen_handles import screen_id_from_handle
from tests import factories
from tests.test_work_api_queries import READ

pytestmark = pytest.mark.django_db

SOURCES = ["He go home yesterday .", "She like cat ."]
SYSTEMS = {
    "src": SOURCES,
    "a": ["He went home yesterday .", "She likes cats ."],
    "c": ["He goes home yesterday .", "She likes cat ."],
}
TRAPS = ["He go to home yesterday . .", "She like the cat ."]

# What ERRANT gives each text, by sentence, as the API lists it.
EDITS = {
    SOURCES[0]: {
        "He go home yesterday .": [],
        "He went home yesterday .": [{"index": 0, "span": [1, 2], "original": "go", "correction": "went"}],
        "He goes home yesterday .": [{"index": 0, "span": [1, 2], "original": "go", "correction": "goes"}],
        "He go to home yesterday . .": [
            {"index": 0, "span": [2, 2], "original": "", "correction": "to"},
            {"index": 1, "span": [4, 4], "original": "", "correction": "."},
        ],
    },
    SOURCES[1]: {
        "She like cat .": [],
        "She likes cats .": [
            {"index": 0, "span": [1, 2], "original": "like", "correction": "likes"},
            {"index": 1, "span": [2, 3], "original": "cat", "correction": "cats"},
        ],
        "She likes cat .": [{"index": 0, "span": [1, 2], "original": "like", "correction": "likes"}],
        "She like the cat .": [{"index": 0, "span": [2, 2], "original": "", "correction": "the"}],
    },
}


@pytest.fixture
def world():
    """The paper's design: every screen has the source and its Source+error trap beside a and c;
    two workers judge each screen (one through the API, one through the page)."""
    researcher = factories.user("res", "researcher")
    workers = [factories.user(name, "annotator") for name in ("api-worker", "page-worker")]
    project = factories.project(researcher, members=workers)
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
        judgments_per_item=2,
        trap_system=by_name["trap"],
        trap_design="paper",
        trap_rate=1.0,
    )
    return campaign, workers


def api_for(worker) -> APIClient:
    api = APIClient()
    api.force_authenticate(worker)
    return api


def claim(api, campaign) -> dict:
    response = api.post(f"/api/work/campaigns/{campaign.pk}/request/")
    assert response.status_code == 201, response.content
    return response.json()


def submit(api, body: dict, answers: list[dict]):
    url = f"/api/work/assignments/{body['id']}/screens/{body['screen']['id']}/"
    return api.post(url, {"answers": answers, "ticket": body["screen"]["ticket"]}, format="json")


def decide(text: str, n_edits: int, how: str) -> tuple[int, list[str]]:
    """(rank, labels) of a candidate of a screen of four. careful: the trap last with its edits bad,
    everything else good and first; added_good: as careful with the trap's first edit good;
    same_rank: as careful with the trap ranked first too; above: as careful with the trap first and
    everything else second."""
    if text not in TRAPS:
        return (2 if how == "above" else 1), ["good"] * n_edits
    labels = ["bad"] * n_edits
    if how == "added_good":
        labels[0] = "good"
    return (1 if how in ("same_rank", "above") else 4), labels


def api_answers(screen: dict, how: str = "careful") -> list[dict]:
    out = []
    for c in screen["candidates"]:
        rank, labels = decide(c["text"], len(c["edits"]), how)
        out.append({"position": c["position"], "rank": rank, "labels": labels})
    return out


def saved_labels(judgment: ScreenJudgment) -> set[tuple[int, int, str]]:
    return set(
        EditLabel.objects.filter(judgment=judgment).values_list("candidate__position", "edit__index", "label")
    )


def nothing_saved() -> bool:
    return not (ScreenJudgment.objects.exists() or Rating.objects.exists() or EditLabel.objects.exists())


# ----------------------------------------------------------------------------------- reading


def test_a_screen_lists_each_candidate_s_edits_in_order_and_nothing_more(world):
    campaign, (worker, _) = world
    body = claim(api_for(worker), campaign)
    screen = body["screen"]
    assert {c["text"]: c["edits"] for c in screen["candidates"]} == EDITS[screen["source"]]
    # Every candidate, trap or not, has the same fields, and the edits name no ERRANT type nor system.
    assert {frozenset(c) for c in screen["candidates"]} == {frozenset({"position", "text", "edits"})}
    assert {frozenset(e) for c in screen["candidates"] for e in c["edits"]} == {
        frozenset({"index", "span", "original", "correction"})
    }
    raw = json.dumps(body).lower()
    assert not any(word in raw for word in ("trap", "source+error", "m:prep", "r:verb", "type", "system"))


def test_the_api_lists_the_edits_the_page_shows(client, world):
    campaign, (worker, _) = world
    body = claim(api_for(worker), campaign)
    client.force_login(worker)
    page = client.get(client.get(reverse("campaign-work", args=[campaign.pk])).url)
    assert page.context["screen"].pk == screen_id_from_handle(body["screen"]["id"], assignment_id=body["id"])
    shown = {
        c.position: [(s["edit"].index, s["old"], s["new"]) for s in segments if "edit" in s]
        for c, segments, _count in page.context["edit_rows"]
    }
    listed = {
        c["position"]: [(e["index"], e["original"], e["correction"]) for e in c["edits"]]
        for c in body["screen"]["candidates"]
    }
    assert listed == shown and sum(map(len, shown.values())) == 4


def test_the_plain_body_of_an_edit_level_screen_is_what_its_serializer_renders(world):
    campaign, (worker, _) = world
    body = claim(api_for(worker), campaign)
    found = assignment_with_campaign(worker_id=worker.pk, pk=body["id"])
    plain = _assignment_body(found)
    assert plain["screen"]["candidates"][0]["edits"] is not None
    assert WorkAssignmentSerializer(plain | {"expires": found.expires}).data == plain


def test_reading_an_edit_level_screen_costs_two_queries_more_than_the_pinned_read(
    world, django_assert_num_queries
):
    """The edits come stored: the EditedText rows, then their Edit rows. Read as a relative-ranking
    screen, the same screen costs the pinned READ of tests/test_work_api_queries.py (a PRWS one)."""
    campaign, (worker, _) = world
    api = APIClient()
    api.force_login(worker)  # a session, as the pinned counts have
    body = claim(api, campaign)  # computes and stores the first screen's edits
    with django_assert_num_queries(READ + 2):
        assert api.get(f"/api/work/assignments/{body['id']}/").status_code == 200
    campaign.protocol = "ranking"
    campaign.save(update_fields=["protocol"])
    with django_assert_num_queries(READ):
        read = api.get(f"/api/work/assignments/{body['id']}/").json()
    assert {frozenset(c) for c in read["screen"]["candidates"]} == {frozenset({"position", "text"})}


# ----------------------------------------------------------------------------------- answering


def test_a_worker_completes_an_edit_level_hit_through_the_api_and_passes_the_traps(world):
    campaign, (worker, _) = world
    api = api_for(worker)
    body = claim(api, campaign)
    sent: dict[int, set] = {}
    while body["screen"] is not None:
        screen = body["screen"]
        answers = api_answers(screen)
        sent[screen_id_from_handle(screen["id"], assignment_id=body["id"])] = {
            (a["position"], i, label) for a in answers for i, label in enumerate(a["labels"])
        }
        response = submit(api, body, answers)
        assert response.status_code == 201, response.content
        body = response.json()
    assert (body["status"], body["done"], body["total"]) == ("submitted", 2, 2)
    judgments = ScreenJudgment.objects.filter(judge=worker)
    assert {j.screen_id: saved_labels(j) for j in judgments} == sent
    assert all(sent.values()) and EditLabel.objects.filter(judgment__judge=worker).count() == sum(
        map(len, sent.values())
    )
    assert [j.trap_passed for j in judgments] == [True, True]
    ranks = dict(
        Rating.objects.filter(judgment__judge=worker, candidate__text=TRAPS[0]).values_list(
            "candidate__text", "rank"
        )
    )
    assert ranks == {TRAPS[0]: 4}


def page_form(response, how: str) -> dict:
    context = response.context
    data = {"screen": context["screen_handle"], "started": context["started"]}
    for c, _segments, count in context["edit_rows"]:
        rank, labels = decide(c.text, count, how)
        data[f"rank-{c.position}"] = str(rank)
        data.update({f"edit-{c.position}-{i}": label for i, label in enumerate(labels)})
    return data


@pytest.mark.parametrize(
    "how,passed", [("careful", True), ("added_good", False), ("same_rank", True), ("above", False)]
)
def test_the_trap_verdict_and_labels_are_the_page_s_for_the_same_answers(client, world, how, passed):
    """Bad labels on the added errors and the trap below its base, or level with it, pass (issue 41);
    an added error marked good, or the trap ranked above its base, fails: through the API exactly as
    through the page."""
    campaign, (api_worker, page_worker) = world
    api = api_for(api_worker)
    body = claim(api, campaign)
    assert submit(api, body, api_answers(body["screen"], how)).status_code == 201

    client.force_login(page_worker)
    url = client.get(reverse("campaign-work", args=[campaign.pk])).url
    page = client.get(url)
    assert page.context["screen"].pk == screen_id_from_handle(
        body["screen"]["id"], assignment_id=body["id"]
    )  # the same screen, the other slot
    assert client.post(url, page_form(page, how)).status_code == 302

    by_api = ScreenJudgment.objects.get(judge=api_worker)
    by_page = ScreenJudgment.objects.get(judge=page_worker)
    assert (
        (by_api.screen_id, by_api.trap_passed)
        == (by_page.screen_id, by_page.trap_passed)
        == (screen_id_from_handle(body["screen"]["id"], assignment_id=body["id"]), passed)
    )
    assert saved_labels(by_api) == saved_labels(by_page) and len(saved_labels(by_api)) == 4
    ranks = {
        j: sorted(Rating.objects.filter(judgment=j).values_list("candidate__position", "rank"))
        for j in (by_api, by_page)
    }
    assert ranks[by_api] == ranks[by_page]
    assert (by_api.trap_base_answer, by_api.trap_answer) == (by_page.trap_base_answer, by_page.trap_answer)


def _position(screen: dict, which) -> tuple[int, int]:
    """(position, number of edits) of the first candidate ``which`` accepts."""
    return next((c["position"], len(c["edits"])) for c in screen["candidates"] if which(c))


def _trap(screen):
    return _position(screen, lambda c: c["text"] in TRAPS)


def _edited(screen):
    return _position(screen, lambda c: c["text"] not in TRAPS and c["edits"])


def _plain(screen):
    return _position(screen, lambda c: not c["edits"])


def _answer(answers: list[dict], position: int) -> dict:
    return next(a for a in answers if a["position"] == position)


def _changes(n: int) -> str:
    return "no changes" if n == 0 else "1 change" if n == 1 else f"{n} changes"


def fewer_labels(screen, answers) -> str:
    position, n = _trap(screen)
    _answer(answers, position)["labels"].pop()
    return f"the correction at position {position} has {_changes(n)}: give one label per change, in the order listed (you gave {n - 1})"


def more_labels(screen, answers) -> str:
    position, n = _edited(screen)
    _answer(answers, position)["labels"].append("good")
    return f"the correction at position {position} has {_changes(n)}: give one label per change, in the order listed (you gave {n + 1})"


def labels_without_edits(screen, answers) -> str:
    position, _ = _plain(screen)
    _answer(answers, position)["labels"] = ["good"]
    return f"the correction at position {position} has no changes: give one label per change, in the order listed (you gave 1)"


def set_trap(field: str, value) -> callable:
    def spoil(screen, answers) -> None:
        answer = _answer(answers, _trap(screen)[0])
        if value is None:
            answer.pop(field)
        else:
            answer[field] = value

    return spoil


NEEDS_LABELS = (
    "label every change: a list of good, bad or neutral, one per change of the correction in the order "
    "listed (empty for a correction without changes)"
)


@pytest.mark.parametrize(
    "spoil,error",
    [
        (fewer_labels, None),
        (more_labels, None),
        (labels_without_edits, None),
        (set_trap("labels", None), NEEDS_LABELS),
        (set_trap("labels", "bad bad"), NEEDS_LABELS),
        (set_trap("labels", ["great"]), 'a change is marked good, bad or neutral, not \\"great\\"'),
        (set_trap("labels", [["bad"]]), "a change is marked good, bad or neutral"),
        (set_trap("rank", None), "rank every correction"),
        (set_trap("rank", 5), "ranks are whole numbers from 1 (best) to 4"),
        (lambda screen, answers: answers.pop() and None, "every output on the screen needs an answer"),
    ],
)
def test_a_bad_payload_is_refused_with_a_sentence_and_nothing_is_saved(world, spoil, error):
    campaign, (worker, _) = world
    api = api_for(worker)
    body = claim(api, campaign)
    screen = body["screen"]
    answers = api_answers(screen)
    error = spoil(screen, answers) or error
    response = submit(api, body, answers)
    assert response.status_code == 400
    assert error in response.content.decode(), response.content
    assert nothing_saved()
    assert submit(api, body, api_answers(screen)).status_code == 201  # the screen is still open


def test_a_resubmitted_screen_saves_its_labels_once(world):
    campaign, (worker, _) = world
    api = api_for(worker)
    body = claim(api, campaign)
    answers = api_answers(body["screen"])
    assert submit(api, body, answers).status_code == 201
    labels = EditLabel.objects.count()
    again = submit(api, body, answers)
    assert again.status_code == 200
    assert ScreenJudgment.objects.count() == 1 and EditLabel.objects.count() == labels == 4


# ----------------------------------------------------------------------------------- hidden traps


def _work_through_api(campaign, worker, *, careful: bool, max_screens: int = 12) -> None:
    """A client that knows the traps (the test does; the API does not say): careful marks bad each
    edit of a trap that its base's listed edits do not have and ranks the trap last; an added
    correction (issue 41's positive control) it reads as the better text: all good, ranked first."""
    traps = dict(
        Control.objects.filter(screen__campaign=campaign)
        .exclude(kind__in=(ControlKind.REPEAT, ControlKind.ADDED_CORRECTION))
        .values_list("trap_id", "base_id")
    )
    api = api_for(worker)
    body = claim(api, campaign)
    done = 0
    while body["screen"] is not None and done < max_screens:
        screen = body["screen"]
        ids = dict(
            Candidate.objects.filter(
                screen_id=screen_id_from_handle(screen["id"], assignment_id=body["id"])
            ).values_list("position", "pk")
        )
        by_id = {ids[c["position"]]: c for c in screen["candidates"]}
        answers = []
        for c in screen["candidates"]:
            base = by_id.get(traps.get(ids[c["position"]])) if careful else None
            keys = {(tuple(e["span"]), e["correction"]) for e in base["edits"]} if base else set()
            labels = [
                "bad" if base and (tuple(e["span"]), e["correction"]) not in keys else "good"
                for e in c["edits"]
            ]
            answers.append({"position": c["position"], "rank": len(by_id) if base else 1, "labels": labels})
        response = submit(api, body, answers)
        assert response.status_code == 201, response.content
        body = response.json()
        done += 1


def test_hidden_traps_judged_through_the_api_pass_with_their_added_edits_bad(tmp_path):
    campaign = factories.gmeg_fce_trap_campaign(
        tmp_path, "edits", "edits with hidden traps", judgments_per_item=2, screens_per_hit=12, trap_rate=0.3
    )
    careful, careless = (factories.user(name, "annotator") for name in ("careful", "careless"))
    campaign.project.members.add(careful, careless)
    _work_through_api(campaign, careful, careful=True)
    _work_through_api(campaign, careless, careful=False)
    verdicts = {
        worker: list(
            ScreenJudgment.objects.filter(judge=worker, trap_passed__isnull=False).values_list(
                "trap_passed", flat=True
            )
        )
        for worker in (careful, careless)
    }
    assert len(verdicts[careful]) >= 1 and set(verdicts[careful]) == {True}
    # all good, all first passes an added correction; the kinds that make the trap worse catch it
    worse = ScreenJudgment.objects.filter(judge=careless, trap_passed__isnull=False).exclude(
        screen__control__kind=ControlKind.ADDED_CORRECTION
    )
    assert worse.count() >= 1 and set(worse.values_list("trap_passed", flat=True)) == {False}
    assert EditLabel.objects.filter(judgment__judge=careful).count() > 0
