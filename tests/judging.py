"""Test helpers for judgment campaigns: a worker doing whole HITs through the services."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from ranking.models import Assignment, Candidate, Screen
from ranking.services import CandidateScore, assignment_request, screen_submit
from ranking.work.assignments import assignment_next_screen

Answer = Callable[[Screen, Candidate], CandidateScore]


def is_trap(candidate: Candidate) -> bool:
    return candidate.outputs.filter(system__kind="source+error").exists()


def is_source(screen: Screen, candidate: Candidate) -> bool:
    return " ".join(candidate.text.split()) == " ".join(screen.sentence.text.split())


def do_hit(campaign, worker, answer: Answer) -> Assignment:
    assignment = assignment_request(campaign=campaign, worker=worker)
    while assignment.status == "active" and (screen := assignment_next_screen(assignment)) is not None:
        answers = {c.pk: answer(screen, c) for c in screen.candidates.all()}
        screen_submit(assignment=assignment, screen=screen, worker=worker, answers=answers, seconds=7.0)
        assignment.refresh_from_db()
    return assignment


def honest_prws(screen: Screen, candidate: Candidate) -> CandidateScore:
    """Traps clearly worse than the source, everything else 70."""
    if is_trap(candidate):
        return CandidateScore(score=10)
    return CandidateScore(score=70)


def careless_prws(screen: Screen, candidate: Candidate) -> CandidateScore:
    """Every output the same score: each trap is a tie with the source, i.e. a failure."""
    return CandidateScore(score=50)


RING_QUALITY = {"a": 90, "b": 55, "c": 35, "d": 70}


def _ring_texts(screens: int) -> tuple[list[str], dict[str, list[str]], dict[str, str]]:
    """The ring campaigns' sources, the outputs of systems a-d (``RING_QUALITY``) and each output's
    system."""
    sources = [f"Sentence number {i} have a error ." for i in range(screens)]
    systems = {
        "a": [f"Sentence number {i} has an error ." for i in range(screens)],
        "b": [f"Sentence number {i} has a error ." for i in range(screens)],
        "c": [f"Sentence {i} has an error ." for i in range(screens)],
        "d": [f"The sentence number {i} has an error ." for i in range(screens)],
    }
    return sources, systems, {text: name for name, texts in systems.items() for text in texts}


def ring_campaign(readers: int = 4, screens: int = 12):
    """A PRWS campaign without traps (one HIT of ``screens`` screens, systems a-d of ``RING_QUALITY``)
    for ``readers`` people and "copy", a second account of reader0 (made last, so its id is higher):
    (campaign, {name: user}, {name: answer function}). Nobody has worked yet."""
    from tests import factories

    sources, systems, of_text = _ring_texts(screens)
    names = [*(f"reader{k}" for k in range(readers)), "copy"]
    campaign, workers = factories.prws_crowd(names, sources, systems, name="ring", screens_per_hit=screens)

    def reader(k: int) -> Answer:
        def answer(screen: Screen, candidate: Candidate) -> CandidateScore:
            noise = random.Random(f"{k}-{candidate.pk}").gauss(0, 12)
            return CandidateScore(
                score=max(0, min(100, round(RING_QUALITY[of_text[candidate.text]] + noise)))
            )

        return answer

    answers = {f"reader{k}": reader(k) for k in range(readers)} | {"copy": reader(0)}
    return campaign, workers, answers


def ring_group_campaign(readers: int = 4, screens: int = 24):
    """A ranking campaign without traps (one HIT of ``screens`` screens, systems a-d of
    ``RING_QUALITY``) for "copy1" and "copy2" (made first: the lowest ids), ``readers`` people and
    "original", whose one person answers on "original" and copies the answer to the two others,
    changing one pair on each (the best two on copy1's, the worst two on copy2's): each copy is alike
    the original, the copies are two changes apart. (campaign, {name: user}, {name: answer
    function}); nobody has worked yet."""
    from tests import factories

    sources, systems, of_text = _ring_texts(screens)
    names = ["copy1", "copy2", *(f"reader{k}" for k in range(readers)), "original"]
    campaign, workers = factories.prws_crowd(
        names, sources, systems, name="ring group", screens_per_hit=screens, protocol="ranking"
    )

    @cache  # read once a screen, not once a candidate
    def ranks(who: str, screen: Screen) -> dict[int, int]:
        """Candidate id -> rank, by the screen's quality as ``who`` reads it (25 points of noise)."""
        rng = random.Random(f"{who}-{screen.pk}")
        order = sorted(
            screen.candidates.all(),
            key=lambda c: (
                -(RING_QUALITY[of_text[c.text]] + random.Random(c.pk).gauss(0, 10) + rng.gauss(0, 25))
            ),
        )
        return {c.pk: k for k, c in enumerate(order, 1)}

    def reader(who: str, swap: tuple[int, int] | None = None) -> Answer:
        def answer(screen: Screen, candidate: Candidate) -> CandidateScore:
            rank = ranks(who, screen)[candidate.pk]
            if swap is not None and rank in swap:
                rank = swap[1] if rank == swap[0] else swap[0]
            return CandidateScore(rank=rank)

        return answer

    answers = {name: reader(name) for name in names[2:]}
    answers |= {"copy1": reader("original", (1, 2)), "copy2": reader("original", (3, 4))}
    return campaign, workers, answers
